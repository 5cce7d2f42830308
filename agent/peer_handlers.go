package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// peerRoutes is the peer API: every aoi.* method and its handler.
func (c *Core) peerRoutes() map[string]rpc.Handler {
	return map[string]rpc.Handler{
		wire.MethodDiscover:    c.handleDiscover,
		wire.MethodPing:        c.handlePing,
		wire.MethodQuery:       c.handleQuery,
		wire.MethodNotify:      c.handleNotify,
		wire.MethodMessage:     c.handleMessage,
		wire.MethodTaskExecute: c.handleTaskExecute,
		wire.MethodTaskStatus:  c.handleTaskStatus,
		wire.MethodTaskCancel:  c.handleTaskCancel,
	}
}

// registerPeerHandlers installs the peer API on the peer server, each
// handler behind the edge that turns domain errors into JSON-RPC errors.
func (c *Core) registerPeerHandlers(s *rpc.Server) {
	for method, h := range c.peerRoutes() {
		s.Handle(method, peerEdge(h))
	}
}

// checkFrom refuses a request whose `from` is not the authenticated caller:
// an impersonation attempt, audited as such.
func (c *Core) checkFrom(ctx context.Context, call *rpc.Call, from, to string) error {
	caller := call.Caller
	if caller.AgentID == "" || from != caller.AgentID {
		who := caller.AgentID
		if who == "" {
			who = caller.Key()
		}
		c.auditRefusal(ctx, call, "impersonation", map[string]any{"claimed": from, "authenticated_as": who})
		return errs.Denied(
			fmt.Sprintf("request says it is from %q but the connection is authenticated as %q; an agent may only speak for itself", from, who),
			map[string]any{"claimed_from": from})
	}
	if to != "" && to != c.selfID() {
		return errs.UnknownPeer(to, fmt.Sprintf("no agent %q is registered here", to))
	}
	return nil
}

// auditRefusal writes a refused call's audit row and marks the call audited.
func (c *Core) auditRefusal(ctx context.Context, call *rpc.Call, kind string, detail map[string]any) {
	detail["refused"] = kind
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit(callerName(call.Caller), call.Method, "PERMISSION_DENIED", detail)
		return err
	})
	if err != nil {
		c.log.Error("audit refusal", "component", "audit", "err", err)
		return
	}
	call.MarkAudited()
}

func callerName(c rpc.Caller) string {
	if c.AgentID != "" {
		return c.AgentID
	}
	return c.Key()
}

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
	case c.focusActive():
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

// handlePing is the heartbeat: it marks the caller online.
func (c *Core) handlePing(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.PingParams
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := c.checkFrom(ctx, call, p.From, ""); err != nil {
		return nil, err
	}
	if err := peers.CheckVersion(p.AOIVersion); err != nil {
		return nil, err
	}
	if err := c.peers.MarkSeen(ctx, p.From); err != nil {
		return nil, err
	}
	return wire.PingResult{AgentID: c.selfID(), Status: c.selfEntry().Status, AOIVersion: wire.ProtocolVersion, Time: c.now()}, nil
}

// handleNotify stores a notification from a peer in the ordered inbox.
// Redelivered notifications (same id) are acknowledged but stored once.
func (c *Core) handleNotify(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.NotifyParams
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := c.checkFrom(ctx, call, p.From, p.To); err != nil {
		return nil, err
	}
	if p.Event == "" {
		return nil, errs.Invalid("params.event is required (e.g. query.completed)")
	}
	if len(p.Data) == 0 {
		p.Data = json.RawMessage("null")
	}
	var seq int64
	var dup bool
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		var err error
		seq, dup, err = tx.InsertMessage(store.MessageRecord{MsgID: p.ID, From: p.From, Event: p.Event,
			RelatedID: p.RelatedQueryID, Data: p.Data, ReceivedAt: c.now()})
		if err != nil || dup {
			return err
		}
		_, err = tx.AppendAudit(p.From, call.Method, "ok", map[string]any{"event": p.Event, "related_query_id": p.RelatedQueryID, "seq": seq})
		return err
	})
	if err != nil {
		return nil, err
	}
	call.MarkAudited()
	if !dup {
		c.events.Publish(EventMessageReceived, fmt.Sprint(seq), p.From, p.Event)
		c.events.Publish(EventAttention, fmt.Sprint(seq), p.From, p.From+": "+p.Event)
	}
	return map[string]any{"received": true, "seq": seq, "duplicate": dup}, nil
}
