package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
)

// TestTrustSaysHello: trusting a peer with Announce (what the CLI and the
// interface do) announces to it at once, so a peer that already trusts this
// agent shows online without waiting for the next heartbeat; one that does
// not yet sees a trust request carrying this agent's id and endpoint.
func TestTrustSaysHello(t *testing.T) {
	eng := newTestAgent(t, "eng-hello", "engineer", nil)
	pm := newTestAgent(t, "pm-hello", "pm", nil)
	qa := newTestAgent(t, "qa-hello", "qa", nil)
	ctx := context.Background()
	pm.Pin(eng)
	trust := func(other *testAgent) {
		t.Helper()
		err := eng.Trust(ctx, agent.TrustRequest{AgentID: other.ID, Fingerprint: other.Fingerprint(), Endpoint: other.Addr(), Announce: true})
		if err != nil {
			t.Fatal(err)
		}
	}
	trust(pm)
	agenttest.Eventually(t, 5*time.Second, "pm online on eng after the trust", func() bool {
		return peerStatus(t, eng, "pm-hello") == agent.PeerOnline
	})
	trust(qa) // qa has not trusted eng
	agenttest.Eventually(t, 5*time.Second, "a trust request from eng on qa", func() bool {
		peers, err := qa.Peers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range peers {
			if p.Trust == agent.TrustPending && p.AgentID == "eng-hello" && p.Endpoint == eng.Addr() {
				return true
			}
		}
		return false
	})
}
