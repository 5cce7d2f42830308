package agent

import (
	"context"
	"fmt"

	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
)

// Peer states and trust levels (agent/peers).
const (
	PeerOnline  = peers.Online
	PeerBusy    = peers.Busy
	PeerOffline = peers.Offline

	TrustPinned  = peers.Pinned
	TrustPending = peers.Pending // an unpinned caller asked; owner decides
)

// Peer is one entry of the registry as front ends see it (agent/peers).
type Peer = peers.Peer

// TrustRequest pins a peer (agent/peers). Fingerprint is required in
// direct mode.
type TrustRequest = peers.TrustRequest

// NormalizeFingerprint reads a fingerprint as a person pastes it (grouped
// with spaces or colons, any case) into the 64 lowercase hex digits pinned
// (rpc.NormalizeFingerprint, for front ends that do not import rpc).
func NormalizeFingerprint(s string) (string, error) { return rpc.NormalizeFingerprint(s) }

// GroupFingerprint writes a fingerprint in eight groups of eight hex digits,
// as people compare it (rpc.GroupFingerprint).
func GroupFingerprint(fp string) string { return rpc.GroupFingerprint(fp) }

// URLMapper and PeerFinder are what a transport may add for the registry
// (agent/peers): peer URLs of its own, and candidate peers it finds.
type (
	URLMapper  = peers.URLMapper
	PeerFinder = peers.Finder
)

// newRegistry wires the peer registry (agent/peers).
func (c *Core) newRegistry() *peers.Registry {
	return &peers.Registry{DB: c.db, Transport: c.transport, Config: c.config, Now: c.now, Clock: c.clock, Log: c.log,
		Announcement: c.announceParams,
		Publish:      func(kind, id, agent, summary string) { c.events.Publish(kind, id, agent, summary) },
		Wake:         func() { c.outbox.Wake() }}
}

// Peers lists the registry plus pending trust requests.
func (c *Core) Peers(ctx context.Context) ([]Peer, error) { return c.peers.List(ctx) }

// Discover announces this agent to every peer with a known endpoint and
// merges what they know (peers.Registry.Discover).
func (c *Core) Discover(ctx context.Context) ([]Peer, error) { return c.peers.Discover(ctx) }

// Trust pins a peer's fingerprint (and endpoint) in the registry
// (peers.Registry.Trust: ErrInvalid). When it replaces the certificate
// pinned before (--replace), what the peer asked for under the old one and
// has not ended is canceled, its questions declined without an answer: the owner replaces a certificate when its key
// is lost or taken, and a request signed with it should not wait in the
// Approvals queue looking like the peer's.
func (c *Core) Trust(ctx context.Context, req TrustRequest) error {
	before, _, err := c.db.Peer(ctx, req.AgentID)
	if err != nil {
		return err
	}
	if err := c.peers.Trust(ctx, req); err != nil {
		return err
	}
	after, _, err := c.db.Peer(ctx, req.AgentID)
	if err != nil || before.Trust != peers.Pinned || before.Fingerprint == "" || before.Fingerprint == after.Fingerprint {
		return err
	}
	why := req.AgentID + "'s certificate was replaced"
	n, err := c.tasks.CancelFrom(ctx, req.AgentID, why)
	if err != nil {
		return fmt.Errorf("cancel what %s asked for under its old certificate: %w", req.AgentID, err)
	}
	asked, err := c.inbox.DropFrom(ctx, req.AgentID, why)
	if err != nil {
		return fmt.Errorf("decline what %s asked under its old certificate: %w", req.AgentID, err)
	}
	if n += asked; n > 0 {
		c.log.Info("requests made under a replaced certificate canceled", "component", "tasks", "agent", req.AgentID, "count", n)
	}
	return nil
}

// Refuse drops a pending trust request, or stops trusting a pinned peer
// and cancels its requests still waiting for the owner.
func (c *Core) Refuse(ctx context.Context, req RefuseRequest) error {
	if err := c.peers.Refuse(ctx, req.Fingerprint); err != nil {
		return err
	}
	return c.cancelUntrusted(ctx)
}

// announceParams is this agent's announcement to the peer agentID ("":
// one known only by its endpoint), listing the contexts it may read.
func (c *Core) announceParams(agentID string) wire.DiscoverParams {
	cfg := c.config()
	return wire.DiscoverParams{AgentID: cfg.Agent.ID, Capabilities: c.capabilitiesFor(c.peerSubject(agentID)), Announce: true, SelfOnly: true,
		Role: cfg.Agent.Role, Owner: cfg.Agent.Owner, Endpoint: c.advertisedEndpoint(), AOIVersion: wire.ProtocolVersion}
}

// advertisedEndpoint is the address peers should call us back on.
func (c *Core) advertisedEndpoint() string { return c.Addr() }
