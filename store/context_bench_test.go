package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Benchmarks only (go test -bench Context -run ^$ ./store/): they build a
// large index, so they never run in the normal test run.

var benchWords = strings.Fields(`auth token refresh jwt session login logout middleware handler billing invoice
export tax rounding cache redis postgres migration schema query index search api client server config deploy
staging release build test fixture mock retry backoff timeout queue worker payment webhook email template user
account profile permission role admin audit log metric trace error panic leak memory goroutine channel context
認証 トークン 更新 請求 設定 移行 検索 障害 性能 修正 追加 削除 実装 テスト 確認 対応 画面 通知 権限 監査`)

var benchKinds = []string{"commit", "commit", "commit", "tool", "prompt", "assistant", "note", "marker"}

// benchEvent makes a plausible event: a commit-like title and a body of
// 20–60 words, spread over the last 60 days.
func benchEvent(r *rand.Rand, i int, now time.Time) ContextEvent {
	words := func(n int) string {
		var b strings.Builder
		for j := 0; j < n; j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(benchWords[r.IntN(len(benchWords))])
		}
		return b.String()
	}
	area := benchWords[r.IntN(20)]
	return ContextEvent{
		Source: "git", Kind: benchKinds[r.IntN(len(benchKinds))], Ctx: "acme/webapp",
		Key:   fmt.Sprintf("%s/%s_%d.go", area, benchWords[r.IntN(len(benchWords))], r.IntN(50)),
		Title: area + ": " + words(6), Body: words(20 + r.IntN(40)),
		TS: now.Add(-time.Duration(r.Int64N(int64(60 * 24 * time.Hour)))).Add(time.Duration(i)),
	}
}

func insertBench(tb testing.TB, db *DB, n, batch int, seed uint64) {
	if v := os.Getenv("AOI_BENCH_CACHE"); v != "" {
		db.Write(context.Background(), func(tx *Tx) error { _, err := tx.Exec("PRAGMA cache_size=" + v); return err })
	}
	r := rand.New(rand.NewPCG(seed, 7))
	for done := 0; done < n; {
		k := min(batch, n-done)
		err := db.Write(context.Background(), func(tx *Tx) error {
			for i := 0; i < k; i++ {
				if _, err := tx.InsertContextEvent(benchEvent(r, done+i, ctxTestNow)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
		if os.Getenv("AOI_BENCH_RESTART") != "" {
			db.checkpoint("RESTART")
		}
		done += k
	}
}

// BenchmarkContextIngest measures events stored and indexed per second
// (group commits of 500, as a source's batch would be).
func BenchmarkContextIngest(b *testing.B) {
	db := openContextDB(b)
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	insertBench(b, db, b.N, 500, 1)
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
	// CPU per event is what the machine's load cannot distort.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/event")
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var bigIndex struct {
	once sync.Once
	db   *DB
	rows int
	dir  string
	took time.Duration
}

// largeIndex builds (once per run) an index of AOI_BENCH_ROWS events
// (default 1,000,000) in a temporary directory that is kept afterwards (the
// build takes minutes; the path is printed), or opens the database named by
// AOI_BENCH_DB (one kept from an earlier run) to skip the build.
func largeIndex(b *testing.B) *DB {
	bigIndex.once.Do(func() {
		if p := os.Getenv("AOI_BENCH_DB"); p != "" {
			db, err := Open(p, WithClock(func() time.Time { return ctxTestNow }))
			if err != nil {
				b.Fatal(err)
			}
			bigIndex.db = db
			return
		}
		bigIndex.rows = 1_000_000
		if v, err := strconv.Atoi(os.Getenv("AOI_BENCH_ROWS")); err == nil && v > 0 {
			bigIndex.rows = v
		}
		dir, err := os.MkdirTemp("", "aoi-bench-")
		if err != nil {
			b.Fatal(err)
		}
		bigIndex.dir = dir
		db, err := Open(filepath.Join(dir, "aoi.db"), WithClock(func() time.Time { return ctxTestNow }))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		insertBench(b, db, bigIndex.rows, 2000, 2)
		bigIndex.took = time.Since(start)
		bigIndex.db = db
		fmt.Fprintf(os.Stderr, "built %d-row index in %v (%.0f events/s); kept at %s for AOI_BENCH_DB=…, delete it when done\n",
			bigIndex.rows, bigIndex.took.Round(time.Millisecond), float64(bigIndex.rows)/bigIndex.took.Seconds(), filepath.Join(dir, "aoi.db"))
	})
	return bigIndex.db
}

// BenchmarkContextSearchLarge measures search latency on the large index
// over a mix of queries: common and rare terms, 2-character Japanese terms,
// several terms at once, file paths, an ACL callback. Reports p50/p99.
func BenchmarkContextSearchLarge(b *testing.B) {
	db := largeIndex(b)
	queries := []ContextSearch{
		{Terms: []string{"auth"}},
		{Terms: []string{"refresh", "token"}},
		{Terms: []string{"認証"}},
		{Terms: []string{"認証", "トークン"}},
		{Terms: []string{"auth/redis_7.go"}},
		{Terms: []string{"billing", "invoice", "tax", "rounding"}},
		{Terms: []string{"db"}},
		{Terms: []string{"kubernetes"}},
		{Terms: []string{"session", "leak"}, Allow: func(ev ContextEvent) bool { return !strings.HasPrefix(ev.Key, "auth/") }},
	}
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	var ms runtime.MemStats
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := db.SearchContext(ctx, queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
}

// BenchmarkContextSearchEach times each query shape on the large index.
func BenchmarkContextSearchEach(b *testing.B) {
	db := largeIndex(b)
	for _, terms := range [][]string{{"auth"}, {"refresh", "token"}, {"認証"}, {"auth/redis_7.go"}, {"billing", "invoice", "tax", "rounding"}, {"db"}, {"kubernetes"}} {
		b.Run(strings.Join(terms, "+"), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := db.SearchContext(context.Background(), ContextSearch{Terms: terms}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
