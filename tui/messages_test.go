package tui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// TestMessagesPaneMarksReadWhenLookedAt: unread messages are counted until
// the owner opens the Messages pane; then the read mark is stored (the
// service call) and the counts drop.
func TestMessagesPaneMarksReadWhenLookedAt(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	if s := screen(m); !strings.Contains(s, "Messages · 2 unread") || !strings.Contains(s, "msgs 2") {
		t.Fatalf("unread counts missing before the pane is opened:\n%s", s)
	}
	if len(svc.Calls()) != 0 {
		t.Fatalf("loading must not mark anything read: %v", svc.Calls())
	}
	press(t, m, "tab", "tab", "tab", "tab") // interrupts, approvals, audit, messages
	if m.focus != focusMessages {
		t.Fatalf("focus = %d; want messages", m.focus)
	}
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"read 3"}) {
		t.Fatalf("calls = %v; want the read mark up to the newest message", got)
	}
	s := screen(m)
	if !strings.Contains(s, "Messages · 3") || strings.Contains(s, "unread") || !strings.Contains(s, "msgs 0") {
		t.Errorf("counts after reading:\n%s", s)
	}
	press(t, m, "down", "up") // more keys do not repeat the call
	if n := len(svc.Calls()); n != 1 {
		t.Errorf("read mark asked %d times", n)
	}
}

// TestMessageDetailShowsTaskAndAnswer: a typed message opens with the state
// of the coordination task it concerns; the answer to the owner's own
// question says which question it answers, in full.
func TestMessageDetailShowsTaskAndAnswer(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 100, 30, true)
	m.asks["q-mine"] = "when is the release?"
	press(t, m, "tab", "tab", "tab", "tab", "enter")
	d, ok := m.topDialog().(*detailDialog)
	if !ok {
		t.Fatalf("enter opened %T", m.topDialog())
	}
	if !strings.Contains(d.body, "task state: assigned (with pm-tanaka") || !strings.Contains(d.body, "implement token refresh") {
		t.Errorf("task message detail:\n%s", d.body)
	}
	_ = screen(m) // the dialog is drawn before the owner closes it
	press(t, m, "esc", "down")
	s := screen(m)
	if !strings.Contains(s, "re “when is the release?”") || !strings.Contains(s, "QA signs off") {
		t.Errorf("the selected answer is not readable in the pane:\n%s", s)
	}
}

// TestApproveTargetsNewestFromAnyPane: in the Approvals pane y acts on the
// row under the cursor (a finished task is not a request: it says so);
// from another pane it names the newest pending request, then approves
// it; with nothing pending it says so.
func TestApproveTargetsNewestFromAnyPane(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "tab", "tab", "end") // approvals, cursor on the oldest finished task
	press(t, m, "y")
	if got := svc.Calls(); len(got) != 0 || !strings.Contains(m.notice.text, "the selected row is not a request waiting for you") {
		t.Fatalf("y on a finished task: calls %v, notice %q", got, m.notice.text)
	}
	// From another pane, a request no notice has named is named first
	// (the notice on screen may have named one since cancelled).
	press(t, m, "tab", "y") // messages pane
	if got := svc.Calls(); len(got) != 0 || !strings.Contains(m.notice.text, "next request: ") {
		t.Fatalf("the first y from another pane: calls %v, notice %q; want the request named", got, m.notice.text)
	}
	press(t, m, "y")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"approve a-3"}) { // a-3 arrived last
		t.Fatalf("calls = %v; want the newest request approved", got)
	}
	// a-2 became the target when a-3 went: the first y names it.
	press(t, m, "shift+tab", "shift+tab", "shift+tab", "shift+tab", "y", "y") // peers pane
	if got := svc.Calls(); len(got) != 2 || got[1] != "approve a-2" {
		t.Fatalf("calls = %v; want a-2 approved from the Peers pane", got)
	}
	press(t, m, "y")
	if !strings.Contains(screen(m), "no request is waiting for approval") {
		t.Errorf("y with nothing pending gives no feedback:\n%s", screen(m))
	}
}

