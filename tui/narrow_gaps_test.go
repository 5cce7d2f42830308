package tui

import (
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// Gaps a 60-column terminal and a first day showed: the Peers table,
// the hint about having no contexts, and @-completion of a peer's name.
// Each test fails without its fix.

// TestFlowNarrowPeersShowContexts: at 60×20 the Peers pane still says
// what each peer offers: CONTEXTS keeps whole names, with "+N" for the
// ones that do not fit, where it cut the first name to "acme/we…".
func TestFlowNarrowPeersShowContexts(t *testing.T) {
	tm, _ := startFlowAt(t, fixtureService(), Options{}, 60, 20)
	sendKeys(tm, "shift+tab") // Peers
	waitScreen(t, tm, "CONTEXTS")
	for _, want := range []string{"acme/webapp +1", "acme/認証サービス", "acme/webapp/tests/ve"} {
		waitScreen(t, tm, want)
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if strings.Contains(tm.frame, "acme/we…") {
		t.Errorf("a context is still cut to its first letters:\n%s", tm.frame)
	}
}

// TestFlowNoContextsHintOnlyWhileQueriesIsEmpty: a PM with no contexts
// read "no contexts: add yours to the config" in the status bar all day.
// The hint is now the empty Queries pane's, where the interface starts:
// the first question to arrive replaces it, and the status bar never
// shows it.
func TestFlowNoContextsHintOnlyWhileQueriesIsEmpty(t *testing.T) {
	svc := fixtureService()
	svc.status.Contexts = 0
	arriving := svc.queries[0] // q-7 from pm-tanaka
	svc.queries = nil
	tm, _ := startFlowUntil(t, svc, Options{}, 60, 20, "You share no contexts")
	tm.mu.Lock()
	bar := lastLine(tm.frame)
	tm.mu.Unlock()
	if strings.Contains(bar, "no contexts") {
		t.Errorf("the status bar still carries the hint: %q", bar)
	}
	svc.mu.Lock()
	svc.queries = []agent.Query{arriving}
	svc.mu.Unlock()
	svc.publish(agent.EventQueryReceived, arriving.ID, arriving.From, arriving.Text)
	waitScreen(t, tm, "auth progress and blockers?")
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if strings.Contains(tm.frame, "no contexts") {
		t.Errorf("the hint stayed once a question arrived:\n%s", tm.frame)
	}
}

// TestFlowMistypedPeerOffersEveryFit: with two eng- peers, `@engg …`
// got "no peer engg here" and nothing else, since naming one would be a
// guess. Now enter names both to pick from, and tab mends the id to what
// they share and lists them.
func TestFlowMistypedPeerOffersEveryFit(t *testing.T) {
	svc := fixtureService()
	svc.status.AgentID = "qa-mori"
	svc.peers[1].AgentID, svc.peers[2].AgentID = "eng-suzuki", "eng-sato"
	tm, _ := startFlow(t, svc, Options{})
	sendKeys(tm, "@")
	tm.Type("engg how is auth going?")
	sendKeys(tm, "enter")
	waitScreen(t, tm, "no peer engg here — did you mean eng-sato or eng-suzuki?")
	sendKeys(tm, "esc")
	waitScreen(t, tm, "? help")
	sendKeys(tm, "@")
	tm.Type("engg")
	sendKeys(tm, "tab")
	waitScreen(t, tm, "2 match: eng-sato · eng-suzuki")
	waitScreen(t, tm, "@eng-")
	if calls := svc.Calls(); len(calls) != 0 {
		t.Errorf("a mistyped peer was asked: %q", calls)
	}
}
