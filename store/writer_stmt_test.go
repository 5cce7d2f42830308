package store

import (
	"context"
	"testing"
)

// TestWriterStatementCache: plain writes are prepared once and reused;
// statements that can stop on a row (a PRAGMA, RETURNING) are not cached,
// and nothing the writer ran keeps a read open past its COMMIT, so a
// TRUNCATE checkpoint still empties the WAL.
func TestWriterStatementCache(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	const insert = `INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`
	var cached []string
	for i := range 3 {
		err := db.Write(ctx, func(tx *Tx) error {
			if _, err := tx.Exec(insert, "k", i); err != nil {
				return err
			}
			if _, err := tx.Exec(`PRAGMA secure_delete = 1`); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRow(`SELECT count(*) FROM settings WHERE key = ?`, "k").Scan(&n); err != nil || n != 1 {
				t.Errorf("count = %d, %v; want 1", n, err)
			}
			cached = cached[:0]
			for q := range tx.stmts {
				cached = append(cached, q)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	has := func(q string) bool {
		for _, c := range cached {
			if c == q {
				return true
			}
		}
		return false
	}
	if !has(insert) {
		t.Errorf("the INSERT was not cached; cached: %q", cached)
	}
	if has(`PRAGMA secure_delete = 1`) {
		t.Error("a PRAGMA run through Exec was cached; it stops on a row and would stay open")
	}
	var busy, frames, done int
	if err := db.cp.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil {
		t.Fatal(err)
	}
	if busy != 0 || frames != 0 {
		t.Fatalf("TRUNCATE checkpoint: busy=%d frames=%d; a statement of the writer still holds a read", busy, frames)
	}
	for q, want := range map[string]bool{
		"INSERT INTO t VALUES (?)": true, "  update t SET a = 1": true, "DELETE FROM t": true,
		"INSERT INTO t VALUES (1) RETURNING id": false, "PRAGMA x = 1": false, "SELECT 1": false,
	} {
		if got := plainWrite(q); got != want {
			t.Errorf("plainWrite(%q) = %v, want %v", q, got, want)
		}
	}
}
