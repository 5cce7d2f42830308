package agent_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestTooManyScopeEntriesAreInvalid: a context_scope of 65 entries is
// refused as invalid params naming the limit, before any is resolved (the
// attack run's 1,500 entries ended in an internal error and an audit row
// that could not be written).
func TestTooManyScopeEntriesAreInvalid(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", engConfig)
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	agenttest.Pair(eng, pm)
	scope := make([]string, 65)
	for i := range scope {
		scope[i] = fmt.Sprintf("acme/webapp/f%d.go", i)
	}
	_, err := pm.Ask(ctx, agent.AskRequest{To: eng.ID, Query: "status?", ContextScope: scope})
	asRPC(t, err, rpc.CodeInvalidParams)
	if _, err := pm.Ask(ctx, agent.AskRequest{To: eng.ID, Query: "status?", ContextScope: scope[:64]}); err != nil {
		t.Fatalf("64 entries: %v", err)
	}
}
