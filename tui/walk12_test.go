package tui

import (
	"slices"
	"strings"
	"testing"
)

// TestMessageDetailNamesItsID: a message's detail names the number
// `:reply`, `aoi messages`, `aoi inbox` and --reply-to take as its "id"
// (it said "seq" while the shell's tables said ID and SEQ, the twelfth
// walk), and the :reply hint under it uses that number.
func TestMessageDetailNamesItsID(t *testing.T) {
	svc := fixtureService()
	svc.messages[2].MessageID = "m-01a23ac7989b"
	m := newLoaded(t, svc, 80, 30, true)
	m.setFocus(focusMessages)
	press(t, m, "enter")
	d, ok := m.topDialog().(*detailDialog)
	if !ok {
		t.Fatalf("enter opened %T", m.topDialog())
	}
	if strings.Contains(d.body, "seq") || !strings.Contains(d.body, "id: 3\n") || !strings.Contains(d.body, ":reply 3 TEXT") {
		t.Errorf("the message's detail does not name its ID 3 as :reply takes it:\n%s", d.body)
	}
}

// TestFlowUnconfinedApprovalWarns: a request for a task type configured
// unconfined (tasks.NAME.unconfined: no Landlock) looked like any other
// in the Approvals pane and its detail (the twelfth walk). In the real
// program the owner now sees the warning wherever the approve key waits:
// the row's glyph and the preview under the list, the detail (first, and
// again by the keys), and the notice the first y shows; a confined
// request shows none of it.
func TestFlowUnconfinedApprovalWarns(t *testing.T) {
	svc := fixtureService()
	svc.approvals[0].Plan.Unconfined = true // a-2, run_tests
	tm, _ := startFlow(t, svc, Options{})
	sendKeys(tm, "tab", "tab") // Approvals: the lint request, expiring first, is selected
	waitScreen(t, tm, "eng-佐藤 · lint · waits for you")
	if frame := tm.lastFrame(); strings.Contains(frame, "UNCONFINED") {
		t.Errorf("the confined lint request's preview warns of no confinement:\n%s", frame)
	}
	sendKeys(tm, "enter")
	waitScreen(t, tm, "approval id")
	if frame := tm.lastFrame(); strings.Contains(frame, "UNCONFINED") {
		t.Errorf("the confined lint request's detail warns of no confinement:\n%s", frame)
	}
	sendKeys(tm, "esc", "down")
	waitScreen(t, tm, "⚠ UNCONFINED: no Landlock · params: suite=./auth/...")
	if row := rowOf(tm.lastFrame(), "59m12s left"); !strings.Contains(row, "⚠ pm-tanaka") {
		t.Errorf("the unconfined request's row = %q, want it marked ⚠", row)
	}
	sendKeys(tm, "enter")
	waitScreen(t, tm, "⚠ UNCONFINED: this task type runs without Landlock confinement")
	frame := tm.lastFrame()
	if !strings.Contains(frame, "(tasks.run_tests.unconfined in your config)") {
		t.Errorf("the detail's warning does not name the setting:\n%s", frame)
	}
	if !strings.Contains(frame, "⚠ UNCONFINED: no Landlock · y approve") {
		t.Errorf("the detail's key line does not repeat the warning:\n%s", frame)
	}
	if strings.Index(frame, "⚠ UNCONFINED: this task type") > strings.Index(frame, "requester: pm-tanaka") {
		t.Errorf("the warning comes after the request's fields:\n%s", frame)
	}

	// From another pane, the first y names the request before the second
	// approves it: the name carries the warning.
	svc = fixtureService()
	svc.approvals = svc.approvals[:1] // a-2 alone, unconfined
	svc.approvals[0].Plan.Unconfined = true
	tm, _ = startFlow(t, svc, Options{})
	sendKeys(tm, "y")
	waitScreen(t, tm, "next request: ⚠ UNCONFINED run_tests from pm-tanaka")
	if calls := svc.Calls(); slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "approve") }) {
		t.Errorf("the first y approved: %q", calls)
	}
}

// lastFrame is the frame the last probe read.
func (f *flow) lastFrame() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.frame
}

// rowOf is the first line of frame containing want ("" when none).
func rowOf(frame, want string) string {
	for _, line := range strings.Split(frame, "\n") {
		if strings.Contains(line, want) {
			return line
		}
	}
	return ""
}
