package main

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestTaskParamsCheckedBeforeSending: `aoi task` refuses a value the
// peer's task type would refuse (one not in its list, a required one
// missing, a parameter it does not take, a task type it does not offer)
// by what the peer said at
// discovery, naming what is wrong and the values it takes, and sends
// nothing: the peer's audit log has no such call. A task type the peer
// said takes no parameters is sent as before, and the peer refuses it.
func TestTaskParamsCheckedBeforeSending(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	offersTasks(t, eng, map[string]any{
		"run_tests": map[string]any{"command": []any{"go", "test", "./{{suite}}/...", "{{pkg}}"}, "context": "acme/webapp",
			"isolation": "worktree", "timeout_sec": 120, "approval": "required",
			"params": map[string]any{
				"suite": map[string]any{"required": true, "enum": []any{"auth", "billing"}},
				"pkg":   map[string]any{"type": "path"},
			}},
		"lint": map[string]any{"command": []any{"true"}, "context": "acme/webapp",
			"isolation": "worktree", "timeout_sec": 120, "approval": "required"},
	})
	if out := cli(t, bin, eng, "reload"); !strings.Contains(out, "tasks: +") {
		t.Fatalf("aoi reload: %s", out)
	}
	cli(t, bin, pm, "discover")

	for _, c := range []struct {
		argv []string // after aoi task eng-suzuki
		want string
	}{
		{[]string{"run_test", "suite=auth"}, "eng-suzuki offers you no task type run_test (did you mean run_tests?); it offers lint, run_tests"},
		{[]string{"run_tests", "suite=payments"}, "eng-suzuki's run_tests refuses suite=payments: suite is one of auth, billing"},
		{[]string{"run_tests"}, "eng-suzuki's run_tests needs suite=…, one of auth, billing"},
		{[]string{"run_tests", "suite="}, "eng-suzuki's run_tests needs suite=…, one of auth, billing"},
		{[]string{"run_tests", "suite=auth", "suit=billing"}, "eng-suzuki's run_tests has no parameter suit (did you mean suite?); it takes suite (auth|billing), pkg"},
		{[]string{"run_tests", "suite=auth", "pkg=/etc"}, "eng-suzuki's run_tests refuses pkg=/etc: an absolute path; give a path relative to the task's directory"},
	} {
		out := cliFails(t, bin, pm, exitFailure, append([]string{"task", "eng-suzuki"}, c.argv...)...)
		if !strings.Contains(out, c.want) || !strings.Contains(out, "`aoi discover` asks again") {
			t.Errorf("aoi task eng-suzuki %v printed:\n%s\nwant %q", c.argv, out, c.want)
		}
	}
	var rows []agent.AuditEntry
	cliJSON(t, bin, eng, &rows, "audit", "--method", wire.MethodTaskExecute)
	if len(rows) != 0 {
		t.Errorf("%d refused requests reached eng-suzuki", len(rows))
	}

	// Nothing said of lint's parameters (it takes none): sent, and the
	// peer's refusal comes back.
	out := cliFails(t, bin, pm, exitFailure, "task", "eng-suzuki", "lint", "fix=yes")
	if !strings.Contains(out, "not a parameter of lint (it takes none)") {
		t.Errorf("aoi task eng-suzuki lint fix=yes printed:\n%s\nwant the peer's refusal", out)
	}
	cliJSON(t, bin, eng, &rows, "audit", "--method", wire.MethodTaskExecute)
	if len(rows) != 1 {
		t.Errorf("eng-suzuki audited %d task requests; want the lint one", len(rows))
	}

	// A request the peer's word allows goes out.
	var ticket agent.TaskTicket
	cliJSON(t, bin, pm, &ticket, "task", "eng-suzuki", "run_tests", "suite=auth")
	if ticket.TaskID == "" || ticket.Status != agent.TaskPending {
		t.Errorf("ticket = %+v; want a pending task", ticket)
	}
}

// TestQueuedTaskNamesItsRequest: a task asked of a peer that is offline is
// queued before it has a task id; `aoi task` named it "task  on
// eng-suzuki" and said to follow it with `aoi task status eng-suzuki `
// (the walk). It names the request, which `aoi outbox` lists and `aoi
// outbox drop` withdraws.
func TestQueuedTaskNamesItsRequest(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, engProc := pinnedPair(t, bin)
	offersTasks(t, eng, map[string]any{"run_tests": map[string]any{"command": []any{"true"}, "context": "acme/webapp",
		"isolation": "worktree", "timeout_sec": 120, "approval": "required"}})
	cli(t, bin, eng, "reload")
	cli(t, bin, pm, "discover") // it offers run_tests: the request is not refused here
	engProc.signal(t, syscall.SIGTERM)
	if !engProc.exited(15 * time.Second) {
		t.Fatal("eng-suzuki did not stop")
	}
	out := cli(t, bin, pm, "task", "eng-suzuki", "run_tests", "suite=auth")
	id := regexp.MustCompile(`task request (task-req-[0-9a-f]+) to eng-suzuki: queued\n`).FindStringSubmatch(out)
	if id == nil || strings.Contains(out, "task  on") || !strings.Contains(out, "`aoi outbox drop "+id[1]+"` withdraws it") {
		t.Fatalf("aoi task to an offline peer printed:\n%s\nwant the request named, with how to follow and withdraw it", out)
	}
	if rows := cli(t, bin, pm, "outbox"); !strings.Contains(rows, id[1]) {
		t.Errorf("aoi outbox does not list %s:\n%s", id[1], rows)
	}
}
