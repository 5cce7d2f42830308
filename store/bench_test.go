package store

import (
	"context"
	"fmt"
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
