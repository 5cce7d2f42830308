package tui

import (
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/keymap"
	"github.com/charmbracelet/x/ansi"
)

// What a second walk through the interface found: titles that read wrong,
// lists out of order, notices that outstay what they describe, and a key
// hint line cut in the middle of a word. Each test fails without its fix.

// TestPeersTitleAgreesWithTheCount: one caller "wants trust", two "want
// trust".
func TestPeersTitleAgreesWithTheCount(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	if got := m.peers.Title(); !strings.Contains(got, "· 1 wants trust") {
		t.Errorf("one trust request: title %q", got)
	}
	svc.mu.Lock()
	svc.peers = append(svc.peers, agent.Peer{AgentID: "visitor", Trust: agent.TrustPending, Fingerprint: "SHA256:77"})
	svc.mu.Unlock()
	pump(t, m, m.fetchCmds(dPeers)[0])
	if got := m.peers.Title(); !strings.Contains(got, "· 2 want trust") {
		t.Errorf("two trust requests: title %q", got)
	}
}

// TestApprovalsReadInOrder: the Approvals pane heads its columns as the
// other lists do; finished rows come newest first after the pending ones
// and show their parameters where pending rows show theirs, so two runs
// of one type can be told apart; the notice of y names the request.
func TestApprovalsReadInOrder(t *testing.T) {
	svc := fixtureService()
	ago := func(d time.Duration) time.Time { return fixedNow.Add(-d) }
	svc.tasks = []agent.Task{
		{ID: "t-5", Requester: "pm-tanaka", Type: "run_tests", State: agent.TaskCompleted,
			Params: map[string]string{"suite": "./billing/..."}, UpdatedAt: ago(7 * time.Minute)},
		{ID: "t-6", Requester: "pm-tanaka", Type: "run_tests", State: agent.TaskCompleted,
			Params: map[string]string{"suite": "./auth/..."}, UpdatedAt: ago(time.Minute)},
		{ID: "t-7", Requester: "qa-ito", Type: "lint", State: agent.TaskRejected, UpdatedAt: ago(3 * time.Minute)},
	}
	m := newLoaded(t, svc, 100, 30, true)
	press(t, m, "tab", "tab") // Approvals
	lines := strings.Split(ansi.Strip(m.approvals.View()), "\n")
	for _, col := range []string{"FROM", "TASK", "STATE", "WHEN", "PARAMS"} {
		if !strings.Contains(lines[0], col) {
			t.Errorf("the header %q has no %s column", lines[0], col)
		}
	}
	var order []string
	for _, l := range lines[1:] {
		for _, w := range []string{"1m ago", "3m ago", "7m ago"} {
			if strings.Contains(l, w) {
				order = append(order, w)
			}
		}
	}
	if want := []string{"1m ago", "3m ago", "7m ago"}; !reflect.DeepEqual(order, want) {
		t.Errorf("finished rows in the order %v; want newest first %v:\n%s", order, want, strings.Join(lines, "\n"))
	}
	params := map[int]bool{}
	for _, l := range lines[1:] {
		if i := strings.Index(l, "suite="); i >= 0 {
			params[ansi.StringWidth(l[:i])] = true
		}
	}
	if len(params) != 1 || !strings.Contains(strings.Join(lines, "\n"), "suite=./billing/...") {
		t.Errorf("parameters missing or not lined up (at columns %v):\n%s", params, strings.Join(lines, "\n"))
	}
	if i := strings.Index(lines[0], "PARAMS"); !params[i] {
		t.Errorf("PARAMS heads column %d, the parameters start at %v:\n%s", i, params, strings.Join(lines, "\n"))
	}
	press(t, m, "down", "y") // a-2, run_tests suite=./auth/...
	if frame := screen(m); !strings.Contains(frame, "approved run_tests from pm-tanaka (suite=./auth/...)") {
		t.Errorf("the notice does not say which request was approved:\n%s", frame)
	}
}

