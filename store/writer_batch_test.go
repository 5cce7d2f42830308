package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// batchOutcome is what one write in a held batch reported.
type batchOutcome struct {
	err  error
	rec  AuditRecord
	runs atomic.Int32
}

// runHeldBatch queues n writes behind a held one so that all of them run in
// the same group commit, then releases them. bad(i) decides how write i
// ends after it has appended its audit row and set its setting: nil, an
// error, or a panic.
func runHeldBatch(t *testing.T, db *DB, n int, bad func(i int) error) []*batchOutcome {
	t.Helper()
	release, started := make(chan struct{}), make(chan struct{})
	var once sync.Once
	held := make(chan error, 1)
	go func() {
		held <- db.Write(context.Background(), func(tx *Tx) error {
			once.Do(func() { close(started) })
			<-release
			return nil
		})
	}()
	<-started
	out := make([]*batchOutcome, n)
	var wg sync.WaitGroup
	for i := range n {
		out[i] = &batchOutcome{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := out[i]
			o.err = db.Write(context.Background(), func(tx *Tx) error {
				o.runs.Add(1)
				rec, err := tx.AppendAudit("peer", fmt.Sprintf("m%d", i), "ok", nil)
				if err != nil {
					return err
				}
				o.rec = rec
				if err := tx.SetSetting(fmt.Sprintf("k%d", i), "v"); err != nil {
					return err
				}
				return bad(i)
			})
		}()
	}
	waitQueued(t, db, n)
	close(release)
	wg.Wait()
	if err := <-held; err != nil {
		t.Fatalf("the held write failed: %v", err)
	}
	return out
}

// checkBatch asserts that exactly the writes failed(i) names failed, that
// none of their changes are stored, that every other write's audit row is
// stored exactly as its writer was told, and that the chain verifies.
func checkBatch(t *testing.T, db *DB, out []*batchOutcome, failed func(i int) bool) {
	t.Helper()
	ctx := context.Background()
	rows, err := db.AuditList(ctx, AuditQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	bySeq := map[int64]AuditRecord{}
	for _, r := range rows {
		bySeq[r.Seq] = r
	}
	want := 0
	for i, o := range out {
		_, stored, err := db.Setting(ctx, fmt.Sprintf("k%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if failed(i) {
			if o.err == nil {
				t.Fatalf("write %d should have failed", i)
			}
			if stored {
				t.Fatalf("write %d failed but its setting was committed", i)
			}
			continue
		}
		want++
		if o.err != nil {
			t.Fatalf("write %d failed: %v", i, o.err)
		}
		if !stored {
			t.Fatalf("write %d succeeded but its setting is missing", i)
		}
		got, ok := bySeq[o.rec.Seq]
		if !ok || got.Hash != o.rec.Hash || got.Method != fmt.Sprintf("m%d", i) {
			t.Fatalf("write %d was told seq %d hash %.8s; the log has %+v", i, o.rec.Seq, o.rec.Hash, got)
		}
	}
	if len(rows) != want {
		t.Fatalf("%d audit rows, want %d (one per successful write)", len(rows), want)
	}
	if v := mustVerify(t, db); !v.OK || v.Entries != int64(want) {
		t.Fatalf("verify = %+v, want OK with %d entries", v, want)
	}
}

func TestBatchWithoutFailureRunsEachFunctionOnce(t *testing.T) {
	db, _ := openTestDB(t)
	b0, _ := db.WriteStats()
	out := runHeldBatch(t, db, 40, func(int) error { return nil })
	checkBatch(t, db, out, func(int) bool { return false })
	for i, o := range out {
		if n := o.runs.Load(); n != 1 {
			t.Fatalf("write %d ran %d times, want once (no function failed)", i, n)
		}
	}
	// The 40 were all queued when the held write let go, so one batch took
	// them (the held write's own batch may have, or committed first).
	if b1, _ := db.WriteStats(); b1-b0 > 2 {
		t.Fatalf("%d group commits for the held write and the 40 queued behind it, want at most 2", b1-b0)
	}
}

func TestFailingWriteInLargeBatchRollsBackOnlyItself(t *testing.T) {
	db, _ := openTestDB(t)
	boom := errors.New("boom")
	failed := func(i int) bool { return i == 7 || i == 31 }
	out := runHeldBatch(t, db, 40, func(i int) error {
		if failed(i) {
			return boom
		}
		return nil
	})
	for _, i := range []int{7, 31} {
		if !errors.Is(out[i].err, boom) {
			t.Fatalf("write %d returned %v, want its own error", i, out[i].err)
		}
		if n := out[i].runs.Load(); n != 1 {
			t.Fatalf("failed write %d ran %d times, want once", i, n)
		}
	}
	checkBatch(t, db, out, failed)
	// The chain continues from the last committed row.
	if rec := appendN(t, db, 1)[0]; rec.Seq != 39 {
		t.Fatalf("next seq = %d, want 39", rec.Seq)
	}
	if v := mustVerify(t, db); !v.OK {
		t.Fatalf("verify = %+v", v)
	}
}

func TestPanickingWriteInLargeBatchRollsBackOnlyItself(t *testing.T) {
	db, _ := openTestDB(t)
	failed := func(i int) bool { return i == 0 || i == 20 || i == 39 }
	out := runHeldBatch(t, db, 40, func(i int) error {
		if failed(i) {
			panic(fmt.Sprintf("bad write %d", i))
		}
		return nil
	})
	for _, i := range []int{0, 20, 39} {
		if out[i].err == nil || !strings.Contains(out[i].err.Error(), "panicked") {
			t.Fatalf("write %d returned %v, want the panic as an error", i, out[i].err)
		}
	}
	checkBatch(t, db, out, failed)
}

func TestEveryWriteInBatchFailing(t *testing.T) {
	db, _ := openTestDB(t)
	out := runHeldBatch(t, db, 10, func(i int) error { return fmt.Errorf("no %d", i) })
	checkBatch(t, db, out, func(int) bool { return true })
	if rec := appendN(t, db, 1)[0]; rec.Seq != 1 {
		t.Fatalf("next seq = %d, want 1 (nothing was committed)", rec.Seq)
	}
}

// TestWriteStatsCountOnlyCallersWrites: the writer's own index pass rides
// in a caller's batch and is not counted as a write, so writes per commit
// (aoi bench) is the callers' group-commit size.
func TestWriteStatsCountOnlyCallersWrites(t *testing.T) {
	db, _ := openTestDB(t)
	b0, w0 := db.WriteStats()
	n := queryIndexRows + 1 // one write each; the last batch carries the pass
	storeQuestions(t, db, n, "escalated", time.Now().UTC())
	if queryMark(t, db) == 0 {
		t.Fatal("no index pass ran: the test checks nothing")
	}
	b1, w1 := db.WriteStats()
	if w1-w0 != int64(n) || b1-b0 != int64(n) {
		t.Fatalf("%d writes in %d commits counted for %d callers' writes made one at a time", w1-w0, b1-b0, n)
	}
}
