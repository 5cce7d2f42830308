package store

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// benchWrite is one audited write: an audit row plus one other insert, the
// shape of a handled aoi.query or aoi.notify.
func benchWrite(db *DB, n int64) error {
	return db.Write(context.Background(), func(tx *Tx) error {
		if _, err := tx.AppendAudit("peer-bench", "aoi.notify", "ok", map[string]any{"n": n, "event": "query.completed"}); err != nil {
			return err
		}
		_, _, err := tx.InsertMessage(MessageRecord{MsgID: fmt.Sprintf("m%d", n), From: "peer-bench", Event: "query.completed"})
		return err
	})
}

// BenchmarkAppendAuditParallel runs 8 writers per core-pair (RunParallel
// with parallelism 4 on 2 cores = 8 goroutines), so group commit batches.
func BenchmarkAppendAuditParallel(b *testing.B) {
	db, _ := openTestDB(b)
	var n atomic.Int64
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := benchWrite(db, n.Add(1)); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkQueryWriteParallel is aoi.query's write, from 8 goroutines: the
// received query and its audit row in one function. A query the secretary
// answered stays out of queries_open; one waiting for the owner goes in.
func BenchmarkQueryWriteParallel(b *testing.B) {
	answer := []byte(`{"summary":"auth: the login flow moved to the new session store; tests pass","completed":true}`)
	for _, state := range []string{"answered", "awaiting"} {
		b.Run(state, func(b *testing.B) {
			db, _ := openTestDB(b)
			var n atomic.Int64
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					q := QueryRecord{ID: fmt.Sprintf("q-%012d", n.Add(1)), From: "pm-bench", Text: "認証機能の進捗は？ how is auth going?",
						ContextScope: []string{"acme/webapp"}, State: state, Decision: "AUTO_RESPOND", Confidence: 0.8, Draft: answer}
					if state == "answered" {
						q.Answer = answer
					}
					err := db.Write(context.Background(), func(tx *Tx) error {
						if err := tx.InsertQuery(q); err != nil {
							return err
						}
						_, err := tx.AppendAudit(q.From, "aoi.query", "ok", map[string]any{"query_id": q.ID, "decision": q.Decision})
						return err
					})
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkAppendAuditSerial is one writer: every write is its own commit.
func BenchmarkAppendAuditSerial(b *testing.B) {
	db, _ := openTestDB(b)
	b.ResetTimer()
	for i := range b.N {
		if err := benchWrite(db, int64(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// seedAudit appends n rows in large transactions (fast set-up).
func seedAudit(b *testing.B, db *DB, n int) {
	b.Helper()
	for done := 0; done < n; {
		chunk := min(10000, n-done)
		err := db.Write(context.Background(), func(tx *Tx) error {
			for i := range chunk {
				if _, err := tx.AppendAudit(fmt.Sprintf("peer-%d", (done+i)%50), "aoi.query", "ok", map[string]int{"i": done + i}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		done += chunk
	}
}

// BenchmarkVerifyAudit100k walks a 100k-row chain.
func BenchmarkVerifyAudit100k(b *testing.B) {
	db, _ := openTestDB(b)
	seedAudit(b, db, 100000)
	b.ResetTimer()
	for range b.N {
		v, err := db.VerifyAudit(context.Background())
		if err != nil || !v.OK || v.Entries != 100000 {
			b.Fatalf("verify = %+v, %v", v, err)
		}
	}
	b.ReportMetric(float64(100000*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkAuditList100k pages through a 100k-row log by agent.
func BenchmarkAuditList100k(b *testing.B) {
	db, _ := openTestDB(b)
	seedAudit(b, db, 100000)
	b.ResetTimer()
	for i := range b.N {
		rows, err := db.AuditList(context.Background(), AuditQuery{Agent: fmt.Sprintf("peer-%d", i%50), Limit: 100})
		if err != nil || len(rows) != 100 {
			b.Fatalf("list = %d rows, %v", len(rows), err)
		}
	}
}

// BenchmarkWriteBatch64 runs group commits of exactly 64 audited writes (the
// writer is held while they queue), so the work per op is fixed and can be
// compared by instruction count (valgrind --tool=callgrind) on a busy machine.
func BenchmarkWriteBatch64(b *testing.B) {
	db, _ := openTestDB(b)
	var n atomic.Int64
	b.ResetTimer()
	for range b.N {
		release, started := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(64)
		go func() {
			defer wg.Done()
			if err := db.Write(context.Background(), func(tx *Tx) error {
				close(started)
				<-release
				_, err := tx.AppendAudit("peer-bench", "aoi.query", "ok", map[string]any{"n": n.Add(1)})
				return err
			}); err != nil {
				b.Error(err)
			}
		}()
		<-started
		for range 63 {
			go func() {
				defer wg.Done()
				if err := benchWrite(db, n.Add(1)); err != nil {
					b.Error(err)
				}
			}()
		}
		waitQueued(b, db, 63)
		close(release)
		wg.Wait()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(64*b.N), "ns/write")
}
