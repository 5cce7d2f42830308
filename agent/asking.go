package agent

import (
	"context"
	"time"

	"github.com/aoi-protocol/aoi/agent/asking"
	"github.com/aoi-protocol/aoi/agent/events"
)

// newAsker wires what this agent asks of peers (agent/asking) to this
// core's store, peer clients and id.
func (c *Core) newAsker() *asking.Asker {
	return &asking.Asker{DB: c.db, Peers: c.peers, Now: c.now, Self: c.selfID, Redact: c.redactOut, RedactJSON: c.redactBody,
		Outbox: c.outbox, QueueExpiry: func() time.Duration { return c.config().Outbox.Expiry() }}
}

// Ask sends an ad hoc query to a peer and records it so the answer that
// arrives later can be matched by its request id (asking.Asker.Ask).
func (c *Core) Ask(ctx context.Context, req AskRequest) (AskResult, error) {
	res, err := c.asker.Ask(ctx, req)
	if err == nil {
		// An interface shows what waits for an answer: asked from the
		// CLI too.
		c.events.Publish(events.AskSent, res.QueryID, req.To, "")
	}
	return res, err
}

// RequestTask asks a peer to run one of its configured task types
// (asking.Asker.RequestTask).
func (c *Core) RequestTask(ctx context.Context, req TaskRequest) (TaskTicket, error) {
	t, err := c.asker.RequestTask(ctx, req)
	if err == nil {
		c.events.Publish(events.AskSent, t.RequestID, req.To, "")
	}
	return t, err
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
