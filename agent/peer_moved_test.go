package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/config"
)

// TestPeerBackOnAnotherPortIsFoundThere: a pinned peer whose aoi comes back
// listening on another port says so in its announce, and is then called
// there (its identity is its certificate, not its address). Before, the
// registry kept the old endpoint and every call and retry went to a port
// nobody listened on.
func TestPeerBackOnAnotherPortIsFoundThere(t *testing.T) {
	ctx := context.Background()
	pm := agenttest.New(t, "pm-moved", "pm", nil)
	eng := agenttest.New(t, "eng-moved", "engineer", nil)
	agenttest.Pair(pm, eng)
	old := eng.Addr()
	moved := agenttest.FreeAddr(t)
	eng.Restart(func(c *config.Config) { c.Network.ListenAddr = moved })
	if eng.Addr() == old {
		t.Fatalf("eng came back on its old address %s", old)
	}
	if _, err := eng.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	agenttest.Eventually(t, 10*time.Second, "pm knows eng's new endpoint", func() bool {
		peers, err := pm.Peers(ctx)
		if err != nil {
			return false
		}
		for _, p := range peers {
			if p.AgentID == eng.ID {
				return p.Endpoint == eng.Addr()
			}
		}
		return false
	})
	if _, err := pm.Ask(ctx, agent.AskRequest{To: eng.ID, Query: "still there?"}); err != nil {
		t.Fatalf("asking eng at its new address: %v", err)
	}
}
