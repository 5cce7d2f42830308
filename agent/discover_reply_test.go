package agent_test

import (
	"context"
	"testing"

	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestAnnounceSelfOnlyReply: aoi's announce rounds ask for the callee's own
// entry only (self_only), so a round costs the same whatever the size of the
// registry; a discover without it still lists the registry (seed 000).
func TestAnnounceSelfOnlyReply(t *testing.T) {
	eng := newTestAgent(t, "eng-registry", "engineer", nil)
	pm := newTestAgent(t, "pm-announcer", "pm", nil)
	qa := newTestAgent(t, "qa-other", "qa", nil)
	pair(eng, pm)
	pair(eng, qa)
	ctx := context.Background()
	client := rawClient(t, pm, eng)
	announce := wire.DiscoverParams{AgentID: "pm-announcer", Announce: true, AOIVersion: wire.ProtocolVersion}

	var full wire.DiscoverResult
	if err := client.Call(ctx, wire.MethodDiscover, announce, &full); err != nil {
		t.Fatal(err)
	}
	if len(full.Agents) < 3 || full.Agents[0].Identity.ID != "eng-registry" {
		t.Fatalf("a seed announce lists %d entries (first %q); want eng's own, then its registry", len(full.Agents), full.Agents[0].Identity.ID)
	}
	announce.SelfOnly = true
	var self wire.DiscoverResult
	if err := client.Call(ctx, wire.MethodDiscover, announce, &self); err != nil {
		t.Fatal(err)
	}
	if len(self.Agents) != 1 || self.Agents[0].Identity.ID != "eng-registry" {
		t.Fatalf("self_only reply = %+v; want eng's own entry only", self.Agents)
	}
}
