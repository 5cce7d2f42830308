package peerapi

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// TestNotifyIsBoundedAsAMessageIs: a notification that answers nothing
// this agent asked lands in the assistant's inbox as an aoi.message does,
// and is bounded as one: its data at 16 KiB and 32 levels, its event name
// at 128 bytes. The attack run stored 950 KB of data there through
// aoi.notify while aoi.message refused the same payload. The answer to a
// question asked (a task's result with its failures) keeps the body's
// bound.
func TestNotifyIsBoundedAsAMessageIs(t *testing.T) {
	a := newAPI(t)
	ctx := context.Background()
	a.Now = time.Now
	a.Peers = &peers.Registry{DB: a.DB, Config: a.Config, Now: a.Now, Log: a.Log}
	a.Publish = func(kind, id, agent, summary string) {}
	pol := acl.New(config.ACL{DefaultPermission: config.PermNone, Rules: []config.Rule{
		{ID: "msgs", AgentID: "pm-tanaka", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: config.PermWrite}}}, nil, nil)
	a.Policy = func() *acl.Policy { return pol }
	if err := a.DB.Write(ctx, func(tx *store.Tx) error {
		return tx.InsertAsk(store.AskRecord{RequestID: "ask-1", To: "pm-tanaka", Text: "how is auth?"})
	}); err != nil {
		t.Fatal(err)
	}
	notify := func(id, event, related string, data any) error {
		raw, _ := json.Marshal(data)
		params, _ := json.Marshal(wire.NotifyParams{ID: id, From: "pm-tanaka", To: "eng-suzuki", Event: event, RelatedQueryID: related, Data: raw})
		_, err := a.handleNotify(ctx, &rpc.Call{Method: wire.MethodNotify, ID: json.RawMessage(`"` + id + `"`), Params: params,
			Caller: rpc.Caller{Kind: rpc.CallerTLS, AgentID: "pm-tanaka"}})
		return err
	}
	big := map[string]string{"text": strings.Repeat("lorem ipsum ", 2000)}
	deep := any("x")
	for range 40 {
		deep = []any{deep}
	}
	for name, err := range map[string]error{
		"24 KB of data":   notify("n-1", "note", "", big),
		"40 levels":       notify("n-2", "note", "", deep),
		"a 200-byte name": notify("n-3", strings.Repeat("e", 200), "", nil),
	} {
		if !errors.Is(err, errs.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if err := notify("n-4", "note", "", map[string]string{"text": "hello"}); err != nil {
		t.Fatalf("a small note: %v", err)
	}
	if err := notify("n-5", wire.EventQueryCompleted, "ask-1", map[string]any{"summary": big["text"], "completed": true}); err != nil {
		t.Fatalf("a long answer to a question asked: %v", err)
	}
}
