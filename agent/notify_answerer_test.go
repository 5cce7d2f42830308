package agent_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestOnlyThePeerAskedCanAnswer: the attack run's case — pm asks eng;
// another pinned peer sends aoi.notify(query.completed) naming that
// question and is refused, while eng's own answer to it is taken.
func TestOnlyThePeerAskedCanAnswer(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", engConfig)
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	mallory := newTestAgent(t, "eng-mallory", "engineer", nil)
	agenttest.Pair(eng, pm)
	agenttest.Pair(pm, mallory)
	asked, err := pm.Ask(ctx, agent.AskRequest{To: eng.ID, Query: "how is auth going?", ContextScope: []string{"acme/webapp"}, Async: true})
	if err != nil {
		t.Fatal(err)
	}
	notify := func(from *agenttest.Agent) error {
		id, err := rpc.LoadIdentity(filepath.Join(from.Dir, "tls"))
		if err != nil {
			t.Fatal(err)
		}
		tr := rpc.NewDirectTransport(id, "127.0.0.1:0")
		defer tr.Close()
		c := rpc.NewClient("https://"+pm.Addr()+rpc.Path, tr.HTTPClient(pm.Fingerprint()), rpc.ClientOptions{MaxAttempts: 1})
		return c.Call(ctx, wire.MethodNotify, wire.NotifyParams{ID: wire.NewID("n"), From: from.ID, To: pm.ID, Event: "query.completed",
			RelatedQueryID: asked.QueryID, Data: json.RawMessage(`{"summary":"it is all done"}`), Timestamp: time.Now()}, nil)
	}
	asRPC(t, notify(mallory), rpc.CodePermissionDenied)
	if err := notify(eng); err != nil {
		t.Fatalf("the peer asked answers: %v", err)
	}
	msgs, err := pm.Messages(ctx, agent.MessagesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.RelatedID == asked.QueryID && m.From != eng.ID {
			t.Fatalf("an answer from %s was stored for the question asked of %s", m.From, eng.ID)
		}
	}
}
