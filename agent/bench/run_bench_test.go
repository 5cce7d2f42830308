package bench

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
)

// BenchmarkQueryPhase runs the bench once per b.N for profiling.
func BenchmarkQueryPhase(b *testing.B) {
	for range b.N {
		rep, err := Run(context.Background(), Options{Concurrency: 8, Duration: 4 * time.Second, Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(rep.Ratio, "ratio")
		b.ReportMetric(rep.Query.Throughput, "query_rps")
		b.ReportMetric(rep.Echo.Throughput, "echo_rps")
	}
}

// BenchmarkQueryCalls makes b.N aoi.query calls from 8 workers on one
// started pair: a fixed amount of work (-benchtime 20000x) to profile or
// to count instructions over, and the process CPU time per call.
func BenchmarkQueryCalls(b *testing.B) {
	ctx := context.Background()
	defer func(d time.Duration) { listenTimeout = d }(listenTimeout)
	listenTimeout = 5 * time.Minute
	eng, pm, cleanup, err := startPair(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer cleanup()
	client := rpc.NewClient("https://"+eng.Addr()+"/aoi/v1/rpc", pm.transport.HTTPClient(eng.Fingerprint()), rpc.ClientOptions{MaxAttempts: 1})
	params := benchQuery()
	var next atomic.Int64
	b.ResetTimer()
	cpu0 := processCPU()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				var res json.RawMessage
				if err := client.Call(ctx, wire.MethodQuery, params, &res); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
