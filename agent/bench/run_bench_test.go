package bench

import (
	"context"
	"testing"
	"time"
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
