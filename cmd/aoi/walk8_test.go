package main

import (
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// TestOutboxRetrySendsOneNow: a message eng-suzuki refused waits ten
// minutes for its next try; once eng-suzuki's owner allows messages,
// `aoi outbox retry ID` delivers it at once (the seventh walk had no way
// to, short of waiting). While it is still refused, the retry says why
// and exits 1; an id nothing waits under is named in the error.
func TestOutboxRetrySendsOneNow(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	cliFails(t, bin, pm, 1, "send", "eng-suzuki", "note", "the release moved to Friday")
	var waiting []agent.OutboxEntry
	cliJSON(t, bin, pm, &waiting, "outbox")
	if len(waiting) != 1 {
		t.Fatalf("aoi outbox = %+v; want the refused message", waiting)
	}
	id := waiting[0].ID

	out := cliFails(t, bin, pm, 1, "outbox", "retry", id)
	if !strings.Contains(out, "the message "+id+" to eng-suzuki still waits: agent pm-tanaka has no write access") ||
		!strings.Contains(out, "next try") {
		t.Errorf("a retry the peer still refuses:\n%s", out)
	}

	allowMessages(t, bin, eng, "pm-tanaka")
	if out := cli(t, bin, pm, "outbox", "retry", id); !strings.Contains(out, "delivered the message "+id+" to eng-suzuki") {
		t.Errorf("aoi outbox retry once allowed printed %q", out)
	}
	if msgs := waitMessages(t, bin, eng, 1); !strings.Contains(string(msgs[0].Data), "the release moved to Friday") {
		t.Errorf("eng-suzuki received %+v", msgs)
	}
	if out := cli(t, bin, pm, "outbox"); !strings.Contains(out, "nothing waits to be delivered") {
		t.Errorf("aoi outbox after the retry:\n%s", out)
	}

	out = cliFails(t, bin, pm, 1, "outbox", "retry", id)
	if !strings.Contains(out, "the message "+id+" to eng-suzuki was delivered at ") || !strings.Contains(out, "nothing to retry") {
		t.Errorf("retrying what was delivered:\n%s", out)
	}
	out = cliFails(t, bin, pm, 1, "outbox", "retry", "m-0000nothing")
	if !strings.Contains(out, `nothing waits to be sent under "m-0000nothing"`) {
		t.Errorf("retrying an id never queued:\n%s", out)
	}
}

// TestSyncTaskSaysItWaitsOnceQueued: `aoi task --sync` says it waits for
// approval only once the peer has queued the task (the seventh walk read
// "waiting … to approve it first" above the peer's refusal), naming the
// task; once approved it prints the outcome and exits 0. A request the
// peer refuses prints the refusal alone.
func TestSyncTaskSaysItWaitsOnceQueued(t *testing.T) {
	bin := buildAOI(t)
	eng, pm := pairOfferingLint(t, bin)

	out := cliFails(t, bin, pm, exitFailure, "task", "eng-suzuki", "lint", "fix=yes", "--sync")
	if strings.Contains(out, "waiting") || strings.Contains(out, "queued") || !strings.Contains(out, "not a parameter of lint") {
		t.Errorf("a refused --sync request printed:\n%s", out)
	}

	p := startProc(t, bin, []string{"--data-dir", pm, "task", "eng-suzuki", "lint", "--sync", "--timeout", "60s"}, nil)
	p.waitFor(t, 20*time.Second, "the line saying it waits", func() bool {
		return p.screenHas("eng-suzuki queued lint (task t") && p.screenHas("waiting for its owner to approve it…")
	})
	var pending []agent.Approval
	cliJSON(t, bin, eng, &pending, "approvals")
	if len(pending) != 1 {
		t.Fatalf("eng-suzuki's approvals = %+v; want the lint request", pending)
	}
	cli(t, bin, eng, "approve", pending[0].ID)
	if !p.exited(30 * time.Second) {
		t.Fatalf("aoi task --sync still waits after the approval:\n%s", p.out.String())
	}
	if got := p.out.String(); p.exitCode() != 0 || !strings.Contains(got, "exit code: 0") || !strings.Contains(got, "lint is clean") {
		t.Errorf("aoi task --sync exited %d:\n%s", p.exitCode(), got)
	}
}

// TestMessagesNameNotificationsInWords: `aoi messages` names an answer
// "answer", as `aoi inbox` and the Messages pane do, not by its protocol
// event (the eighth walk read "query.completed" beside inbox's "answer").
func TestMessagesNameNotificationsInWords(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	cli(t, bin, pm, "query", "eng-suzuki", "is the release branch green?")
	var waiting struct {
		Queries []agent.Query `json:"queries"`
	}
	cliJSON(t, bin, eng, &waiting, "inbox", "--waiting")
	if len(waiting.Queries) != 1 {
		t.Fatalf("eng-suzuki waits for %+v; want the question", waiting.Queries)
	}
	cli(t, bin, eng, "answer", waiting.Queries[0].ID, "yes, since this morning")
	waitMessages(t, bin, pm, 1)
	out := cli(t, bin, pm, "messages")
	if row := rowOf(out, "yes, since this morning"); !strings.Contains(row, " answer ") || strings.Contains(row, "query.completed") {
		t.Errorf("aoi messages names the answer:\n%s", out)
	}
}

// pairOfferingLint starts a pinned pair whose eng-suzuki offers "lint"
// (an echo, in a worktree, approval required) and whose pm-tanaka has
// discovered it, for the `aoi task --sync` tests; it returns their data
// dirs.
func pairOfferingLint(t *testing.T, bin string) (eng, pm string) {
	t.Helper()
	eng, pm, _ = pinnedPair(t, bin)
	offersTasks(t, eng, map[string]any{
		"lint": map[string]any{"command": []any{"echo", "lint is clean"}, "context": "acme/webapp",
			"isolation": "worktree", "timeout_sec": 60, "approval": "required"},
	})
	cli(t, bin, eng, "reload")
	cli(t, bin, pm, "discover")
	return eng, pm
}
