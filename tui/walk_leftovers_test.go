package tui

import (
	"strings"
	"testing"
)

// What a daily-use walk left over: keys offered on empty lists, no "did
// you mean" for a mistyped peer, an Audit pane that gave its detail's
// room to wide fixed columns, esc missing from help and a `:task`
// example naming the agent itself. Each test fails without its fix.

// flowFrame is the frame the last probe of tm read.
func flowFrame(tm *flow) string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.frame
}

// keysLine is the line of a frame that offers the focused pane's keys
// (above the status bar).
func keysLine(frame string) string {
	lines := strings.Split(frame, "\n")
	return lines[len(lines)-2]
}

// TestFlowEmptyPanesOfferNoItemKeys: a pane with nothing in it offers no
// key that acts on an item ("e answer" under "No queries received
// yet."); a pane with items still does.
func TestFlowEmptyPanesOfferNoItemKeys(t *testing.T) {
	svc := fixtureService()
	svc.peers, svc.queries, svc.approvals, svc.tasks, svc.audit, svc.messages = nil, nil, nil, nil, nil, nil
	tm, _ := startFlowUntil(t, svc, Options{}, 100, 30, "No queries received yet.")
	item := []string{"e answer", "d decline", "r send draft", "R send all", "y approve", "n reject", "t trust", "x refuse", "enter open", "clear filter"}
	for _, pane := range []struct{ name, empty string }{
		{"Queries", "No queries received yet."},
		{"Interrupts", "Nothing buffered."},
		{"Approvals", "No approvals waiting"},
		{"Audit", "No audit entries yet."},
		{"Messages", "No messages yet."},
		{"Peers", "No peers yet."},
	} {
		if pane.name != "Queries" {
			sendKeys(tm, "tab")
		}
		waitScreen(t, tm, pane.empty)
		line := keysLine(flowFrame(tm))
		for _, k := range item {
			if strings.Contains(line, k) {
				t.Errorf("empty %s pane offers %q: %q", pane.name, k, line)
			}
		}
		if !strings.Contains(line, "? help") {
			t.Errorf("%s: the keys line lost the global keys: %q", pane.name, line)
		}
	}

	// With rows again the keys come back; the Approvals pane with only
	// finished tasks offers enter, not y and n.
	svc = fixtureService()
	svc.approvals = nil
	tm, _ = startFlow(t, svc, Options{})
	if line := keysLine(flowFrame(tm)); !strings.Contains(line, "e answer · d decline · r send draft") {
		t.Errorf("Queries with rows: %q", line)
	}
	sendKeys(tm, "tab", "tab")
	waitScreen(t, tm, "┏━ Approvals · 0 pending")
	waitScreen(t, tm, "enter open")
	if line := keysLine(flowFrame(tm)); strings.Contains(line, "y approve") || strings.Contains(line, "n reject") {
		t.Errorf("Approvals with no request waiting offers approve/reject: %q", line)
	}
}

// TestFlowHelpListsTheAuditFilterKey: help has a group for the Audit
// pane with the esc that clears its filter, and at 60×20 it shows with
// every other heading (TestFlowHelpHeadingsFit checks those).
func TestFlowHelpListsTheAuditFilterKey(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {100, 30}} {
		tm, _ := startFlowAt(t, fixtureService(), Options{}, sz[0], sz[1])
		sendKeys(tm, "?")
		waitScreen(t, tm, "everywhere")
		frame := flowFrame(tm)
		checkFrame(t, frame, sz[0], sz[1])
		if !strings.Contains(frame, "┃ "+auditHelpTitle+" ") || !strings.Contains(frame, "esc clear filter") {
			t.Errorf("%dx%d: help has no Audit group with esc clear filter:\n%s", sz[0], sz[1], frame)
		}
	}
}
