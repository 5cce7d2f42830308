package agent

import (
	"context"
	"time"

	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// Redrafting: a question that waits for the owner keeps the draft the
// secretary made when it arrived. Asked before the mirror had indexed the
// work (a repository added a moment before), that draft says "No recorded
// work matches …", and the owner opening it later would read (or send)
// that. So the drafts of waiting questions are made again now and then,
// and a better one replaces the old; nothing is sent.
const (
	redraftEvery  = 30 * time.Second
	redraftWindow = 24 * time.Hour // questions older than this keep their draft
	maxRedrafts   = 20             // per round, so a long queue costs little
)

// redraftLoop runs RedraftWaiting every redraftEvery until ctx ends.
func (c *Core) redraftLoop(ctx context.Context) {
	for {
		if backoff.Sleep(ctx, c.clock, redraftEvery) != nil {
			return
		}
		if _, err := c.RedraftWaiting(ctx); err != nil && ctx.Err() == nil {
			c.log.Warn("redraft waiting questions", "component", "secretary", "err", err)
		}
	}
}

// RedraftWaiting drafts again the answers of questions waiting for the
// owner (escalated or buffered, received within redraftWindow) whose
// draft is below the auto-respond threshold, keeping a new draft only when
// the secretary is surer of it. It returns how many drafts it replaced.
// The core runs it every redraftEvery; tests call it to run one round.
func (c *Core) RedraftWaiting(ctx context.Context) (int, error) {
	if c.sec == nil {
		return 0, nil
	}
	// A draft only improves when the mirror changed: with the same events
	// the secretary would answer the same, so an idle round costs one read
	// (a question that arrived since was drafted on arrival).
	low, high, err := c.db.ContextSpan(ctx)
	if err != nil {
		return 0, err
	}
	span := [2]int64{low, high}
	if last := c.redraftSpan.Swap(&span); last != nil && *last == span {
		return 0, nil
	}
	threshold := c.config().Secretary.InterruptControl.AutoRespondThreshold
	replaced, tried := 0, 0
	for _, state := range []string{QueryEscalated, QueryBuffered} {
		qs, err := c.db.Queries(ctx, state, maxRedrafts)
		if err != nil {
			return replaced, err
		}
		for _, q := range qs {
			if tried >= maxRedrafts {
				return replaced, nil
			}
			if q.Confidence >= threshold || c.now().Sub(q.ReceivedAt) > redraftWindow {
				continue
			}
			tried++
			ok, err := c.redraft(ctx, q)
			if err != nil {
				return replaced, err
			}
			if ok {
				replaced++
			}
		}
	}
	return replaced, nil
}

// redraft asks the secretary about q again, as its asker (under the ACL in
// force now), and stores the new draft if it is surer than the old one.
func (c *Core) redraft(ctx context.Context, q store.QueryRecord) (bool, error) {
	h, ok, err := c.secretaryDecide(ctx, rpc.Caller{AgentID: q.From},
		wire.QueryParams{From: q.From, Query: q.Text, ContextScope: q.ContextScope, Priority: q.Priority})
	if err != nil || !ok || h.Draft == nil || h.Confidence <= q.Confidence {
		return false, nil // an error here is the question's, not the loop's
	}
	draft := wire.MustJSON(h.Draft)
	if err := c.db.Write(ctx, func(tx *store.Tx) error {
		return tx.SetQueryDecision(q.ID, q.Decision, h.Confidence, draft, h.Sources)
	}); err != nil {
		return false, err
	}
	c.events.Publish(events.QueryUpdated, q.ID, q.From, "draft refreshed")
	return true, nil
}
