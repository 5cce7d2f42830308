package store

import (
	"context"
	"os"
	"testing"
)

// TestCheckpointerCopiesWAL checks that the checkpoint connection (which is
// query_only) can checkpoint, and that the writer's commits do not
// checkpoint by themselves (that is the checkpointer's job).
func TestCheckpointerCopiesWAL(t *testing.T) {
	db, path := openTestDB(t)
	appendN(t, db, 300)
	var busy, logFrames, copied int
	if err := db.cp.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &copied); err != nil {
		t.Fatalf("checkpoint on the query_only connection: %v", err)
	}
	if busy != 0 || logFrames == 0 || copied != logFrames {
		t.Fatalf("checkpoint = busy %d, wal frames %d, copied %d; want all frames copied", busy, logFrames, copied)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() != 0 {
		t.Fatalf("WAL is %d bytes after Close; the final checkpoint should truncate it", fi.Size())
	}
}
