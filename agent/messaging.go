package agent

import (
	"context"

	"github.com/aoi-protocol/aoi/agent/messaging"
)

// Typed messages between assistants live in agent/messaging; the core
// wires a Messenger and implements MessagingService's typed half by
// delegating to it.

// Coordination task states and sides (seed 004); see agent/messaging.
const (
	CoordAssigned   = messaging.CoordAssigned
	CoordInProgress = messaging.CoordInProgress
	CoordReview     = messaging.CoordReview
	CoordDone       = messaging.CoordDone
	CoordFailed     = messaging.CoordFailed

	SideRequester = messaging.SideRequester
	SideAssignee  = messaging.SideAssignee
)

// PeerAway: the agent runs, but its coding assistant has not checked its
// messages within network.assistant_away_after_sec.
const PeerAway = "away"

// newMessenger wires typed messaging to the core's parts; it needs the
// peer API (CheckFrom and the refusal audit rows).
func (c *Core) newMessenger() *messaging.Messenger {
	return &messaging.Messenger{DB: c.db, Peers: c.peers, Outbox: c.outbox, PeerAPI: c.peerAPI,
		Config: c.config, Policy: c.policy.Load, Now: c.now, Log: c.log,
		Redact: c.redactOut, Redactor: c.redactorFor,
		Publish: func(kind, id, agent, summary string) { c.events.Publish(kind, id, agent, summary) }}
}

// SendMessage implements MessagingService (messaging.Messenger.SendMessage).
func (c *Core) SendMessage(ctx context.Context, req SendMessageRequest) (SentMessage, error) {
	return c.msgs.SendMessage(ctx, req)
}

// Inbox implements MessagingService (messaging.Messenger.Inbox).
func (c *Core) Inbox(ctx context.Context, f InboxFilter) (InboxPage, error) {
	return c.msgs.Inbox(ctx, f)
}

// CoordTasks implements MessagingService (messaging.Messenger.CoordTasks).
func (c *Core) CoordTasks(ctx context.Context, req CoordTasksRequest) ([]CoordTask, error) {
	return c.msgs.CoordTasks(ctx, req)
}

// assistantAway reports whether the coding assistant has polled before but
// not within network.assistant_away_after_sec.
func (c *Core) assistantAway() bool { return c.msgs.AssistantAway() }
