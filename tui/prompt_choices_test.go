package tui

import (
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestTabCandidatesThatDoNotFitWrapBelowTheBar: at 80 columns the walk's
// two waiting questions did not fit after ":answer q-01a2366": the second
// was cut to "·…", so its id could not be read. They wrap below the bar,
// as a problem with the line does.
func TestTabCandidatesThatDoNotFitWrapBelowTheBar(t *testing.T) {
	svc := fixtureService()
	svc.queries = []agent.Query{
		{ID: "q-01a2366bb272854cd0c41941", From: "pm-tanaka", Text: "when does billing ship? we need a date for the customer call",
			State: agent.QueryEscalated, ReceivedAt: fixedNow},
		{ID: "q-01a2366cf7ce43aef1ccfbc9", From: "pm-tanaka", Text: "any update on the auth docs?",
			State: agent.QueryBuffered, ReceivedAt: fixedNow},
	}
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, ":")
	typeText(t, m, "answer q-01a")
	press(t, m, "tab")
	frame := screen(m)
	for _, want := range []string{"…bb2728… pm-tanaka", "…cf7ce4… pm-tanaka", "update on the auth"} {
		if !strings.Contains(frame, want) {
			t.Errorf("tab's candidates lack %q:\n%s", want, frame)
		}
	}
	if got := m.prompt.input.Value(); got != ":answer q-01a2366" {
		t.Errorf("tab completed %q; want the ids' shared start", got)
	}
}
