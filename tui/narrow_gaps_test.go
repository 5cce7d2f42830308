package tui

import (
	"strings"
	"testing"
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
