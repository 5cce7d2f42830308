package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// peerStatus is how a sees other in its registry.
func peerStatus(t *testing.T, a *testAgent, other string) string {
	t.Helper()
	peers, err := a.Peers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range peers {
		if p.AgentID == other {
			return p.Status
		}
	}
	t.Fatalf("%s does not know %s", a.ID, other)
	return ""
}

// TestFailedCallShowsPeerOfflineAtOnce: a peer whose aoi stopped is shown
// offline as soon as a call to it fails as unreachable (not after
// offline_after_sec), front ends get a peer.changed event, and it is
// online again once it answers.
func TestFailedCallShowsPeerOfflineAtOnce(t *testing.T) {
	t.Parallel()
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	eng := newTestAgent(t, "eng-suzuki", "engineer", nil)
	pair(pm, eng)
	ctx := context.Background()
	if _, err := pm.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	if s := peerStatus(t, pm, "eng-suzuki"); s != agent.PeerOnline {
		t.Fatalf("eng-suzuki is %s before it stopped, want online", s)
	}
	evCtx, stop := context.WithCancel(ctx)
	defer stop()
	events, err := pm.Events(evCtx, agent.EventsRequest{})
	if err != nil {
		t.Fatal(err)
	}

	eng.Stop()
	res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "status?"})
	if err != nil || !strings.Contains(string(res.Result), agent.AskQueued) {
		t.Fatalf("ask a stopped peer: %s, %v; want the question queued", res.Result, err)
	}
	if s := peerStatus(t, pm, "eng-suzuki"); s != agent.PeerOffline {
		t.Fatalf("after a failed call eng-suzuki is %s, want offline", s)
	}
	waitEvent(t, events, func(ev agent.Event) bool {
		return ev.Kind == agent.EventPeerChanged && ev.Agent == "eng-suzuki" && ev.Summary == agent.PeerOffline
	})

	eng.Restart(nil)
	if _, err := pm.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	if s := peerStatus(t, pm, "eng-suzuki"); s != agent.PeerOnline {
		t.Fatalf("after eng-suzuki came back it is %s, want online", s)
	}
}

// waitEvent reads events until match holds (bounded: 10 s).
func waitEvent(t *testing.T, events <-chan agent.Event, match func(agent.Event) bool) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("event stream closed")
			}
			if match(ev) {
				return
			}
		case <-timeout:
			t.Fatal("no matching event within 10s")
		}
	}
}

// TestMistypedPeerIDSuggestsTheKnownOne: asking "eng-suzki" when
// eng-suzuki is pinned says which was likely meant, instead of advising to
// pin a new peer; a name like no known peer keeps the pinning advice.
func TestMistypedPeerIDSuggestsTheKnownOne(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", nil)
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	_, err := pm.Ask(context.Background(), agent.AskRequest{To: "eng-suzki", Query: "status?"})
	if err == nil || !strings.Contains(err.Error(), "did you mean eng-suzuki?") {
		t.Errorf("a mistyped id: %v", err)
	}
	_, err = pm.Ask(context.Background(), agent.AskRequest{To: "qa-mori", Query: "status?"})
	if err == nil || strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), "aoi peers trust qa-mori") {
		t.Errorf("an unknown id: %v", err)
	}
}
