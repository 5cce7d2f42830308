package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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

// TestFlowAuditDetailGetsTheWidth: at 100 columns the SEQ column is as
// wide as the numbers shown and AGENT as the longest agent id, so the
// detail of a row is read further (an 8-cell SEQ for two digits and a
// 14-cell AGENT cut it at `scope=`).
func TestFlowAuditDetailGetsTheWidth(t *testing.T) {
	svc := fixtureService()
	for i := range svc.audit {
		svc.audit[i].Detail = []byte(`{"n":` + itoa(i+1) + `,"question":"when does the billing service ship to production?"}`)
	}
	tm, _ := startFlow(t, svc, Options{})
	sendKeys(tm, "tab", "tab", "tab")
	waitScreen(t, tm, "┏━ Audit")
	frame := flowFrame(tm)
	var header, row string
	for _, l := range strings.Split(frame, "\n") {
		switch {
		case strings.Contains(l, "SEQ") && header == "":
			header = l
		case strings.Contains(l, "qa-ito") && strings.Contains(l, "n=") && row == "":
			row = l
		}
	}
	if header == "" || row == "" {
		t.Fatalf("no audit header or qa-ito row:\n%s", frame)
	}
	if !strings.Contains(header, "SEQ TIME") {
		t.Errorf("SEQ is wider than its two-digit numbers: %q", header)
	}
	// The longest agent id shown is pm-tanaka (9 cells): AGENT is 9 wide.
	if !strings.Contains(header, "AGENT     METHOD") {
		t.Errorf("AGENT is wider than the longest agent id shown: %q", header)
	}
	if i := strings.Index(header, "DETAIL"); i < 0 || ansi.StringWidth(header[:i]) > 50 {
		t.Errorf("DETAIL starts past column 50 of 100: %q", header)
	}
	if !strings.Contains(row, "when does the billing service ship") {
		t.Errorf("the detail is cut where the columns could leave it room: %q", row)
	}
	checkFrame(t, frame, 100, 30)
}

// TestFlowMistypedPeerIsSuggested: `@engg how is auth going?` names
// eng-suzuki, whose id it begins like, and `@suzuki …` too, whose id
// holds it; the line stays in the bar to mend.
func TestFlowMistypedPeerIsSuggested(t *testing.T) {
	svc := fixtureService()
	svc.status.AgentID = "qa-mori"
	svc.peers[1].AgentID = "eng-suzuki" // the only eng- peer
	tm, _ := startFlow(t, svc, Options{})
	for _, typed := range []string{"engg", "suzuki"} {
		sendKeys(tm, "@")
		tm.Type(typed + " how is auth going?")
		sendKeys(tm, "enter")
		waitScreen(t, tm, "no peer "+typed+" here — did you mean eng-suzuki?")
		sendKeys(tm, "esc")
		waitScreen(t, tm, "? help")
	}
	if calls := svc.Calls(); len(calls) != 0 {
		t.Errorf("a mistyped peer was asked: %q", calls)
	}
}

// TestFlowTaskUsageNamesARealPeer: `:task` alone gives an example with a
// peer this agent knows and a task type it offers, with its required
// parameters, not "eng-suzuki run_tests" inside eng-suzuki's own
// interface; with no peer offering one, that none does (the generic
// example named eng-suzuki in eng-suzuki's own interface again).
func TestFlowTaskUsageNamesARealPeer(t *testing.T) {
	svc := fixtureService()
	svc.peers[0].TaskTypes = []string{"run_tests", "lint"} // pm-tanaka: suite required, auth|billing
	tm, _ := startFlow(t, svc, Options{})
	sendKeys(tm, ":")
	tm.Type("task")
	sendKeys(tm, "enter")
	waitScreen(t, tm, "e.g. :task pm-tanaka run_tests suite=auth")
	if frame := flowFrame(tm); strings.Contains(frame, "eng-suzuki run_tests") {
		t.Errorf("the example names the agent itself:\n%s", frame)
	}

	svc = fixtureService()
	for i := range svc.peers {
		svc.peers[i].TaskTypes = nil
	}
	tm, _ = startFlow(t, svc, Options{})
	sendKeys(tm, ":")
	tm.Type("task")
	sendKeys(tm, "enter")
	waitScreen(t, tm, "no peer has offered you a task type yet")
	if frame := flowFrame(tm); strings.Contains(frame, "eng-suzuki run_tests") {
		t.Errorf("with no peer offering a task, the example names the agent itself:\n%s", frame)
	}
}
