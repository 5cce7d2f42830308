package agenttest_test

import (
	"context"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
)

// Two real cores pin each other, one restarts on the same port, and they
// still talk.
func TestPairRestartAndAsk(t *testing.T) {
	eng := agenttest.New(t, "eng-suzuki", "engineer", nil)
	pm := agenttest.New(t, "pm-tanaka", "pm", nil)
	agenttest.Pair(eng, pm)
	addr := eng.Addr()
	eng.Stop()
	eng.Stop() // idempotent
	eng.Restart(nil)
	if eng.Addr() != addr {
		t.Fatalf("restarted on %s, want the same port %s", eng.Addr(), addr)
	}
	res, err := pm.Ask(context.Background(), agent.AskRequest{To: eng.ID, Query: "progress?"})
	if err != nil || res.QueryID == "" {
		t.Fatalf("ask after restart: %+v, %v", res, err)
	}
	peers, err := eng.Peers(context.Background())
	if err != nil || len(peers) != 1 || peers[0].Role != "pm" {
		t.Fatalf("eng's peers = %+v, %v; want pm pinned with the role its owner gave", peers, err)
	}
}
