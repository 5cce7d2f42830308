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
	_, pm := pairOfferingLint(t, bin)

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

// TestRefusedSendSaysItIsQueued: a task_assign the receiver refuses says
// on its first line that it is queued, not delivered, and that its task
// is assigned on this side only (the ninth walk read "task T-7 is
// assigned" above the refusal); once delivered it reads as before.
func TestRefusedSendSaysItIsQueued(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	out := cliFails(t, bin, pm, exitFailure, "send", "eng-suzuki", "task_assign", "write the rotation tests", "--task", "T-7")
	first, rest, _ := strings.Cut(out, "\n")
	if !strings.Contains(first, "to eng-suzuki") || !strings.Contains(first, "is queued, not delivered yet") ||
		!strings.HasSuffix(first, "task T-7 is assigned here, not yet at eng-suzuki") {
		t.Errorf("a refused task_assign's first line reads %q", first)
	}
	if !strings.Contains(rest, "eng-suzuki refused the message") {
		t.Errorf("a refused task_assign does not say why:\n%s", out)
	}

	allowMessages(t, bin, eng, "pm-tanaka")
	out = cli(t, bin, pm, "send", "eng-suzuki", "task_assign", "review the rotation tests", "--task", "T-8")
	if first, _, _ := strings.Cut(out, "\n"); strings.Contains(first, "queued") || !strings.HasSuffix(first, "task T-8 is assigned") {
		t.Errorf("a delivered task_assign's first line reads %q", first)
	}
}

// TestInboxCutsTextAtWords: `aoi inbox` cuts a question too long for its
// column with whole words and an ellipsis, as the interface's rows do,
// and a quoted Japanese question where a phrase ends (the ninth walk read
// "when does it ship t…" under QUERY).
func TestInboxCutsTextAtWords(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	en := "how is the billing migration going, and when does it ship to production for the whole team?"
	ja := "認証機能の進捗とブロック要因について詳しく教えてください。"
	cli(t, bin, pm, "query", "eng-suzuki", en)
	cli(t, bin, pm, "query", "eng-suzuki", ja)
	if row := rowOf(cli(t, bin, eng, "inbox"), "how is the billing"); !strings.HasSuffix(row, "how is the billing migration going, and when does it ship…") {
		t.Errorf("aoi inbox cut the question %q", row)
	}
	var waiting struct {
		Queries []agent.Query `json:"queries"`
	}
	cliJSON(t, bin, eng, &waiting, "inbox", "--waiting")
	for _, q := range waiting.Queries {
		if q.Text == ja {
			cli(t, bin, eng, "decline", q.ID, "--reason", "QAに聞いてください")
		}
	}
	waitMessages(t, bin, pm, 1)
	if row := rowOf(cli(t, bin, pm, "inbox"), "QAに聞いてください"); !strings.Contains(row, "“認証機能の進捗と…”") {
		t.Errorf("aoi inbox quotes the declined question as %q; want it cut where a phrase ends", row)
	}
}
