package peerapi

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// handleDiscover records an announcing peer and returns the registry.
func (a *API) handleDiscover(ctx context.Context, call *rpc.Call) (any, error) {
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
		if err := a.bindAnnounce(ctx, call, p); err != nil {
			return nil, err
		}
	} else if call.Caller.AgentID == "" {
		return nil, errs.Denied("unknown caller; announce yourself first (aoi.discover with announce: true)", nil)
	}
	if p.SelfOnly {
		return wire.DiscoverResult{Agents: []wire.RegistryEntry{a.Self(a.Subject(call.Caller))}, AOIVersion: wire.ProtocolVersion}, nil
	}
	entries, err := a.registryEntries(ctx, p, a.Subject(call.Caller))
	if err != nil {
		return nil, err
	}
	return wire.DiscoverResult{Agents: entries, AOIVersion: wire.ProtocolVersion}, nil
}

// bindAnnounce updates the registry from an announcement. In direct mode the
// caller is already pinned to an id; in tailnet mode the first node to
// announce an id is bound to it and later claims from other nodes are refused.
//
// The record is read, changed and stored in one write, and the caller is
// not cached here: a refusal or a role taken away by the owner while the
// announce was on its way stays (the attack run re-pinned a refused peer by
// announcing while the owner refused it, and its cached id let it in
// after).
func (a *API) bindAnnounce(ctx context.Context, call *rpc.Call, p wire.DiscoverParams) error {
	caller := call.Caller
	if caller.AgentID != "" && caller.AgentID != p.AgentID {
		return a.CheckFrom(ctx, call, p.AgentID, "")
	}
	if p.AgentID == a.Config().Agent.ID {
		// No node takes this agent's own id: its calls would pass for
		// this agent's own.
		a.AuditRefusal(ctx, call, "impersonation", map[string]any{"claimed": p.AgentID})
		return errs.Denied("that is this agent's own id; announce yourself under yours", map[string]any{"claimed_from": p.AgentID})
	}
	// The announced role is information only: ACL rules match the role the
	// owner gave the peer (rec.Role), never what the peer says it is.
	// The status it tells of itself (busy in focus); missing, online, as
	// is "offline" from one calling right now.
	d := peers.Describe(p.Role, p.Owner, p.Status, p.Capabilities)
	if d.Status == peers.Offline {
		d.Status = peers.Online
	}
	err := a.DB.Write(ctx, func(tx *store.Tx) error {
		rec, found, err := tx.Peer(p.AgentID)
		switch {
		case err != nil:
			return err
		case caller.Kind == rpc.CallerTailnet && found && !nodeMayClaim(rec, caller):
			return errClaimed
		case caller.Kind == rpc.CallerTLS && (!found || rec.Trust != peers.Pinned || rec.Fingerprint != caller.Fingerprint):
			return errUnpinned
		case !found:
			rec = store.PeerRecord{AgentID: p.AgentID, FirstSeen: a.Now(), Trust: peers.Pinned}
		}
		if caller.Kind == rpc.CallerTailnet {
			rec.NodeID, rec.NodeName = caller.NodeID, caller.NodeName
			if ep := tailnetEndpoint(caller.Addr, p.Endpoint); ep != "" {
				rec.Endpoint = ep // the WhoIs-verified address, not a claim
			}
		}
		d.Apply(&rec)
		rec.Status, rec.LastSeen = d.Status, a.Now()
		if caller.Kind == rpc.CallerTLS {
			rec.Endpoint = peers.FollowEndpoint(caller.Addr, p.Endpoint, rec.Endpoint)
		}
		return tx.UpsertPeer(rec)
	})
	switch {
	case errors.Is(err, errClaimed):
		return a.CheckFrom(ctx, call, p.AgentID, "")
	case errors.Is(err, errUnpinned):
		a.AuditRefusal(ctx, call, "unpinned", map[string]any{"fingerprint": caller.Fingerprint})
		return errs.Denied(a.Config().Agent.ID+"'s owner stopped trusting your certificate; ask them to trust it again (aoi peers trust)",
			map[string]any{"fingerprint": caller.Fingerprint})
	case err != nil:
		return err
	}
	a.Peers.Exchanged(p.AgentID)
	a.Publish(events.PeerChanged, p.AgentID, p.AgentID, "announced")
	a.Wake()
	return nil
}

// Why bindAnnounce's write stored nothing.
var (
	errClaimed  = errors.New("the agent id is bound to another tailnet node")
	errUnpinned = errors.New("the caller's pin was removed")
)

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
func (a *API) registryEntries(ctx context.Context, p wire.DiscoverParams, viewer acl.Subject) ([]wire.RegistryEntry, error) {
	recs, err := a.DB.Peers(ctx)
	if err != nil {
		return nil, err
	}
	out := []wire.RegistryEntry{a.Self(viewer)}
	for _, r := range recs {
		v := a.Peers.View(r)
		// The role passed on is the one the peer announced of itself, not
		// the one the owner gave it: that is the owner's ACL classing
		// (which peer gets which rights), theirs alone.
		if (p.FilterRole != "" && v.AnnouncedRole != p.FilterRole) || (p.FilterStatus != "" && v.Status != p.FilterStatus) {
			continue
		}
		// Another peer's contexts and task types are not passed on: it
		// told them to this agent under this agent's rights, and tells
		// each caller what that caller may know when it is asked itself.
		out = append(out, wire.RegistryEntry{Endpoint: v.Endpoint, Status: v.Status, Identity: wire.Identity{
			ID: v.AgentID, Role: v.AnnouncedRole, Owner: v.Owner, TailscaleNodeID: r.NodeID,
			RegisteredAt: r.FirstSeen, LastSeenAt: r.LastSeen,
		}})
	}
	return out, nil
}
