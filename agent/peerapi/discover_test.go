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
	"github.com/aoi-protocol/aoi/rpc"
)

// TestAnnounceDoesNotUndoARefusal: an announce let in just before the
// owner refused its peer, and handled just after, stores nothing and
// leaves the refusal standing. The attack run announced in a loop while
// the owner refused it: the announce stored back the pin it had read
// before the refusal (found gone, it even made a new pin) and cached the
// caller's id again, so the refused peer kept calling as itself.
func TestAnnounceDoesNotUndoARefusal(t *testing.T) {
	a := newAPI(t)
	ctx := context.Background()
	now := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	a.Now = func() time.Time { return now }
	a.Peers = &peers.Registry{DB: a.DB, Config: a.Config, Now: a.Now, Log: a.Log,
		Publish: func(kind, id, agent, summary string) {}, Wake: func(string) {}}
	a.Publish, a.Wake = func(kind, id, agent, summary string) {}, func() {}
	a.Self = func(viewer acl.Subject) wire.RegistryEntry {
		return wire.RegistryEntry{Identity: wire.Identity{ID: "eng-suzuki"}}
	}

	fp := strings.Repeat("ab", 32)
	if err := a.Peers.Trust(ctx, peers.TrustRequest{AgentID: "pm-tanaka", Fingerprint: fp, Role: "pm"}); err != nil {
		t.Fatal(err)
	}
	caller := rpc.Caller{Kind: rpc.CallerTLS, Fingerprint: fp, Addr: "127.0.0.1:50000"}
	letIn, err := a.Peers.Authenticate(ctx, caller)
	if err != nil || letIn.AgentID != "pm-tanaka" {
		t.Fatalf("the pinned peer: %+v, %v", letIn, err)
	}
	if err := a.Peers.Refuse(ctx, fp); err != nil {
		t.Fatal(err)
	}

	params, _ := json.Marshal(wire.DiscoverParams{AgentID: "pm-tanaka", Announce: true, Role: "pm", SelfOnly: true})
	call := &rpc.Call{Method: wire.MethodDiscover, Params: params, Caller: letIn}
	if _, err := a.handleDiscover(ctx, call); !errors.Is(err, errs.ErrDenied) {
		t.Fatalf("an announce handled after the refusal: %v, want ErrDenied", err)
	}
	if rec, found, err := a.DB.Peer(ctx, "pm-tanaka"); err != nil || found {
		t.Fatalf("the refused peer is in the registry again: %+v, %v", rec, err)
	}
	if _, err := a.Peers.Authenticate(ctx, caller); !errors.Is(err, errs.ErrDenied) {
		t.Fatalf("the refused peer's next call: %v, want ErrDenied", err)
	}
}

// TestNoNodeAnnouncesThisAgentsOwnID: on a tailnet the first node to
// announce an id is bound to it; this agent's own id is not there to take
// (its calls would pass for this agent's own).
func TestNoNodeAnnouncesThisAgentsOwnID(t *testing.T) {
	a := newAPI(t)
	ctx := context.Background()
	a.Now = time.Now
	a.Peers = &peers.Registry{DB: a.DB, Config: a.Config, Now: a.Now, Log: a.Log}
	a.Publish, a.Wake = func(kind, id, agent, summary string) {}, func() {}
	params, _ := json.Marshal(wire.DiscoverParams{AgentID: "eng-suzuki", Announce: true, SelfOnly: true})
	call := &rpc.Call{Method: wire.MethodDiscover, Params: params, Caller: rpc.Caller{Kind: rpc.CallerTailnet, NodeID: "n1", Addr: "100.64.0.9:41000"}}
	if _, err := a.handleDiscover(ctx, call); !errors.Is(err, errs.ErrDenied) {
		t.Fatalf("a node announcing this agent's own id: %v, want ErrDenied", err)
	}
	if rec, found, err := a.DB.Peer(ctx, "eng-suzuki"); err != nil || found {
		t.Fatalf("this agent's own id was bound to the node: %+v, %v", rec, err)
	}
}
