package tui

import (
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestAnswerWithNothingWaitingSaysSo: `:answer` (or `:decline`) typed
// with no question waiting says that none waits and where one will show,
// not how to write the command, which the walk read as a mistake of its
// own; with a question waiting the bar still says how to write it.
func TestAnswerWithNothingWaitingSaysSo(t *testing.T) {
	svc := fixtureService()
	svc.queries = []agent.Query{{ID: "q-3", From: "pm-tanaka", Text: "what changed?", State: agent.QueryAnswered, ReceivedAt: fixedNow}}
	m := newLoaded(t, svc, 80, 24, true)
	for _, line := range []string{"answer", "decline q-3"} {
		press(t, m, ":")
		typeText(t, m, line)
		press(t, m, "enter")
		cmd := strings.Fields(line)[0]
		if got := m.prompt.problem; !strings.HasPrefix(got, "no question is waiting for you to "+cmd+": ") || !strings.Contains(got, "shows in Queries") {
			t.Errorf(":%s with nothing waiting says %q; want that no question waits", line, got)
		}
		press(t, m, "ctrl+c")
	}
	m = newLoaded(t, fixtureService(), 80, 24, true)
	press(t, m, ":")
	typeText(t, m, "answer")
	press(t, m, "enter")
	if got := m.prompt.problem; got != "write :answer QUERY-ID text" {
		t.Errorf(":answer with questions waiting says %q; want how to write it", got)
	}
}
