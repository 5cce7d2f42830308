package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
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
		Wake:         func(agentID string) { c.outbox.PeerBack(agentID) }} // the outbox is made after the registry
}

// Peers lists the registry plus pending trust requests.
func (c *Core) Peers(ctx context.Context) ([]Peer, error) { return c.peers.List(ctx) }

// Discover announces this agent to every peer with a known endpoint and
// merges what they know (peers.Registry.Discover).
func (c *Core) Discover(ctx context.Context) ([]Peer, error) { return c.peers.Discover(ctx) }

// Trust pins a peer's fingerprint (and endpoint) in the registry
// (peers.Registry.Trust: ErrInvalid). When it pins a certificate other than
// the one last known for the id (--replace, or a new one after the old was
// refused), what was asked under the old one ends (endOldCertificate).
func (c *Core) Trust(ctx context.Context, req TrustRequest) error {
	before, _, err := c.db.Peer(ctx, req.AgentID)
	if err != nil {
		return err
	}
	if err := c.peers.Trust(ctx, req); err != nil {
		return err
	}
	after, _, err := c.db.Peer(ctx, req.AgentID)
	if err != nil || before.Fingerprint == "" || before.Fingerprint == after.Fingerprint {
		return err
	}
	return c.endOldCertificate(ctx, req.AgentID)
}

// endOldCertificate ends what agentID asked for under the certificate the
// owner has just replaced: its requests waiting for approval, approved and
// running tasks are canceled, its questions waiting are declined without
// an answer, and what waits in the outbox for it is dropped. The owner
// replaces a certificate when its key is lost or taken; an answer or a
// task meant for the old holder must not reach the new one, nor a request
// signed with the old key wait in the Approvals queue looking like theirs.
func (c *Core) endOldCertificate(ctx context.Context, agentID string) error {
	why := agentID + "'s certificate was replaced"
	n, err := c.tasks.CancelFrom(ctx, agentID, why)
	if err != nil {
		return fmt.Errorf("cancel what %s asked for under its old certificate: %w", agentID, err)
	}
	asked, err := c.inbox.DropFrom(ctx, agentID, why)
	if err != nil {
		return fmt.Errorf("decline what %s asked under its old certificate: %w", agentID, err)
	}
	dropped, err := c.dropOutboxFor(ctx, agentID)
	if err != nil {
		return fmt.Errorf("drop what waited to be sent to %s's old certificate: %w", agentID, err)
	}
	if n += asked + dropped; n > 0 {
		c.log.Info("what was asked under a replaced certificate ended", "component", "tasks", "agent", agentID, "count", n)
	}
	return nil
}

// dropOutboxFor expires everything waiting to be sent to agentID.
func (c *Core) dropOutboxFor(ctx context.Context, agentID string) (int, error) {
	pending, err := c.db.OutboxForAgent(ctx, agentID)
	if err != nil || len(pending) == 0 {
		return 0, err
	}
	err = c.db.Write(ctx, func(tx *store.Tx) error {
		for _, r := range pending {
			if err := tx.ExpireOutbox(r.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		return nil
	})
	return len(pending), err
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
		Role: cfg.Agent.Role, Owner: cfg.Agent.Owner, Endpoint: c.advertisedEndpoint(), AOIVersion: wire.ProtocolVersion,
		Status: c.selfStatus()}
}

// advertisedEndpoint is the address peers should call us back on.
func (c *Core) advertisedEndpoint() string { return c.Addr() }

// pinnedFingerprint reports whether fingerprint is a pinned peer's
// certificate (the peer listener's caps close a stranger's idle
// connection first).
func (c *Core) pinnedFingerprint(fingerprint string) bool {
	rec, ok, err := c.db.PeerByFingerprint(context.Background(), fingerprint)
	return err == nil && ok && rec.Trust == peers.Pinned
}
