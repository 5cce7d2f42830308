package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent/bench"
)

// TestBenchScale: `aoi bench --scale N` runs the discovery simulation and
// prints convergence, traffic, registry and audit figures (--json too); a
// tailnet of one is refused with what to pass instead.
func TestBenchScale(t *testing.T) {
	isolate(t)
	r := runAOI(t, "bench", "--scale", "30", "--scale-minutes", "2")
	for _, want := range []string{"registries converged after", "per agent per minute", "one registry of 29 peers", "audit rows from discovery"} {
		if r.code != exitOK || !strings.Contains(r.stdout, want) {
			t.Fatalf("missing %q; exit %d\nstdout: %s\nstderr: %s", want, r.code, r.stdout, r.stderr)
		}
	}
	r = runAOI(t, "--json", "bench", "--scale", "30", "--seed-replies")
	var rep bench.ScaleReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitOK {
		t.Fatalf("exit %d, %v: %s", r.code, err, r.stdout)
	}
	if rep.Agents != 30 || !rep.SeedReplies || rep.ConvergedAfter <= 0 || rep.Latency <= 0 || rep.BytesPerMin <= 0 {
		t.Fatalf("report = %+v", rep)
	}
	r = runAOI(t, "bench", "--scale", "1")
	if r.code == exitOK || !strings.Contains(r.stderr, "--scale 1") {
		t.Fatalf("--scale 1: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestBenchScaleEachWayAndInterval: --each-way announces to every peer
// every round (about twice the default's announces, which skip peers met
// in the last half interval), and --scale-interval sets the round length
// the report states.
func TestBenchScaleEachWayAndInterval(t *testing.T) {
	isolate(t)
	report := func(args ...string) bench.ScaleReport {
		t.Helper()
		r := runAOI(t, append([]string{"--json", "bench", "--scale", "30", "--scale-minutes", "2"}, args...)...)
		var rep bench.ScaleReport
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitOK {
			t.Fatalf("%v: exit %d, %v: %s%s", args, r.code, err, r.stdout, r.stderr)
		}
		return rep
	}
	base, each := report(), report("--each-way")
	if !each.EachWay || each.AnnouncesPerMin < 1.5*base.AnnouncesPerMin {
		t.Errorf("--each-way: %.1f announces/min vs %.1f by default, want about twice", each.AnnouncesPerMin, base.AnnouncesPerMin)
	}
	slow := report("--scale-interval", "2m")
	if slow.Interval != "2m0s" || slow.AnnouncesPerMin >= base.AnnouncesPerMin {
		t.Errorf("--scale-interval 2m: interval %q, %.1f announces/min vs %.1f at 1m", slow.Interval, slow.AnnouncesPerMin, base.AnnouncesPerMin)
	}
}
