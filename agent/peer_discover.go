package agent

import (
	"context"
	"net"
	"strings"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// handleDiscover records an announcing peer and returns the registry.
func (c *Core) handleDiscover(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.DiscoverParams
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := peers.CheckVersion(p.AOIVersion); err != nil {
		return nil, err
	}
	if p.Announce {
		if !wire.ValidAgentID(p.AgentID) || (p.Role != "" && !wire.ValidAgentID(p.Role)) {
			return nil, errs.Invalid("agent_id and role must be 1–63 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit")
		}
		if err := c.bindAnnounce(ctx, call, p); err != nil {
			return nil, err
		}
	} else if call.Caller.AgentID == "" {
		return nil, errs.Denied("unknown caller; announce yourself first (aoi.discover with announce: true)", nil)
	}
	if p.SelfOnly {
		return wire.DiscoverResult{Agents: []wire.RegistryEntry{c.selfEntry()}, AOIVersion: wire.ProtocolVersion}, nil
	}
	entries, err := c.registryEntries(ctx, p)
	if err != nil {
		return nil, err
	}
	return wire.DiscoverResult{Agents: entries, AOIVersion: wire.ProtocolVersion}, nil
}

// bindAnnounce updates the registry from an announcement. In direct mode the
// caller is already pinned to an id; in tailnet mode the first node to
// announce an id is bound to it and later claims from other nodes are refused.
func (c *Core) bindAnnounce(ctx context.Context, call *rpc.Call, p wire.DiscoverParams) error {
	caller := call.Caller
	if caller.AgentID != "" && caller.AgentID != p.AgentID {
		return c.checkFrom(ctx, call, p.AgentID, "")
	}
	rec, found, err := c.db.Peer(ctx, p.AgentID)
	if err != nil {
		return err
	}
	if caller.Kind == rpc.CallerTailnet && found && !nodeMayClaim(rec, caller) {
		return c.checkFrom(ctx, call, p.AgentID, "")
	}
	if !found {
		rec = store.PeerRecord{AgentID: p.AgentID, FirstSeen: c.now(), Trust: TrustPinned}
	}
	if caller.Kind == rpc.CallerTailnet {
		rec.NodeID, rec.NodeName = caller.NodeID, caller.NodeName
		if ep := tailnetEndpoint(caller.Addr, p.Endpoint); ep != "" {
			rec.Endpoint = ep // the WhoIs-verified address, not a claim
		}
	}
	// The announced role is information only: ACL rules match the role the
	// owner gave the peer (rec.Role), never what the peer says it is.
	rec.AnnouncedRole, rec.Owner, rec.Status, rec.LastSeen = p.Role, p.Owner, PeerOnline, c.now()
	if p.Endpoint != "" && rec.Endpoint == "" {
		rec.Endpoint = p.Endpoint
	}
	rec.Contexts = peers.ContextIDs(p.Capabilities.Contexts)
	rec.TaskTypes = p.Capabilities.TaskTypes
	if err := c.db.Write(ctx, func(tx *store.Tx) error { return tx.UpsertPeer(rec) }); err != nil {
		return err
	}
	c.peers.RememberCaller(caller.Key(), p.AgentID, rec.Role)
	c.peers.Exchanged(p.AgentID)
	c.events.Publish(EventPeerChanged, p.AgentID, p.AgentID, "announced")
	c.outbox.Wake()
	return nil
}

// nodeMayClaim reports whether a tailnet caller may speak for rec's agent:
// the id is unbound, bound to this node, or pinned in the config to this
// node's name.
func nodeMayClaim(rec store.PeerRecord, caller rpc.Caller) bool {
	if rec.NodeID != "" {
		return rec.NodeID == caller.NodeID
	}
	if rec.NodeName != "" {
		return sameNode(rec.NodeName, caller.NodeName)
	}
	return true
}

// sameNode compares a configured node name (short or full) with WhoIs's
// full name.
func sameNode(configured, actual string) bool {
	configured, actual = strings.TrimSuffix(configured, "."), strings.TrimSuffix(actual, ".")
	short, _, _ := strings.Cut(actual, ".")
	return strings.EqualFold(configured, actual) || strings.EqualFold(configured, short)
}

// tailnetEndpoint is where a tailnet caller serves: its verified tailnet IP
// with the port it announced, or "" if either is missing.
func tailnetEndpoint(remoteAddr, announced string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	_, port, err2 := net.SplitHostPort(announced)
	if err != nil || err2 != nil || host == "" || port == "" {
		return ""
	}
	return net.JoinHostPort(host, port)
}

// registryEntries is this agent followed by the registry, filtered.
func (c *Core) registryEntries(ctx context.Context, p wire.DiscoverParams) ([]wire.RegistryEntry, error) {
	recs, err := c.db.Peers(ctx)
	if err != nil {
		return nil, err
	}
	out := []wire.RegistryEntry{c.selfEntry()}
	for _, r := range recs {
		v := c.peers.View(r)
		if (p.FilterRole != "" && v.Role != p.FilterRole) || (p.FilterStatus != "" && v.Status != p.FilterStatus) {
			continue
		}
		out = append(out, wire.RegistryEntry{Endpoint: v.Endpoint, Status: v.Status, Identity: wire.Identity{
			ID: v.AgentID, Role: v.Role, Owner: v.Owner, TailscaleNodeID: r.NodeID,
			RegisteredAt: r.FirstSeen, LastSeenAt: r.LastSeen,
			Capabilities: wire.Capabilities{Contexts: contextRefs(v.Contexts), TaskTypes: v.TaskTypes},
		}})
	}
	return out, nil
}

// selfEntry describes this agent for discovery.
func (c *Core) selfEntry() wire.RegistryEntry {
	cfg := c.config()
	status := PeerOnline
	switch {
	case c.inbox.FocusActive():
		status = PeerBusy
	case c.assistantAway():
		status = PeerAway
	}
	return wire.RegistryEntry{Endpoint: c.Addr(), Status: status, Identity: wire.Identity{
		ID: cfg.Agent.ID, Role: cfg.Agent.Role, Owner: cfg.Agent.Owner,
		RegisteredAt: c.startedAt, LastSeenAt: c.now(), Capabilities: c.capabilities(),
		Metadata: map[string]any{"version": wire.ProtocolVersion},
	}}
}

// capabilities is this agent's manifest: its contexts and task types.
func (c *Core) capabilities() wire.Capabilities {
	cfg := c.config()
	caps := wire.Capabilities{Actions: []string{"query.send", "query.respond", "context.read"}}
	for _, ctxCfg := range cfg.Contexts {
		caps.Contexts = append(caps.Contexts, wire.ContextReference{Type: ctxCfg.Type, Identifier: ctxCfg.Identifier})
	}
	for name := range cfg.Tasks {
		caps.TaskTypes = append(caps.TaskTypes, name)
	}
	if len(caps.TaskTypes) > 0 {
		caps.Actions = append(caps.Actions, "task.execute")
	}
	return caps
}

func contextRefs(ids []string) []wire.ContextReference {
	out := make([]wire.ContextReference, 0, len(ids))
	for _, id := range ids {
		out = append(out, wire.ContextReference{Type: "repository", Identifier: id})
	}
	return out
}
