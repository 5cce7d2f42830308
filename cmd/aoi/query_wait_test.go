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
	_, pm, _ := pinnedPair(t, bin)

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
