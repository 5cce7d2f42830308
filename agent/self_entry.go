package agent

import "github.com/aoi-protocol/aoi/agent/wire"

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
