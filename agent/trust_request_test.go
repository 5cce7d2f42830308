package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// TestTrustRequestCarriesAnnouncedIDAndEndpoint: a colleague that pinned us
// calls before we pinned it. Its trust request shows the id and listen
// endpoint it announced (not its outgoing port), so trusting it from the
// request alone — what t does in the Peers pane — makes it reachable.
func TestTrustRequestCarriesAnnouncedIDAndEndpoint(t *testing.T) {
	eng := newTestAgent(t, "eng-host", "engineer", nil)
	newcomer := newTestAgent(t, "eng-newcomer", "engineer", nil)
	newcomer.Pin(eng) // the newcomer pinned eng; eng has not pinned it
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := newcomer.Discover(ctx); err != nil {
		t.Logf("discover (eng refuses the newcomer): %v", err)
	}
	var req agent.Peer
	eventually(t, 10*time.Second, "eng lists the newcomer's trust request", func() bool {
		peers, _ := eng.Peers(ctx)
		for _, p := range peers {
			if p.Trust == agent.TrustPending && p.Fingerprint == newcomer.Fingerprint() {
				req = p
				return true
			}
		}
		return false
	})
	if req.AgentID != "eng-newcomer" || req.Endpoint != newcomer.Addr() {
		t.Fatalf("trust request = id %q endpoint %q; want eng-newcomer at %s", req.AgentID, req.Endpoint, newcomer.Addr())
	}
	if err := eng.Trust(ctx, agent.TrustRequest{AgentID: req.AgentID, Fingerprint: req.Fingerprint, Endpoint: req.Endpoint}); err != nil {
		t.Fatalf("trust from the request: %v", err)
	}
	res, err := eng.Ask(ctx, agent.AskRequest{To: "eng-newcomer", Query: "what are you working on?"})
	if err != nil || res.QueryID == "" {
		t.Fatalf("ask the newly trusted peer: %+v, %v", res, err)
	}
}

// TestCallingPeerShowsOnline: a call from a pinned peer proves it is up, so
// the peer shows online at once (not after the next heartbeat).
func TestCallingPeerShowsOnline(t *testing.T) {
	eng := newTestAgent(t, "eng-callee", "engineer", nil)
	pm := newTestAgent(t, "pm-caller", "pm", nil)
	pair(eng, pm)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	status := func() string {
		peers, _ := eng.Peers(ctx)
		for _, p := range peers {
			if p.AgentID == "pm-caller" {
				return p.Status
			}
		}
		return "missing"
	}
	if s := status(); s != agent.PeerOffline {
		t.Fatalf("before any call the PM is %q; want offline (nothing heard yet)", s)
	}
	if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-callee", Query: "status?"}); err != nil {
		t.Fatal(err)
	}
	if s := status(); s != agent.PeerOnline {
		t.Fatalf("after its call the PM is %q; want online", s)
	}
}
