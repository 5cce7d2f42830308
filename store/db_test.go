package store

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testClock is a deterministic clock that advances 1 ms per call.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2025, 5, 1, 9, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Millisecond)
	return c.now
}

func openTestDB(t testing.TB, opts ...Option) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "aoi.db")
	db, err := Open(path, opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// rawDB opens the file with a plain database/sql connection, the way a
// person with the sqlite3 CLI would.
func rawDB(t testing.TB, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}

func TestOpenCreatesPrivateFileAndDir(t *testing.T) {
	db, path := openTestDB(t)
	if db.Path() != path {
		t.Fatalf("Path() = %q, want %q", db.Path(), path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("database mode = %v, want 0600", perm)
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	if perm := di.Mode().Perm(); perm != 0o700 {
		t.Errorf("data dir mode = %v, want 0700", perm)
	}
	var mode string
	if err := db.rd.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q (%v), want wal", mode, err)
	}
}

// TestOpenRemovesAStaleSHM: an aoi from before the unix-excl VFS left an
// aoi.db-shm beside the database; this one keeps the WAL index in memory,
// so the file is removed on open, and none is made again.
func TestOpenRemovesAStaleSHM(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aoi.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := os.WriteFile(path+"-shm", make([]byte, 32<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Write(context.Background(), func(tx *Tx) error {
		_, err := tx.AppendAudit("pm", "aoi.query", "ok", nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-shm"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("aoi.db-shm after open and a write: %v; want it gone", err)
	}
}

func TestMigrationsIdempotentAcrossReopen(t *testing.T) {
	db, path := openTestDB(t)
	ms, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	count := func(db *DB) int {
		var n int
		if err := db.rd.QueryRow(`SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := count(db); got != len(ms) {
		t.Fatalf("schema_migrations has %d rows, want %d", got, len(ms))
	}
	if err := db.Write(context.Background(), func(tx *Tx) error { return tx.SetSetting("k", "v") }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for range 2 {
		db2, err := Open(path)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		if got := count(db2); got != len(ms) {
			t.Fatalf("after reopen schema_migrations has %d rows, want %d", got, len(ms))
		}
		if v, ok, err := db2.Setting(context.Background(), "k"); err != nil || !ok || v != "v" {
			t.Fatalf("setting after reopen = %q %v %v", v, ok, err)
		}
		db2.Close()
	}
}

func TestOpenRefusesNewerSchema(t *testing.T) {
	db, path := openTestDB(t)
	db.Close()
	raw := rawDB(t, path)
	if _, err := raw.Exec(`INSERT INTO schema_migrations(version, name, applied_at) VALUES (9999, '9999_future.sql', '')`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), "newer aoi") {
		t.Fatalf("Open on a newer database: err = %v, want a 'newer aoi' error", err)
	}
}

func TestReadPoolIsReadOnly(t *testing.T) {
	db, _ := openTestDB(t)
	if _, err := db.rd.Exec(`INSERT INTO settings(key, value) VALUES ('a', 'b')`); err == nil {
		t.Fatal("write through the read pool succeeded; it must be read-only")
	}
}

func TestWriteCtxCanceledBeforeRunDoesNotRun(t *testing.T) {
	db, _ := openTestDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ran atomic.Bool
	err := db.Write(ctx, func(tx *Tx) error { ran.Store(true); return nil })
	if !errors.Is(err, context.Canceled) || ran.Load() {
		t.Fatalf("err = %v, ran = %v; want context.Canceled and not run", err, ran.Load())
	}
}

func TestWriteAfterCloseFails(t *testing.T) {
	db, _ := openTestDB(t)
	db.Close()
	err := db.Write(context.Background(), func(tx *Tx) error { return nil })
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("Write after Close = %v, want ErrClosed", err)
	}
}

func TestWritePanicIsAnError(t *testing.T) {
	db, _ := openTestDB(t)
	err := db.Write(context.Background(), func(tx *Tx) error { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v, want the panic as an error", err)
	}
	if err := db.Write(context.Background(), func(tx *Tx) error { return tx.SetSetting("after", "1") }); err != nil {
		t.Fatalf("writer dead after a panic: %v", err)
	}
}

func TestOpenNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "aoi.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not sqlite ", 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Open on a non-database file = %v, want an error naming the file", err)
	}
}

// TestNewFileGetsSmallPagesExistingKeepsItsOwn: a new database is made
// with 2 KiB pages (aoi.query's commits write each changed page whole to
// the WAL); a file made with another page size, by an earlier aoi or by
// hand, keeps it, and aoi works on it as before.
func TestNewFileGetsSmallPagesExistingKeepsItsOwn(t *testing.T) {
	ctx := context.Background()
	pageSizeOf := func(db *DB) int {
		t.Helper()
		var n int
		if err := db.rd.QueryRowContext(ctx, "PRAGMA page_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	db, _ := openTestDB(t)
	if got := pageSizeOf(db); got != 2048 {
		t.Errorf("a new database has %d-byte pages, want 2048", got)
	}

	path := filepath.Join(t.TempDir(), "aoi.db")
	raw := rawDB(t, path)
	if _, err := raw.Exec("PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; CREATE TABLE made_by_hand(x)"); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	old, err := Open(path)
	if err != nil {
		t.Fatalf("Open of a 4 KiB-page file: %v", err)
	}
	defer old.Close()
	if got := pageSizeOf(old); got != 4096 {
		t.Errorf("an existing database now has %d-byte pages, want the 4096 it was made with", got)
	}
	if err := old.Write(ctx, func(tx *Tx) error {
		_, err := tx.AppendAudit("pm", "aoi.query", "ok", map[string]any{"q": 1})
		return err
	}); err != nil {
		t.Fatalf("a write to the 4 KiB-page file: %v", err)
	}
}
