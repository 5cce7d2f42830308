package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestAnnouncedRoleGrantsNothing: the attack run's case — an agent the
// owner pinned without a role announces itself as "pm" and must not match
// agent_role: pm rules; once the owner trusts it as pm, it does. The
// announced role stays visible as information.
func TestAnnouncedRoleGrantsNothing(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", engConfig)
	mallory := newTestAgent(t, "eng-mallory", "pm", nil) // announces role "pm"
	if err := eng.Trust(ctx, agent.TrustRequest{AgentID: mallory.ID, Fingerprint: mallory.Fingerprint(), Endpoint: mallory.Addr()}); err != nil {
		t.Fatal(err)
	}
	mallory.Pin(eng)
	// Both ways: mallory announces itself to eng, and eng's own discovery
	// round asks mallory, whose answer describes itself as pm again.
	if _, err := mallory.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	peers, err := eng.Peers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range peers {
		if p.AgentID == mallory.ID && (p.Role != "" || p.AnnouncedRole != "pm") {
			t.Fatalf("peer = %+v, want no owner role and announced role pm", p)
		}
	}
	_, err = mallory.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "status?", ContextScope: []string{"acme/webapp"}})
	asRPC(t, err, rpc.CodePermissionDenied)

	// The owner decides: now the pm rule applies.
	if err := eng.Trust(ctx, agent.TrustRequest{AgentID: mallory.ID, Fingerprint: mallory.Fingerprint(), Role: "pm"}); err != nil {
		t.Fatal(err)
	}
	if _, err := mallory.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "status?", ContextScope: []string{"acme/webapp"}}); err != nil {
		t.Fatalf("after trust --role pm: %v", err)
	}
	// An invalid id or role is refused, and not echoed.
	for _, req := range []agent.TrustRequest{
		{AgentID: "bad\nid", Fingerprint: mallory.Fingerprint()}, {AgentID: "*", Fingerprint: mallory.Fingerprint()},
		{AgentID: "ok-id", Fingerprint: mallory.Fingerprint(), Role: "p m"},
	} {
		err := eng.Trust(ctx, req)
		if err == nil || (req.AgentID != "ok-id" && strings.Contains(err.Error(), req.AgentID)) {
			t.Errorf("trust %q/%q: %v", req.AgentID, req.Role, err)
		}
	}
}
