package tui

import (
	"slices"
	"strings"
	"testing"
)

// TestFlowTaskParamsCheckedInTheBar: a `:task` line whose task type or
// parameters the peer said it would refuse stays in the bar with what is wrong and the
// values it takes, and nothing is sent; mended, it is sent. A task type
// the peer said nothing of the parameters of (lint) is sent as typed.
func TestFlowTaskParamsCheckedInTheBar(t *testing.T) {
	svc := fixtureService()
	tm, _ := startFlow(t, svc, Options{})
	for _, c := range []struct{ line, want string }{
		{"task pm-tanaka run_test suite=auth", "pm-tanaka offers you no task type run_test (did you mean run_tests?)"},
		{"task pm-tanaka run_tests suite=payments", "pm-tanaka's run_tests refuses suite=payments: suite is one of auth, billing"},
		{"task pm-tanaka run_tests verbose=1", "pm-tanaka's run_tests needs suite=…, one of auth, billing"},
		{"task pm-tanaka run_tests suite=auth verbos=1", "pm-tanaka's run_tests has no parameter verbos (did you mean verbose?)"},
	} {
		sendKeys(tm, ":")
		tm.Type(c.line)
		sendKeys(tm, "enter")
		waitScreen(t, tm, c.want)
		tm.mu.Lock()
		frame := tm.frame
		tm.mu.Unlock()
		if !strings.Contains(frame, ":"+c.line) {
			t.Errorf("%q: the bar lost the line:\n%s", c.line, frame)
		}
		sendKeys(tm, "esc")
	}
	if slices.ContainsFunc(svc.Calls(), func(c string) bool { return strings.HasPrefix(c, "task ") }) {
		t.Errorf("a refused line was sent: %q", svc.Calls())
	}
	// Whole in :errors, with where the peer's word comes from.
	sendKeys(tm, ":")
	tm.Type("errors")
	sendKeys(tm, "enter")
	waitScreen(t, tm, "— by what it last announced; :discover asks again")
	sendKeys(tm, "esc")
	sendKeys(tm, ":")
	tm.Type("task pm-tanaka run_tests suite=auth")
	sendKeys(tm, "enter")
	waitCalls(t, svc, "task pm-tanaka run_tests [suite=auth]")
	sendKeys(tm, ":")
	tm.Type("task pm-tanaka lint fix=yes")
	sendKeys(tm, "enter")
	waitCalls(t, svc, "task pm-tanaka lint [fix=yes]")
}
