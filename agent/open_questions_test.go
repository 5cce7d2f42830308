package agent_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestOpenQuestionsPerPeerAreBounded: one peer asking in a loop put 60
// questions in front of the owner, each ringing (the attack run). Past
// network.max_open_questions_per_peer its next question that would wait is
// refused as busy and audited; another peer still gets through.
func TestOpenQuestionsPerPeerAreBounded(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Network.MaxOpenQuestionsPerPeer = 3
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	qa := newTestAgent(t, "qa-ito", "qa", nil)
	pair(eng, pm)
	pair(eng, qa)
	ctx := context.Background()
	for i := range 3 {
		if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: fmt.Sprintf("question %d?", i)}); err != nil {
			t.Fatalf("question %d: %v", i, err)
		}
	}
	_, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "one more?"})
	if e := asRPC(t, err, rpc.CodeAgentBusy); !strings.Contains(fmt.Sprint(e.Data), "3 of your questions already wait") {
		t.Errorf("the fourth question: %v %v; want busy, saying how many wait", e, e.Data)
	}
	if _, err := qa.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "tests green?"}); err != nil {
		t.Errorf("another peer's question: %v", err)
	}
	rows, err := eng.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka", Method: wire.MethodQuery})
	if err != nil || len(rows) == 0 || !strings.Contains(string(rows[0].Detail), "open_questions") {
		t.Errorf("audit rows %+v, %v; want the refusal recorded", rows, err)
	}
}
