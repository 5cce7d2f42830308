package secretary

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// maxReportedTests bounds the tests the assistant's reports add to a snapshot.
const maxReportedTests = 20

// reportFold folds the coding assistant's reported events (newest first)
// into a snapshot: test runs into recent tests, the file an event names
// into active files, and the newest progress summary into focus_summary
// (it says what the assistant is doing now better than a commit title).
type reportFold struct {
	progress string // newest progress summary
}

// add folds one report and returns the file it names ("" if none).
func (r *reportFold) add(snap *wire.ContextSnapshot, e store.ContextEvent) string {
	typ, line, _ := strings.Cut(e.Title, ": ")
	switch {
	case typ == "progress":
		if r.progress == "" {
			r.progress = clipRunes(strings.TrimSpace(e.Body), snippetCap)
		}
	case strings.HasPrefix(typ, "test.") && len(snap.RecentTests) < maxReportedTests:
		tests := namedTests(e.Body)
		if len(tests) == 0 {
			tests = []wire.TestOutcome{{Name: clipRunes(line, 120), Status: testStatus(typ, e.Body)}}
		}
		snap.RecentTests = append(snap.RecentTests, tests[:min(len(tests), maxReportedTests-len(snap.RecentTests))]...)
	}
	return e.Key
}

// finish puts the newest progress summary in front of the commit title.
func (r *reportFold) finish(snap *wire.ContextSnapshot) {
	if r.progress == "" {
		return
	}
	snap.FocusSummary = r.progress
	if snap.Metadata == nil {
		snap.Metadata = map[string]any{}
	}
	snap.Metadata["progress_summary"] = r.progress
}

// failedRE finds a failure in a test run's text: go test's FAIL, "3 failed",
// "2 failures", a panic ("0 failed" is not one).
var failedRE = regexp.MustCompile(`\bFAIL\b|\b[1-9][0-9]* (?:failed|failures?|errors?)\b|\bpanic:`)

// testStatus reads a reported test run's outcome from its type and text.
func testStatus(typ, body string) string {
	if strings.HasSuffix(typ, ".failed") || strings.HasSuffix(typ, ".error") || failedRE.MatchString(body) {
		return "failed"
	}
	return "passed"
}

// resultLineRE finds one test's result in a runner's output: go test's
// "--- FAIL: TestX (0.02s)" and pytest's "FAILED tests/x.py::test_y".
var resultLineRE = regexp.MustCompile(`(?m)^\s*(?:--- (FAIL|PASS|SKIP): (\S+)(?: \(([0-9]+(?:\.[0-9]+)?)s\))?|(FAILED|PASSED|ERROR) (\S+))`)

// namedTests lists the tests a reported run names with their outcomes, in
// the order printed (none when the text names no test).
func namedTests(body string) []wire.TestOutcome {
	var out []wire.TestOutcome
	for _, m := range resultLineRE.FindAllStringSubmatch(body, maxReportedTests) {
		verdict, name := m[1], m[2]
		if verdict == "" {
			verdict, name = m[4], m[5]
		}
		t := wire.TestOutcome{Name: clipRunes(name, 120), Status: "passed"}
		switch verdict {
		case "FAIL", "FAILED", "ERROR":
			t.Status = "failed"
		case "SKIP":
			t.Status = "skipped"
		}
		if secs, err := strconv.ParseFloat(m[3], 64); err == nil {
			t.DurationMS = int64(secs*1000 + 0.5)
		}
		out = append(out, t)
	}
	return out
}
