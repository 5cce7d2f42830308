package bench

import (
	"context"
	"testing"
	"time"
)

// TestRunMeasuresBothPhases runs a very short bench: both phases must
// complete requests without errors and produce ordered percentiles.
func TestRunMeasuresBothPhases(t *testing.T) {
	rep, err := Run(context.Background(), Options{Concurrency: 2, Duration: 300 * time.Millisecond, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Result{rep.Echo, rep.Query} {
		if r.Requests == 0 || r.Errors != 0 {
			t.Fatalf("%s: %d requests, %d errors", r.Name, r.Requests, r.Errors)
		}
		if !(r.P50 <= r.P95 && r.P95 <= r.P99) || r.P50 <= 0 {
			t.Fatalf("%s: percentiles out of order: %v %v %v", r.Name, r.P50, r.P95, r.P99)
		}
	}
	if rep.Ratio <= 0 {
		t.Fatalf("ratio = %v", rep.Ratio)
	}
}