// TestAnnouncementsGiveTheLineBack: "⚑ question from pm-tanaka" and "approved
// … · its state shows in Approvals" go after a few seconds and the focused
// pane's keys show again; an answer a peer sent stays to be read.
func TestAnnouncementsGiveTheLineBack(t *testing.T) {
	now := fixedNow
	m := New(fixtureService(), Options{Now: func() time.Time { return now }, Location: time.UTC})
	m.subscribed = true
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	for _, c := range m.fetchCmds(dAll) {
		pump(t, m, c)
	}
	hints := "e answer · d decline"
	later := func(d time.Duration) string {
		now = now.Add(d)
		m.Update(tickMsg(now))
		return screen(m)
	}
	m.Update(eventMsg{ev: agent.Event{Seq: 1, Kind: agent.EventAttention, ID: "q-8", Summary: "question from pm-tanaka"}})
	if frame := screen(m); !strings.Contains(frame, "⚑ question from pm-tanaka") || strings.Contains(frame, hints) {
		t.Fatalf("the attention notice does not show in place of the keys:\n%s", frame)
	}
	if frame := later(10 * time.Second); strings.Contains(frame, "question from pm-tanaka") || !strings.Contains(frame, hints) {
		t.Errorf("ten seconds on, the attention notice still hides the keys:\n%s", frame)
	}
	press(t, m, "y", "y") // no notice named it: the first y does
	if frame := screen(m); !strings.Contains(frame, "its state shows in Approvals") {
		t.Fatalf("no notice after y:\n%s", frame)
	}
	if frame := later(10 * time.Second); strings.Contains(frame, "its state shows in Approvals") || !strings.Contains(frame, hints) {
		t.Errorf("ten seconds on, the approval notice still hides the keys:\n%s", frame)
	}
	m.peerNotice("↩ pm-tanaka re “release?”: Thursday")
	if frame := later(time.Minute); !strings.Contains(frame, "Thursday") {
		t.Errorf("an answer from a peer went within a minute:\n%s", frame)
	}
}

// TestKeyHintsDropWholeHints: where the key hints do not all fit, the line
// ends with the last whole hint that does (the focused pane's keys first),
// never with a word cut in half.
func TestKeyHintsDropWholeHints(t *testing.T) {
	k := keymap.Default()
	whole := map[string]bool{}
	for _, scope := range k.FullHelp() {
		for _, b := range scope {
			whole[helpKeys(b)] = true
		}
	}
	for _, size := range [][2]int{{100, 30}, {80, 24}, {60, 20}} {
		m := newLoaded(t, fixtureService(), size[0], size[1], true)
		for range numPanes {
			lines := strings.Split(screen(m), "\n")
			hint := strings.TrimRight(lines[len(lines)-2], " ")
			parts := strings.Split(hint, " · ")
			for _, h := range parts {
				if !whole[h] {
					t.Errorf("%dx%d, focus %d: %q is not a whole hint in %q", size[0], size[1], m.focus, h, hint)
				}
			}
			if want := helpKeys(m.paneKeys()[0]); parts[0] != want {
				t.Errorf("%dx%d, focus %d: the line %q does not start with the pane's %q", size[0], size[1], m.focus, hint, want)
			}
			press(t, m, "tab")
		}
	}
}

// TestOutcomeOfTheNextActionShowsOverAnError: an error stays over
// background news, but once a key was pressed after it, what that key did
// says how it went (approving with y after a mistyped command said
// nothing, the error stayed 30 s).
func TestOutcomeOfTheNextActionShowsOverAnError(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	m.fail("unknown command :bogus", nil)
	m.info("refreshed")
	if !strings.Contains(screen(m), "unknown command :bogus") {
		t.Fatalf("background news replaced a fresh error:\n%s", screen(m))
	}
	press(t, m, "tab", "tab", "y")
	if frame := screen(m); !strings.Contains(frame, "approv") || strings.Contains(frame, "unknown command :bogus") {
		t.Errorf("the approval after the error says nothing:\n%s", frame)
	}
}

// TestTaskResultLineSaysItOnce: a task result's summary says its status
// and why; the line does not repeat them.
func TestTaskResultLineSaysItOnce(t *testing.T) {
	got := messageText([]byte(`{"task_id":"t-1","status":"rejected","error":"the owner rejected the request: not today","summary":"say_hi rejected: not today"}`))
	if got != "say_hi rejected: not today" {
		t.Errorf("line %q, want the summary alone", got)
	}
	got = messageText([]byte(`{"status":"failed","error":"disk full"}`))
	if got != "failed · disk full" {
		t.Errorf("line without a summary %q, want status and error", got)
	}
	// An answer's blockers, named by its summary already, are not
	// repeated (the walk read "Blocked by: X. · blockers: X"); others are.
	got = messageText([]byte(`{"summary":"In progress. Blocked by: FIXME(auth/refresh.go:4): redis config.","blockers":["FIXME(auth/refresh.go:4): redis config","CI is red"]}`))
	if got != "In progress. Blocked by: FIXME(auth/refresh.go:4): redis config. · blockers: CI is red" {
		t.Errorf("answer line %q, want each blocker once", got)
	}
}

// TestEscDismissesANotice: what a peer sent stays on the bottom line for
// minutes; esc gives the line back to the pane's keys.
func TestEscDismissesANotice(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	m.peerNotice("✉ eng-suzuki task.completed: run_tests completed: 2 run, 2 passed, 0 failed")
	if !strings.Contains(screen(m), "run_tests completed") {
		t.Fatalf("the notice does not show:\n%s", screen(m))
	}
	press(t, m, "esc")
	if frame := screen(m); strings.Contains(frame, "run_tests completed") || !strings.Contains(frame, "? help") {
		t.Errorf("esc left the notice up:\n%s", frame)
	}
}
