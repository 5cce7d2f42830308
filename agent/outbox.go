package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aoi-protocol/aoi/agent/outbox"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/termtext"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// newOutbox wires the delivery loop (agent/outbox) to this core's store,
// config and peer clients.
func (c *Core) newOutbox() *outbox.Outbox {
	return outbox.New(outbox.Outbox{
		DB:     c.db,
		Log:    c.log,
		Now:    c.now,
		Clock:  c.clock,
		Config: func() config.Outbox { return c.config().Outbox },
		Send:   c.sendOutboxEntry,
		Failed: func(ctx context.Context, e store.OutboxRecord, err error) {
			if peers.Unreachable(err) {
				c.peers.MarkOffline(ctx, e.To)
				c.answerWaits(e)
			}
		},
		Refused: c.outboxRefused,
		Delivered: func(_ context.Context, e store.OutboxRecord) {
			// An answer went: its query no longer shows it waiting (a front
			// end that listed it in the moment before may have).
			switch e.Method {
			case wire.MethodNotify:
				c.events.Publish(EventQueryUpdated, e.ID, e.To, "delivered")
			case wire.MethodQuery, wire.MethodTaskExecute:
				c.events.Publish(EventAttention, e.ID, e.To, e.To+" is back: the "+outboxWhat(e)+" you queued for it went out")
			}
		},
		Changed: func(e store.OutboxRecord, state string) {
			c.events.Publish(EventOutboxChanged, e.ID, e.To, state)
		},
		Redact:   func(s string) string { return c.redactOut(termtext.Visible(s)) },
		Withhold: c.withholdAnswer,
	})
}

// outboxRefused tells the owner that a peer refused something queued for
// it (a message, an answer): in words, with the peer's reason, and that it
// is retried until it expires.
func (c *Core) outboxRefused(_ context.Context, e store.OutboxRecord, err error) {
	what := "what you queued for it"
	switch e.Method {
	case wire.MethodMessage:
		what = "the message you sent"
	case wire.MethodNotify:
		what = "an answer or result this agent sends it"
	case wire.MethodQuery, wire.MethodTaskExecute:
		what = "the " + outboxWhat(e) + " you queued for it while it was offline"
	}
	reason := err.Error()
	var answered *rpc.Error
	if errors.As(err, &answered) && answered.Reason() != "" {
		reason = answered.Reason()
	}
	c.events.Publish(EventAttention, e.ID, e.To, fmt.Sprintf("%s refused %s (%s); it is tried again until %s, in case %s's owner changes that",
		e.To, what, termtext.Quote(reason, maxNoticeWords, c.redactOut), e.ExpiresAt.Local().Format("Jan 2 15:04"), e.To))
}

// answerWaits tells the owner, at the first failed try, that an answer
// they sent could not be delivered yet: the interface said "answer sent"
// when the asker had only just gone (the walk's case), and only `aoi
// status` told otherwise.
func (c *Core) answerWaits(e store.OutboxRecord) {
	if e.Attempts > 0 || e.Method != wire.MethodNotify {
		return
	}
	var p wire.NotifyParams
	if json.Unmarshal(e.Params, &p) != nil || p.Event != wire.EventQueryCompleted {
		return
	}
	c.events.Publish(EventAttention, e.ID, e.To, fmt.Sprintf("the answer to %s waits: %s is unreachable; it goes when %s is back (aoi status counts what waits)",
		e.To, e.To, e.To))
}

// maxNoticeWords bounds what a notice quotes of a peer.
const maxNoticeWords = 300

// enqueueNotify stores an aoi.notify for a peer inside tx.
func (c *Core) enqueueNotify(tx *store.Tx, to, event, relatedID string, data any) error {
	return tx.EnqueueOutbox(outbox.Notify(wire.NewID("n"), c.selfID(), to, event, relatedID, wire.MustJSON(data),
		c.now(), c.config().Outbox.Expiry()))
}

// sendOutboxEntry delivers as a call (not a JSON-RPC notification) so the
// peer's acknowledgement tells us it was stored. A refusal that retrying
// cannot fix (permission, bad params) still retries until expiry: the owner
// may fix trust or config meanwhile, and the log says why.
func (c *Core) sendOutboxEntry(ctx context.Context, e store.OutboxRecord) error {
	client, err := c.peers.Client(ctx, e.To)
	if err != nil {
		return err
	}
	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var ack map[string]any
	err = client.CallWithID(callCtx, e.ID, e.Method, e.Params, &ack)
	var rpcErr *rpc.Error
	if errors.As(err, &rpcErr) {
		return rpcErr
	}
	return err
}
