package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
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
			for q, c := range tx.stmts {
				cached = append(cached, q)
				if c.raw != nil && c.fused == nil {
					t.Errorf("%q is held without its one-call form (Run would bind per argument)", q)
				}
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

// TestWriterArgumentsAsDatabaseSQLTakesThem: the writer runs its cached
// writes on the driver's own statements, so it converts their arguments
// itself; through Exec (an argument bound per call) and through Run (all
// bound and stepped in one call), every kind the store passes lands as
// database/sql would store it, and one the driver cannot take is refused
// with its position.
func TestWriterArgumentsAsDatabaseSQLTakesThem(t *testing.T) {
	for name, write := range map[string]func(tx *Tx, query string, args ...any) error{
		"Exec": func(tx *Tx, query string, args ...any) error { _, err := tx.Exec(query, args...); return err },
		"Run":  (*Tx).Run,
	} {
		t.Run(name, func(t *testing.T) { testWriterArguments(t, write) })
	}
}

func testWriterArguments(t *testing.T, write func(tx *Tx, query string, args ...any) error) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	type label string
	when := time.Date(2026, 12, 3, 10, 4, 5, 0, time.UTC)
	var none *string
	err := db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(`CREATE TABLE kinds(k TEXT PRIMARY KEY, v ANY) STRICT`); err != nil {
			return err
		}
		for k, v := range map[string]any{"int": 42, "int64": int64(-7), "float": 0.5, "bool": true, "string": "あ",
			"empty": "", "bytes": []byte("b"), "nobytes": []byte{}, "raw": json.RawMessage(`{"a":1}`), "named": label("pm"),
			"nil": nil, "nilptr": none, "null": sql.NullString{}, "time": when} {
			if err := write(tx, `INSERT INTO kinds(k, v) VALUES (?, ?)`, k, v); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	rows, err := db.rd.QueryContext(ctx, `SELECT k, typeof(v) || ':' || coalesce(CAST(v AS TEXT), '') FROM kinds`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		got[k] = v
	}
	want := map[string]string{"int": "integer:42", "int64": "integer:-7", "float": "real:0.5", "bool": "integer:1", "string": "text:あ",
		"empty": "text:", "bytes": "blob:b", "nobytes": "blob:", "raw": `blob:{"a":1}`, "named": "text:pm", "nil": "null:",
		"nilptr": "null:", "null": "null:", "time": "text:2026-12-03 10:04:05+00:00"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s stored as %q, want %q", k, got[k], w)
		}
	}
	err = db.Write(ctx, func(tx *Tx) error {
		return write(tx, `INSERT INTO kinds(k, v) VALUES (?, ?)`, "chan", make(chan int))
	})
	if err == nil || !strings.Contains(err.Error(), "argument 2") {
		t.Errorf("a channel as an argument: err = %v, want one naming argument 2", err)
	}
	// A constraint the statement breaks fails that write alone, and the
	// statement runs again afterwards.
	err = db.Write(ctx, func(tx *Tx) error {
		return write(tx, `INSERT INTO kinds(k, v) VALUES (?, ?)`, "int", 1)
	})
	if err == nil || !strings.Contains(err.Error(), "UNIQUE") {
		t.Errorf("a duplicate key: err = %v, want the UNIQUE constraint's", err)
	}
	err = db.Write(ctx, func(tx *Tx) error {
		return write(tx, `INSERT INTO kinds(k, v) VALUES (?, ?)`, "after", 2)
	})
	if err != nil {
		t.Errorf("the insert after a failed one: %v", err)
	}
}
