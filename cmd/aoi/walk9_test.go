package main

import (
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestSyncTaskTimeoutSaysItOnce: `aoi task --sync` that gives up waiting
// says so in one sentence, naming the task, how long it waited, where
// the result goes and the command that shows the task later, and exits 1
// (the eighth walk read the pending ticket, "the result will arrive in
// your inbox …", then an error saying the same again).
func TestSyncTaskTimeoutSaysItOnce(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	offersTasks(t, eng, map[string]any{
		"lint": map[string]any{"command": []any{"echo", "lint is clean"}, "context": "acme/webapp",
			"isolation": "worktree", "timeout_sec": 60, "approval": "required"},
	})
	cli(t, bin, eng, "reload")
	cli(t, bin, pm, "discover")

	out := cliFails(t, bin, pm, exitFailure, "task", "eng-suzuki", "lint", "--sync", "--timeout", "2s")
	t.Logf("%s", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "waiting for its owner to approve it") {
		t.Fatalf("aoi task --sync that timed out printed %d lines; want the line saying it waits, then one saying it stopped:\n%s", len(lines), out)
	}
	last := lines[1]
	id := strings.TrimRight(strings.Fields(strings.SplitAfter(lines[0], "(task ")[1])[0], ");")
	for _, want := range []string{"stopped waiting after 2s", "lint (task " + id + ")", "`aoi inbox`", "`aoi task status eng-suzuki " + id + "`"} {
		if !strings.Contains(last, want) {
			t.Errorf("the last line does not say %q:\n%s", want, last)
		}
	}
	if n := strings.Count(out, "inbox"); n != 2 { // "your inbox (`aoi inbox`)", once
		t.Errorf("the output names the inbox %d times; want it said once:\n%s", n, out)
	}

	// A script still reads the ticket, with the task id, from stdout.
	stdout, err := exec.Command(bin, "--data-dir", pm, "--json", "task", "eng-suzuki", "lint", "--sync", "--timeout", "1s").Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitFailure {
		t.Fatalf("aoi --json task --sync that timed out: %v, want exit %d", err, exitFailure)
	}
	var ticket agent.TaskTicket
	if err := json.Unmarshal(stdout, &ticket); err != nil || ticket.TaskID == "" || ticket.Status != agent.TaskPending {
		t.Errorf("aoi --json task --sync printed %q (%v); want the pending ticket", stdout, err)
	}
}
