package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// TestPeersLearnOnlyTheContextsTheyMayRead: the attack run's case — an
// agent told every peer the name of every context, acme/payroll included,
// whatever its ACL kept them from. Now what it says of itself, answering
// aoi.discover or announcing, lists only the contexts that peer may read.
func TestPeersLearnOnlyTheContextsTheyMayRead(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}, {Type: "repository", Identifier: "acme/payroll"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-write", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"},
			{ID: "hr-read", AgentRole: "hr", ScopeType: "repository", ScopePattern: "acme/*", Permission: "read"}}}
		c.Tasks = map[string]config.TaskType{
			"lint":   {Command: []string{"make", "lint"}, Context: "acme/webapp", TimeoutSec: 30, Isolation: "none"},
			"payrun": {Command: []string{"make", "pay"}, Context: "acme/payroll", TimeoutSec: 30, Isolation: "none"}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	hr := newTestAgent(t, "hr-ito", "hr", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "hr/handbook"}}
		c.ACL = config.ACL{DefaultPermission: "read"}
	})
	pair(eng, pm)
	pair(eng, hr)
	listed := func(viewer *testAgent) []string {
		t.Helper()
		var res wire.DiscoverResult
		if err := rawClient(t, viewer, eng).Call(ctx, wire.MethodDiscover, wire.DiscoverParams{SelfOnly: true, AOIVersion: wire.ProtocolVersion}, &res); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range res.Agents[0].Identity.Capabilities.Contexts {
			ids = append(ids, c.Identifier)
		}
		return ids
	}
	if got := listed(pm); !slices.Equal(got, []string{"acme/webapp"}) {
		t.Errorf("pm learns of %v; want acme/webapp only", got)
	}
	// Task types too: those pm may ask for (execute on their context).
	var res wire.DiscoverResult
	if err := rawClient(t, pm, eng).Call(ctx, wire.MethodDiscover, wire.DiscoverParams{SelfOnly: true, AOIVersion: wire.ProtocolVersion}, &res); err != nil {
		t.Fatal(err)
	}
	if got := res.Agents[0].Identity.Capabilities.TaskTypes; !slices.Equal(got, []string{"lint"}) {
		t.Errorf("pm learns of task types %v; want lint only", got)
	}
	if got := listed(hr); !slices.Equal(got, []string{"acme/webapp", "acme/payroll"}) {
		t.Errorf("hr learns of %v; want both", got)
	}
	// What eng announces to pm says the same.
	if _, err := eng.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	peers, err := pm.Peers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(peers, func(p agent.Peer) bool { return p.AgentID == "eng-suzuki" })
	if i < 0 || !slices.Equal(peers[i].Contexts, []string{"acme/webapp"}) {
		raw, _ := json.Marshal(peers)
		t.Errorf("after eng's announcement pm lists: %s; want eng with acme/webapp only", raw)
	}
	// Nor does eng pass on what hr told it of hr's own contexts.
	if hrs, _ := eng.Peers(ctx); !slices.ContainsFunc(hrs, func(p agent.Peer) bool { return slices.Contains(p.Contexts, "hr/handbook") }) {
		t.Fatal("eng never learned hr's contexts: the relay case is not exercised")
	}
	res = wire.DiscoverResult{}
	if err := rawClient(t, pm, eng).Call(ctx, wire.MethodDiscover, wire.DiscoverParams{AOIVersion: wire.ProtocolVersion}, &res); err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Agents[1:] {
		if len(e.Identity.Capabilities.Contexts) > 0 {
			t.Errorf("eng relayed %s's contexts to pm: %v", e.Identity.ID, e.Identity.Capabilities.Contexts)
		}
	}
}

// TestDiscoverPassesOnOnlyAnnouncedRoles: the attack run read, through
// aoi.discover, the role the owner gave each other peer (its ACL class:
// who gets write), and could list who holds one with role_filter. A peer
// now learns the role each other peer announced of itself.
func TestDiscoverPassesOnOnlyAnnouncedRoles(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", nil)
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	qa := newTestAgent(t, "qa-sato", "qa", nil)
	pair(eng, qa)
	pm.Pin(eng)
	// The owner classes pm as a lead, whatever pm says it is.
	if err := eng.Trust(ctx, agent.TrustRequest{AgentID: "pm-tanaka", Fingerprint: pm.Fingerprint(), Endpoint: pm.Addr(), Role: "lead"}); err != nil {
		t.Fatal(err)
	}
	if _, err := pm.Discover(ctx); err != nil { // announces role pm
		t.Fatal(err)
	}
	var res wire.DiscoverResult
	if err := rawClient(t, qa, eng).Call(ctx, wire.MethodDiscover, wire.DiscoverParams{AOIVersion: wire.ProtocolVersion}, &res); err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Agents {
		if e.Identity.ID == "pm-tanaka" && e.Identity.Role != "pm" {
			t.Errorf("qa learns pm-tanaka's role %q; want the announced pm, not the owner's lead", e.Identity.Role)
		}
	}
	if err := rawClient(t, qa, eng).Call(ctx, wire.MethodDiscover, wire.DiscoverParams{AOIVersion: wire.ProtocolVersion, FilterRole: "lead"}, &res); err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Agents {
		if e.Identity.ID == "pm-tanaka" {
			t.Errorf("role_filter lead finds pm-tanaka: the owner's class leaks")
		}
	}
}
