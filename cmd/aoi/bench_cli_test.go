package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent/bench"
)

// TestBenchReportsLoadAverage: `aoi bench` prints the machine's load with
// every run, and `--json` carries it with the ratio's validity.
func TestBenchReportsLoadAverage(t *testing.T) {
	isolate(t)
	r := runAOI(t, "bench", "--concurrency", "2", "--duration", "200ms")
	if r.code != exitOK || !strings.Contains(r.stdout, "machine: ") || !strings.Contains(r.stdout, "ratio aoi.query / echo") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	r = runAOI(t, "bench", "--json", "--concurrency", "2", "--duration", "200ms")
	var rep bench.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitOK {
		t.Fatalf("exit %d, %v: %s", r.code, err, r.stdout)
	}
	if rep.Machine.Cores <= 0 || rep.Query.Requests == 0 || rep.RatioValid != rep.Machine.Quiet() {
		t.Fatalf("report = %+v", rep)
	}
}
