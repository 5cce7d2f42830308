package agent

import (
	"context"
	"fmt"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/wire"
	"regexp"
	"sync"
	"time"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// callerCache maps an authenticated transport identity (fingerprint or
// tailnet node) to its agent id and role, so the hot path does not read the
// registry on every request. Trust changes and announcements update it.
type callerCache struct{ m sync.Map }

type callerInfo struct{ agentID, role string }

func (cc *callerCache) get(key string) (callerInfo, bool) {
	v, ok := cc.m.Load(key)
	if !ok {
		return callerInfo{}, false
	}
	return v.(callerInfo), true
}
func (cc *callerCache) put(key, agentID, role string) { cc.m.Store(key, callerInfo{agentID, role}) }
func (cc *callerCache) clear()                        { cc.m.Clear() }

// seedPeers pins the peers named in the config into the registry.
func (c *Core) seedPeers(ctx context.Context, cfg *config.Config) error {
	return c.db.Write(ctx, func(tx *store.Tx) error {
		for _, p := range cfg.Peers {
			rec, found, err := c.db.Peer(ctx, p.AgentID)
			if err != nil {
				return err
			}
			if !found {
				rec = store.PeerRecord{AgentID: p.AgentID, Status: PeerOffline, FirstSeen: c.now()}
			}
			rec.Trust = TrustPinned
			if p.Endpoint != "" {
				rec.Endpoint = p.Endpoint
			}
			if p.Fingerprint != "" {
				rec.Fingerprint = p.Fingerprint
			}
			if p.TailnetNode != "" {
				rec.NodeName = p.TailnetNode
			}
			if p.Role != "" {
				rec.Role = p.Role // the owner's word, not the peer's
			}
			if err := tx.UpsertPeer(rec); err != nil {
				return fmt.Errorf("config peers: %s: %w", p.AgentID, err)
			}
		}
		return nil
	})
}

// authenticate maps the transport's caller to a registered agent. In direct
// mode an unpinned certificate is refused and recorded as a trust request the
// owner can accept; in tailnet mode an unbound node may only announce itself.
func (c *Core) authenticate(ctx context.Context, caller rpc.Caller) (rpc.Caller, error) {
	if err := c.checkCertExpiry(caller); err != nil {
		return caller, err
	}
	if info, ok := c.callers.get(caller.Key()); ok {
		caller.AgentID = info.agentID
		c.seenCalling(ctx, info.agentID)
		return caller, nil
	}
	switch caller.Kind {
	case rpc.CallerTLS:
		return c.authenticateTLS(ctx, caller)
	case rpc.CallerTailnet:
		return c.authenticateNode(ctx, caller)
	}
	return caller, errs.Denied("unsupported caller kind "+caller.Kind, nil)
}

func (c *Core) authenticateTLS(ctx context.Context, caller rpc.Caller) (rpc.Caller, error) {
	rec, found, err := c.db.PeerByFingerprint(ctx, caller.Fingerprint)
	if err != nil {
		return caller, err
	}
	if found && rec.Trust == TrustPinned {
		if !caller.CertNotAfter.IsZero() && c.now().After(caller.CertNotAfter) {
			c.expiredCerts.Store(rec.AgentID, caller.CertNotAfter)
		}
		c.callers.put(caller.Key(), rec.AgentID, rec.Role)
		caller.AgentID = rec.AgentID
		c.seenCalling(ctx, rec.AgentID)
		return caller, nil
	}
	c.recordTrustRequest(ctx, caller)
	return caller, errs.Denied(
		fmt.Sprintf("certificate %s is not pinned by %s; ask its owner to run `aoi peers trust <your-agent-id> %s`", caller.Fingerprint, c.selfID(), caller.Fingerprint),
		map[string]any{"fingerprint": caller.Fingerprint})
}

func (c *Core) authenticateNode(ctx context.Context, caller rpc.Caller) (rpc.Caller, error) {
	rec, found, err := c.db.PeerByNode(ctx, caller.NodeID)
	if err != nil {
		return caller, err
	}
	if found {
		c.callers.put(caller.Key(), rec.AgentID, rec.Role)
		caller.AgentID = rec.AgentID
	}
	return caller, nil
}

// recordTrustRequest remembers an unpinned caller so the owner can accept it
// from the TUI or `aoi peers trust`. Failures are logged, never returned: the
// caller is refused either way.
func (c *Core) recordTrustRequest(ctx context.Context, caller rpc.Caller) {
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		// No audit row here: the peer server audits the refusal itself, as
		// a counted summary per source (rpc/refusals.go).
		// The caller's claimed id and listen endpoint (headers) make the
		// request trustable in one step; its source address is only a
		// fallback (an outgoing port cannot be called back).
		addr := caller.AnnouncedEndpoint
		if addr == "" {
			addr = caller.Addr
		}
		return tx.RecordTrustRequest(caller.Fingerprint, caller.AnnouncedID, addr)
	})
	if err != nil {
		c.log.Warn("record trust request", "component", "registry", "err", err)
		return
	}
	who := caller.Addr
	if caller.AnnouncedID != "" {
		who = caller.AnnouncedID + " (" + caller.Addr + ")"
	}
	c.events.Publish(EventTrustRequested, caller.Fingerprint, "", "unpinned peer "+who+" wants to talk")
	c.events.Publish(EventAttention, caller.Fingerprint, "", "a new peer asks to be trusted")
}

var fingerprintRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Trust pins a peer's fingerprint (and endpoint) in the registry.
func (c *Core) Trust(ctx context.Context, req TrustRequest) error {
	if req.AgentID == "" {
		return errs.Invalid("trust: an agent id is required (aoi peers trust AGENT_ID FINGERPRINT)")
	}
	// Invalid ids are refused without being echoed: they could carry
	// control characters or look-alike letters into the registry and advice.
	if !wire.ValidAgentID(req.AgentID) {
		return errs.Invalid("trust: that agent id is not valid: use 1–63 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit (as ^[a-z0-9][a-z0-9._-]{0,62}$)")
	}
	if req.Role != "" && !wire.ValidAgentID(req.Role) {
		return errs.Invalid("trust: that role is not valid: use 1–63 lower-case letters, digits, '.', '_' or '-' (e.g. pm, engineer)")
	}
	if !fingerprintRE.MatchString(req.Fingerprint) {
		return errs.Invalid("trust: %q is not a certificate fingerprint; copy the 64 hex characters `aoi status` prints on the peer", req.Fingerprint)
	}
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		rec, found, err := c.db.Peer(ctx, req.AgentID)
		if err != nil {
			return err
		}
		if !found {
			rec = store.PeerRecord{AgentID: req.AgentID, Status: PeerOffline, FirstSeen: c.now()}
		}
		rec.Fingerprint, rec.Trust = req.Fingerprint, TrustPinned
		if req.Role != "" {
			rec.Role = req.Role
		}
		if req.Endpoint != "" {
			rec.Endpoint = req.Endpoint
		}
		if err := tx.UpsertPeer(rec); err != nil {
			return err
		}
		if err := tx.DeleteTrustRequest(req.Fingerprint); err != nil {
			return err
		}
		_, err = tx.AppendAudit("owner", "ctl.trust", "ok", req)
		return err
	})
	if err != nil {
		return err
	}
	c.callers.clear()
	c.events.Publish(EventPeerChanged, req.AgentID, req.AgentID, "trusted")
	if req.Announce {
		// Not bound to the caller's request: the CLI has exited by the
		// time a slow peer answers.
		go c.helloAfterTrust(context.WithoutCancel(ctx), req.AgentID)
	}
	return nil
}

// helloAfterTrust announces to a peer the owner has just trusted.
func (c *Core) helloAfterTrust(ctx context.Context, agentID string) {
	if err := c.announceTo(ctx, agentID); err != nil {
		c.log.Info("announce to a newly trusted peer", "component", "registry", "agent_to", agentID, "err", err)
	}
}

// Refuse drops a pending trust request.
func (c *Core) Refuse(ctx context.Context, req RefuseRequest) error {
	fingerprint := req.Fingerprint
	return c.db.Write(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteTrustRequest(fingerprint); err != nil {
			return err
		}
		_, err := tx.AppendAudit("owner", "ctl.refuse", "ok", map[string]any{"fingerprint": fingerprint})
		return err
	})
}

// Peers lists the registry plus pending trust requests.
func (c *Core) Peers(ctx context.Context) ([]Peer, error) {
	recs, err := c.db.Peers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Peer, 0, len(recs))
	for _, r := range recs {
		out = append(out, c.peerView(r))
	}
	reqs, err := c.db.TrustRequests(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range reqs {
		out = append(out, Peer{AgentID: r.ClaimedAgentID, Endpoint: r.Addr, Fingerprint: r.Fingerprint,
			Status: PeerOffline, Trust: TrustPending, LastSeen: r.LastSeen})
	}
	return out, nil
}

// peerView turns a registry record into what front ends see, deriving
// offline from the last heartbeat.
func (c *Core) peerView(r store.PeerRecord) Peer {
	status := r.Status
	if c.now().Sub(r.LastSeen) > c.offlineAfter() {
		status = PeerOffline
	}
	var expired time.Time
	if v, ok := c.expiredCerts.Load(r.AgentID); ok {
		expired = v.(time.Time)
	}
	return Peer{CertExpiredAt: expired, AgentID: r.AgentID, Role: r.Role, AnnouncedRole: r.AnnouncedRole, Owner: r.Owner, Endpoint: r.Endpoint, Fingerprint: r.Fingerprint,
		NodeName: r.NodeName, Status: status, Trust: r.Trust, Contexts: r.Contexts, TaskTypes: r.TaskTypes, LastSeen: r.LastSeen}
}

func (c *Core) offlineAfter() time.Duration {
	return c.config().Network.OfflineAfter()
}
