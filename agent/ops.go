package agent

import (
	"context"
	"encoding/json"

	"github.com/aoi-protocol/aoi/agent/ops"
)

// Reports of the ops methods (agent/ops).
type (
	PruneReport  = ops.PruneReport
	AgentExport  = ops.AgentExport
	ForgetReport = ops.ForgetReport
)

// newOps wires retention and personal-data requests (agent/ops) to this
// core's store, config and caches.
func (c *Core) newOps() *ops.Ops {
	return &ops.Ops{
		DB: c.db, Log: c.log, Now: c.now, Clock: c.clock, Config: c.config,
		DataDir: c.dataDir, ConfigPath: c.cfgPath, Self: c.selfID,
		Forgotten: func(agentID string) {
			c.peers.Forget(agentID)
		},
		Publish: func(kind, id, agent, summary string) { c.events.Publish(kind, id, agent, summary) },
	}
}

// Prune removes audit rows, context events, finished tasks (with their
// output directories) and delivered or expired outbox entries older than
// olderThan (ops.Ops.Prune).
func (c *Core) Prune(ctx context.Context, req PruneRequest) (PruneReport, error) {
	return c.ops.Prune(ctx, req.OlderThan)
}

// Export returns, as JSON, every stored row that names agentID
// (ops.Ops.Export).
func (c *Core) Export(ctx context.Context, req AgentRequest) (json.RawMessage, error) {
	return c.ops.Export(ctx, req.AgentID)
}

// Forget deletes everything stored about agentID, keeping the audit chain
// verifiable (ops.Ops.Forget).
func (c *Core) Forget(ctx context.Context, req AgentRequest) (ForgetReport, error) {
	return c.ops.Forget(ctx, req.AgentID)
}
