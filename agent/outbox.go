package agent

import (
	"context"
	"errors"
	"time"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// outbox delivers stored notifications to peers, retrying with exponential
// back-off (1 s, 2 s, 4 s … capped) until delivered or expired. Entries are
// written in the same transaction as the change they report, so nothing is
// lost across a crash; receivers drop duplicates by the notify id, so a
// delivery that succeeded just before a crash is not shown twice.
type outbox struct {
	c    *Core
	kick chan struct{}
}

func newOutbox(c *Core) *outbox { return &outbox{c: c, kick: make(chan struct{}, 1)} }

// wake makes the loop look at the queue now (new entry, peer back online).
func (o *outbox) wake() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// enqueueNotify stores an aoi.notify for a peer inside tx.
func (c *Core) enqueueNotify(tx *store.Tx, to, event, relatedID string, data any) error {
	id := newID("n")
	now := c.now()
	params := wire.NotifyParams{ID: id, From: c.selfID(), To: to, Event: event, RelatedQueryID: relatedID,
		Data: mustJSON(data), Timestamp: now}
	cfg := c.config().Outbox
	return tx.EnqueueOutbox(store.OutboxRecord{ID: id, To: to, Method: wire.MethodNotify, Params: mustJSON(params),
		NextAttemptAt: now, CreatedAt: now, ExpiresAt: now.Add(cfg.Expiry())})
}

// run delivers due entries until ctx ends.
func (o *outbox) run(ctx context.Context) {
	for {
		o.deliverDue(ctx)
		wait := o.untilNext(ctx)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-o.kick:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// untilNext is how long to sleep before the next entry is due (at most 30 s).
func (o *outbox) untilNext(ctx context.Context) time.Duration {
	const maxIdle = 30 * time.Second
	next, ok, err := o.c.db.NextOutboxAt(ctx)
	if err != nil || !ok {
		return maxIdle
	}
	d := next.Sub(o.c.now())
	switch {
	case d < 0:
		return 0
	case d > maxIdle:
		return maxIdle
	}
	return d
}

// deliverDue tries every due entry once.
func (o *outbox) deliverDue(ctx context.Context) {
	due, err := o.c.db.DueOutbox(ctx, o.c.now(), 100)
	if err != nil {
		o.c.log.Error("read outbox", "component", "outbox", "err", err)
		return
	}
	for _, e := range due {
		if ctx.Err() != nil {
			return
		}
		o.deliver(ctx, e)
	}
}

// deliver sends one entry, records the outcome and reports whether the
// peer acknowledged it.
func (o *outbox) deliver(ctx context.Context, e store.OutboxRecord) bool {
	c := o.c
	if c.now().After(e.ExpiresAt) {
		o.expire(ctx, e)
		return false
	}
	err := o.send(ctx, e)
	if err == nil {
		werr := c.db.Write(ctx, func(tx *store.Tx) error { return tx.MarkOutboxDelivered(e.ID, c.now()) })
		if werr != nil {
			c.log.Error("mark delivered", "component", "outbox", "id", e.ID, "err", werr)
		}
		c.log.Info("delivered", "component", "outbox", "agent_to", e.To, "id", e.ID, "attempts", e.Attempts+1)
		return true
	}
	if unreachable(err) {
		c.markOffline(ctx, e.To)
	}
	next := c.now().Add(o.backoff(e.Attempts))
	c.log.Info("delivery failed; will retry", "component", "outbox", "agent_to", e.To, "id", e.ID, "next", next, "err", err)
	if werr := c.db.Write(ctx, func(tx *store.Tx) error { return tx.RescheduleOutbox(e.ID, next, err.Error()) }); werr != nil {
		c.log.Error("reschedule", "component", "outbox", "id", e.ID, "err", werr)
	}
	return false
}

// send delivers as a call (not a JSON-RPC notification) so the peer's
// acknowledgement tells us it was stored. A refusal that retrying cannot fix
// (permission, bad params) still retries until expiry: the owner may fix
// trust or config meanwhile, and the log says why.
func (o *outbox) send(ctx context.Context, e store.OutboxRecord) error {
	client, err := o.c.peers.client(ctx, e.To)
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

// backoff is initial·2^attempts, capped.
func (o *outbox) backoff(attempts int) time.Duration {
	cfg := o.c.config().Outbox
	return backoff.Policy{Base: cfg.InitialBackoff(), Max: cfg.MaxBackoff()}.Delay(attempts)
}

// expire gives up on an entry and audits it.
func (o *outbox) expire(ctx context.Context, e store.OutboxRecord) {
	c := o.c
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		if err := tx.ExpireOutbox(e.ID); err != nil {
			return err
		}
		_, err := tx.AppendAudit(e.To, "outbox.expired", "TIMEOUT", map[string]any{"id": e.ID, "attempts": e.Attempts, "last_error": e.LastError})
		return err
	})
	if err != nil {
		c.log.Error("expire outbox", "component", "outbox", "id", e.ID, "err", err)
	}
}
