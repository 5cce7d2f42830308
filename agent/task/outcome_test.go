package task

import "testing"

// TestOutcomeSummary: the line the requester's lists show says which task
// ended how, with the test counts, the error or the exit code.
func TestOutcomeSummary(t *testing.T) {
	one := 1
	for want, o := range map[string]Outcome{
		"run_tests completed: 12 run, 12 passed, 0 failed": {Status: StateCompleted, Output: &Counts{Run: 12, Passed: 12}},
		"run_tests failed: 12 run, 10 passed, 2 failed":    {Status: StateFailed, Output: &Counts{Run: 12, Passed: 10, Failed: 2}, ExitCode: &one},
		"run_tests failed: exit 1":                         {Status: StateFailed, ExitCode: &one},
		"run_tests rejected: not today":                    {Status: StateRejected, Error: "not today\nsecond line"},
		"run_tests completed":                              {Status: StateCompleted},
		"run_tests canceled":                               {Status: StateCanceled, Error: StateCanceled}, // not "canceled: canceled"
	} {
		o.summarize("run_tests", "")
		if o.Summary != want {
			t.Errorf("summary %q, want %q", o.Summary, want)
		}
	}
	o := Outcome{Status: StateRejected, Error: "the owner rejected the request: not today"}
	if o.summarize("run_tests", "not today"); o.Summary != "run_tests rejected: not today" {
		t.Errorf("a rejection reads %q, want the owner's reason alone", o.Summary)
	}
}