// TestRejectNeedsReason: an empty reason is refused with a message, the
// dialog stays open and nothing is sent.
func TestRejectNeedsReason(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "n", "enter")
	if len(m.dialogs) != 1 || len(svc.Calls()) != 0 {
		t.Fatalf("empty reason: dialogs=%d calls=%v", len(m.dialogs), svc.Calls())
	}
	if !strings.Contains(screen(m), "a reason is required") {
		t.Errorf("no explanation for the refused empty reason:\n%s", screen(m))
	}
}

// TestApprovalDetailSaysWhatRunsAndDecides: the detail of a request shows
// the exact argv, the repository, the worktree branch, the timeout and the
// rule; y in the dialog approves it.
func TestApprovalDetailSaysWhatRunsAndDecides(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 100, 30, true)
	press(t, m, "tab", "tab", "down", "enter") // a-2
	s := screen(m)
	for _, want := range []string{`will run: go test -run "Test Auth" ./auth/...`, "repository: acme/webapp (/home/suzuki/src/webapp)",
		"isolation: a fresh git worktree on branch aoi/task-t-2", "timeout: 10m0s", "allowed by rule: pm-run-tests"} {
		if !strings.Contains(s, want) {
			t.Errorf("approval detail lacks %q:\n%s", want, s)
		}
	}
	press(t, m, "y")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"approve a-2"}) {
		t.Fatalf("calls = %v", got)
	}
	if m.topDialog() != nil {
		t.Error("the dialog stays open after approving")
	}
}

// TestMessagesPaneSaysWhatWaitsForAnAnswer: what the owner asked that has
// no answer yet heads the Messages pane (the walk's PM could not see it),
// and the frame keeps its size with the line, at 80×24 and 60×20.
func TestMessagesPaneSaysWhatWaitsForAnAnswer(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {60, 20}} {
		svc := fixtureService()
		svc.status.Waiting = []agent.WaitingAsk{
			{RequestID: "ask-2", To: "qa-ito", Text: "task run_tests", SentAt: fixedNow.Add(-time.Minute)},
			{RequestID: "ask-1", To: "eng-suzuki", Text: "how is auth going?", SentAt: fixedNow.Add(-3 * time.Minute)},
		}
		m := newLoaded(t, svc, size[0], size[1], true)
		press(t, m, "tab", "tab", "tab", "tab") // messages
		frame := screen(m)
		if !strings.Contains(frame, "waiting for 2 answers: qa-ito task run_tests (1m)") {
			t.Errorf("%v: no waiting line:\n%s", size, frame)
		}
		checkFrame(t, frame, size[0], size[1])
		if size[0] == 80 && !strings.Contains(frame, "going?” (3m)") {
			t.Errorf("the question is not named:\n%s", frame)
		}
	}
}

// TestMessageSummaryNamesATaskUnquoted: a task result says which task it
// answers as a task, not as a quoted question (as `aoi inbox` does).
func TestMessageSummaryNamesATaskUnquoted(t *testing.T) {
	p := newMessagesPane(&env{now: fixedNow})
	got := p.summary(agent.Message{Event: "task.completed", RelatedID: "ask-1", Question: "task lint", Data: []byte(`{"summary":"lint passed"}`)}, rowQuoteW)
	if !strings.Contains(got, "re task lint") || strings.Contains(got, "“task") {
		t.Errorf("summary %q", got)
	}
	if got := p.summary(agent.Message{Event: "query.completed", RelatedID: "ask-2", Question: "is it green?", Data: []byte(`{"summary":"yes"}`)}, rowQuoteW); !strings.Contains(got, "re “is it green?”") {
		t.Errorf("a question's answer: %q", got)
	}
}

// TestMessagesReadElsewhereMarksOnlyThoseShown: `aoi inbox --limit 1`
// marks the newest message read and leaves the earlier ones unread; the
// interface follows, marking that one alone.
func TestMessagesReadElsewhereMarksOnlyThoseShown(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	m.handleEvent(agent.Event{Seq: 100, Kind: agent.EventMessagesReadSome, ID: "3"})
	if s := screen(m); !strings.Contains(s, "Messages · 1 unread") {
		t.Errorf("after aoi inbox read message 3 alone, want the earlier one still unread:\n%s", s)
	}
}
