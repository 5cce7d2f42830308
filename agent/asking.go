package agent

import (
	"context"

	"github.com/aoi-protocol/aoi/agent/asking"
)

// newAsker wires what this agent asks of peers (agent/asking) to this
// core's store, peer clients and id.
func (c *Core) newAsker() *asking.Asker {
	return &asking.Asker{DB: c.db, Peers: c.peers, Now: c.now, Self: c.selfID, Redact: c.redactOut, RedactJSON: c.redactBody}
}

// Ask sends an ad hoc query to a peer and records it so the answer that
// arrives later can be matched by its request id (asking.Asker.Ask).
func (c *Core) Ask(ctx context.Context, req AskRequest) (AskResult, error) {
	return c.asker.Ask(ctx, req)
}

// RequestTask asks a peer to run one of its configured task types
// (asking.Asker.RequestTask).
func (c *Core) RequestTask(ctx context.Context, req TaskRequest) (TaskTicket, error) {
	return c.asker.RequestTask(ctx, req)
}

// RemoteTaskStatus asks a peer about a task it runs for us
// (asking.Asker.RemoteTaskStatus).
func (c *Core) RemoteTaskStatus(ctx context.Context, ref RemoteTaskRef) (Task, error) {
	return c.asker.RemoteTaskStatus(ctx, ref)
}

// CancelRemoteTask asks a peer to cancel a task it runs for us
// (asking.Asker.CancelRemoteTask).
func (c *Core) CancelRemoteTask(ctx context.Context, ref RemoteTaskRef) error {
	return c.asker.CancelRemoteTask(ctx, ref)
}
