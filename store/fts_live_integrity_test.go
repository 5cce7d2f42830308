package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestIntegrityCheckWhileIndexChanges: a live integrity check (aoi doctor
// against a running daemon) stays clean after the index changed under a
// read connection that had already read it.
func TestIntegrityCheckWhileIndexChanges(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	add := func(n int, earlier bool) {
		t.Helper()
		if err := db.Write(ctx, func(tx *Tx) error {
			for i := range n {
				ev := ContextEvent{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: fmt.Sprintf("c%d-%v-%d", i, earlier, time.Now().UnixNano()),
					Title: fmt.Sprintf("fix auth token refresh %d", i), Body: "token refresh retries", TS: time.Now(), Earlier: earlier}
				if _, err := tx.InsertContextEvent(ev); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		problems, err := db.IntegrityCheck(ctx)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: integrity check: %v %v", when, problems, err)
		}
	}
	add(200, false)
	for range 4 { // every read connection has read the index
		check("after the first events")
	}
	add(1, false) // a note
	check("after one more event")
	if err := db.Write(ctx, func(tx *Tx) error {
		return tx.ReplaceContextState("git", "acme/webapp", "branch", []ContextEvent{{Title: "on main", TS: time.Now()}})
	}); err != nil {
		t.Fatal(err)
	}
	add(50, true) // backfilled history: FTS5 merges segments (the case that failed)
	if err := db.MergeContextIndex(ctx, 200); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		check("after a note, a state change, backfill and a merge")
	}
}
