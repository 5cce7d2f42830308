package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestUnreadMessagesPerPeerAreBounded: a peer a messages rule lets in
// could store a 16 KiB message five times a second for as long as nobody
// read them (the attack pass: about 7 GB a day, kept since unread messages
// are never pruned). Past network.max_unread_messages_per_peer messages of
// one peer that neither the owner nor the assistant has seen, its next
// aoi.message or aoi.notify is refused as busy and audited; a retry of one
// stored is still acknowledged, another peer still gets through, and once
// the assistant has read them the peer may send again.
func TestUnreadMessagesPerPeerAreBounded(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Network.MaxUnreadMessagesPerPeer = 3
		c.ACL.Rules = append(c.ACL.Rules, config.Rule{ID: "team-msg", AgentID: "*", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "write"})
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	qa := newTestAgent(t, "qa-ito", "qa", nil)
	pair(eng, pm)
	pair(eng, qa)
	ctx := context.Background()
	client := rawClient(t, pm, eng)
	message := func(id string) error {
		return client.Call(ctx, wire.MethodMessage, wire.MessageParams{ID: id, From: "pm-tanaka", To: "eng-suzuki", Type: wire.MsgNote,
			Payload: json.RawMessage(`{"text":"hi"}`), Timestamp: time.Now()}, new(json.RawMessage))
	}
	for i := range 3 {
		if err := message(fmt.Sprintf("m-%d", i)); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	err := message("m-3")
	if e := asRPC(t, err, rpc.CodeAgentBusy); !strings.Contains(fmt.Sprint(e.Data), "3 of your messages wait unread") {
		t.Errorf("the fourth message: %v %v; want busy, saying how many wait", e, e.Data)
	}
	err = client.Call(ctx, wire.MethodNotify, wire.NotifyParams{ID: "n-1", From: "pm-tanaka", To: "eng-suzuki", Event: "note",
		Data: json.RawMessage(`{"text":"hi"}`), Timestamp: time.Now()}, new(json.RawMessage))
	asRPC(t, err, rpc.CodeAgentBusy)
	if err := message("m-0"); err != nil {
		t.Errorf("a retry of a stored message: %v; want it acknowledged", err)
	}
	if _, err := qa.SendMessage(ctx, agent.SendMessageRequest{To: "eng-suzuki", Type: "note", Payload: json.RawMessage(`{"text":"ok"}`)}); err != nil {
		t.Errorf("another peer's message: %v", err)
	}
	rows, err := eng.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka", Method: wire.MethodMessage})
	if err != nil || len(rows) == 0 || !strings.Contains(string(rows[0].Detail), "unread_messages") {
		t.Errorf("audit rows %+v, %v; want the refusal recorded", rows, err)
	}
	if _, err := eng.Inbox(ctx, agent.InboxFilter{Unread: true, Assistant: true}); err != nil {
		t.Fatal(err)
	}
	if err := message("m-4"); err != nil {
		t.Errorf("a message once the assistant read the others: %v", err)
	}
}
