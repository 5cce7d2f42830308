package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"testing"
)

// TestQueryWaitTimeoutPrintsPendingJSON: `aoi --json query … --wait` that
// runs out of time still prints the pending result as JSON on stdout (with
// the query id and timed_out), and exits 1.
func TestQueryWaitTimeoutPrintsPendingJSON(t *testing.T) {
	bin := buildAOI(t)
	eng, pm := shortDir(t), shortDir(t)
	initAgent(t, bin, eng, "eng-suzuki")
	initAgent(t, bin, pm, "pm-tanaka")
	engProc, pmProc := startServeProc(t, bin, eng), startServeProc(t, bin, pm)
	engSt, pmSt := engProc.waitServing(t, eng), pmProc.waitServing(t, pm)
	cli(t, bin, pm, "peers", "trust", "eng-suzuki", engSt.Fingerprint, "--endpoint", engSt.ListenAddr)
	cli(t, bin, eng, "peers", "trust", "pm-tanaka", pmSt.Fingerprint, "--endpoint", pmSt.ListenAddr)

	// Nothing in eng's mirror answers this: it waits for the owner.
	cmd := exec.Command(bin, "--data-dir", pm, "--json", "query", "eng-suzuki", "--wait", "1s", "what did the vendor say about the invoices?")
	stdout, err := cmd.Output()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitFailure {
		t.Fatalf("want exit %d, got %v (stdout %s)", exitFailure, err, stdout)
	}
	var out struct {
		QueryID  string `json:"query_id"`
		TimedOut bool   `json:"timed_out"`
	}
	if err := json.Unmarshal(stdout, &out); err != nil || out.QueryID == "" || !out.TimedOut {
		t.Fatalf("stdout is not the pending result as JSON (%v): %s", err, stdout)
	}
}
