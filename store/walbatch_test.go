package store

import (
	"context"
	"database/sql"
	"strings"
	"testing"
)

// TestWALBatchWritesACommitInOneCall checks that a group commit of several
// pages reaches the WAL file in one write, not two per page, and that
// another connection (the plain unix VFS, as the read pool uses) sees every
// commit as soon as Write returns.
func TestWALBatchWritesACommitInOneCall(t *testing.T) {
	db, path := openTestDB(t)
	reader, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	big := strings.Repeat("x", 1500) // a few rows fill a page
	const commits = 40
	logical0, physical0 := walWriteCounts()
	for i := range commits {
		write(t, db, func(tx *Tx) error {
			for range 8 {
				if _, err := tx.AppendAudit("pm-tanaka", "aoi.query", "ok", map[string]string{"note": big}); err != nil {
					return err
				}
			}
			return nil
		})
		var n int
		if err := reader.QueryRowContext(context.Background(), `SELECT count(*) FROM audit_log`).Scan(&n); err != nil {
			t.Fatalf("commit %d: reading from another connection: %v", i, err)
		}
		if n != 8*(i+1) {
			t.Fatalf("commit %d: another connection sees %d audit rows, want %d", i, n, 8*(i+1))
		}
	}
	logical, physical := walWriteCounts()
	logical, physical = logical-logical0, physical-physical0
	// Each commit writes at least 4 pages here (two calls each); batched,
	// each reaches the kernel in one call, plus the WAL header now and then.
	if logical < 8*commits {
		t.Fatalf("SQLite made %d WAL writes for %d commits; the test wrote too little to show batching", logical, commits)
	}
	if physical > commits+commits/4 {
		t.Errorf("%d commits (%d WAL writes from SQLite) took %d write calls; want about one a commit", commits, logical, physical)
	}
}
