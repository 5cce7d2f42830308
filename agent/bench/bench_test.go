package bench

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRunMeasuresBothPhases runs a very short bench: both phases must
// complete requests without errors and produce ordered percentiles, in
// the rounds asked for.
func TestRunMeasuresBothPhases(t *testing.T) {
	rep, err := Run(context.Background(), Options{Concurrency: 2, Duration: 300 * time.Millisecond, Rounds: 3, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []Result{rep.Echo, rep.Query} {
		if r.Requests == 0 || r.Errors != 0 {
			t.Fatalf("%s: %d requests, %d errors", r.Name, r.Requests, r.Errors)
		}
		if runtime.GOOS == "linux" && r.CPUPerRequest <= 0 {
			t.Fatalf("%s: no CPU time per request recorded", r.Name)
		}
		if !(r.P50 <= r.P95 && r.P95 <= r.P99) || r.P50 <= 0 {
			t.Fatalf("%s: percentiles out of order: %v %v %v", r.Name, r.P50, r.P95, r.P99)
		}
	}
	if rep.Query.WritesPerCommit < 1 || rep.Echo.WritesPerCommit != 0 {
		t.Fatalf("writes per commit: aoi.query %v, echo %v", rep.Query.WritesPerCommit, rep.Echo.WritesPerCommit)
	}
	if rep.Ratio <= 0 {
		t.Fatalf("ratio = %v", rep.Ratio)
	}
	if len(rep.RoundRatios) != 3 || slices.Min(rep.RoundRatios) <= 0 ||
		rep.Ratio < slices.Min(rep.RoundRatios)*0.9 || rep.Ratio > slices.Max(rep.RoundRatios)*1.1 {
		t.Fatalf("round ratios %v do not fit the run's ratio %v", rep.RoundRatios, rep.Ratio)
	}
	if rep.Machine.Cores <= 0 || rep.Machine.LoadBefore < 0 || rep.Machine.LoadAfter < 0 {
		t.Fatalf("machine not recorded: %+v", rep.Machine)
	}
	if rep.RatioValid != rep.Machine.Quiet() {
		t.Fatalf("ratio_valid %v disagrees with the load average %+v", rep.RatioValid, rep.Machine)
	}
}

// TestBusyMachineInvalidatesRatio: a load average above the core count
// before or after the run makes the ratio no figure, and says so.
func TestBusyMachineInvalidatesRatio(t *testing.T) {
	cases := []struct {
		m     Machine
		quiet bool
	}{
		{Machine{Cores: 2, LoadBefore: 0.3, LoadAfter: 1.9}, true},
		{Machine{Cores: 2, LoadBefore: 2.5, LoadAfter: 0.5}, false},
		{Machine{Cores: 2, LoadBefore: 0.5, LoadAfter: 12}, false},
		{Machine{Cores: 2, LoadBefore: -1, LoadAfter: 0.5}, false},
	}
	for _, c := range cases {
		if got := c.m.Quiet(); got != c.quiet {
			t.Errorf("%+v: quiet = %v, want %v (%s)", c.m, got, c.quiet, c.m.Verdict())
		}
		if !c.quiet && c.m.LoadBefore >= 0 && !strings.Contains(c.m.Verdict(), "NOT A MEASUREMENT") {
			t.Errorf("%+v: verdict %q does not flag the run", c.m, c.m.Verdict())
		}
	}
	if v := parseLoadAvg("0.42 0.50 0.61 1/234 5678\n"); v != 0.42 {
		t.Errorf("parseLoadAvg = %v, want 0.42", v)
	}
	if v := parseLoadAvg("garbage"); v != -1 {
		t.Errorf("parseLoadAvg(garbage) = %v, want -1", v)
	}
}
