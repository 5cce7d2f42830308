package agent

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// selfEntry describes this agent for discovery, to viewer: the contexts it
// lists are those viewer may read, so a peer learns no name (acme/payroll)
// of what it is kept out of.
func (c *Core) selfEntry(viewer acl.Subject) wire.RegistryEntry {
	cfg := c.config()
	return wire.RegistryEntry{Endpoint: c.Addr(), Status: c.selfStatus(), Identity: wire.Identity{
		ID: cfg.Agent.ID, Role: cfg.Agent.Role, Owner: cfg.Agent.Owner,
		RegisteredAt: c.startedAt, LastSeenAt: c.now(), Capabilities: c.capabilitiesFor(viewer),
		Metadata: map[string]any{"version": wire.ProtocolVersion},
	}}
}

// selfStatus is what this agent tells peers of itself: busy in focus,
// away when the coding assistant is, else online.
func (c *Core) selfStatus() string {
	switch {
	case c.inbox.FocusActive():
		return PeerBusy
	case c.assistantAway():
		return PeerAway
	}
	return PeerOnline
}

// capabilitiesFor is this agent's manifest as viewer may see it: the
// contexts viewer may read, and the task types it may ask for.
func (c *Core) capabilitiesFor(viewer acl.Subject) wire.Capabilities {
	cfg := c.config()
	policy := c.policy.Load()
	caps := wire.Capabilities{Actions: []string{"query.send", "query.respond", "context.read"}}
	for _, ctxCfg := range cfg.Contexts {
		if policy.Check(viewer, acl.Read, ctxCfg.Identifier).Allowed {
			caps.Contexts = append(caps.Contexts, wire.ContextReference{Type: ctxCfg.Type, Identifier: ctxCfg.Identifier})
		}
	}
	// By name: a map's order changes from one announce to the next, and
	// the peer's lists ("it offers lint, run_tests") should read the same.
	for _, name := range slices.Sorted(maps.Keys(cfg.Tasks)) {
		tt := cfg.Tasks[name]
		if policy.MayRunIn(viewer, tt.Context, contextIDs(cfg.Contexts)) {
			caps.TaskTypes = append(caps.TaskTypes, name)
			if len(tt.Params) > 0 {
				if caps.TaskParams == nil {
					caps.TaskParams = map[string][]wire.TaskParam{}
				}
				caps.TaskParams[name] = taskParams(tt.Params)
			}
		}
	}
	if len(caps.TaskTypes) > 0 {
		caps.Actions = append(caps.Actions, "task.execute")
	}
	return caps
}

// taskParams lists a task type's declared parameters, the required ones
// first (what a request must give reads first), each group by name, as
// aoi.discover tells a peer that may ask for it (the pattern stays here:
// its refusal says what a value must look like).
func taskParams(params map[string]config.Param) []wire.TaskParam {
	out := make([]wire.TaskParam, 0, len(params))
	for name, p := range params {
		out = append(out, wire.TaskParam{Name: name, Description: p.Description, Required: p.Required, Default: p.Default, Enum: p.Enum, Type: p.Type})
	}
	slices.SortFunc(out, func(a, b wire.TaskParam) int {
		if a.Required != b.Required {
			if a.Required {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// contextIDs are the identifiers of contexts.
func contextIDs(cs []config.Context) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.Identifier
	}
	return ids
}

// peerSubject is the ACL's view of the pinned peer agentID ("" for one
// known only by its endpoint: no rule naming an agent or a role covers it).
func (c *Core) peerSubject(agentID string) acl.Subject {
	s := acl.Subject{AgentID: agentID}
	if agentID == "" {
		return s
	}
	if rec, found, err := c.db.Peer(context.Background(), agentID); err == nil && found {
		s.Role = rec.Role
	}
	return s
}
