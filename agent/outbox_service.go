package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/outbox"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// Outbox lists what waits to be delivered to peers (OutboxService).
func (c *Core) Outbox(ctx context.Context) ([]OutboxEntry, error) {
	recs, err := c.db.PendingOutbox(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]OutboxEntry, 0, len(recs))
	for _, r := range recs {
		out = append(out, outboxEntry(r))
	}
	return out, nil
}

func outboxEntry(r store.OutboxRecord) OutboxEntry {
	return OutboxEntry{ID: r.ID, To: r.To, What: outboxWhat(r), Attempts: r.Attempts, LastError: r.LastError,
		Refused: r.Refused, CreatedAt: r.CreatedAt, NextAttemptAt: r.NextAttemptAt, ExpiresAt: r.ExpiresAt}
}

// RetryOutbox tries one waiting entry now (OutboxService): a peer back
// online before its back-off ends (up to a minute, ten after a refusal)
// had its owner waiting with nothing to press. The outcome is read back
// from the store, so the reason is the one `aoi outbox` shows (redacted).
func (c *Core) RetryOutbox(ctx context.Context, req OutboxRetryRequest) (OutboxRetryResult, error) {
	rec, err := c.outbox.RetryNow(ctx, req.ID)
	switch {
	case errors.Is(err, outbox.ErrNotWaiting):
		return OutboxRetryResult{}, errs.NotFound("%s", notWaiting(req.ID, rec))
	case errors.Is(err, outbox.ErrInTurn):
		return OutboxRetryResult{}, errs.Conflict("%s is being sent to %s right now; `aoi outbox` shows how it went in a moment", req.ID, rec.To)
	}
	res := OutboxRetryResult{Entry: outboxEntry(rec), Delivered: err == nil, Expired: errors.Is(err, outbox.ErrExpired)}
	var withheld *outbox.WithheldError
	if errors.As(err, &withheld) {
		res.Withheld, res.Error = true, withheld.Why
	}
	if err == nil || res.Expired || res.Withheld {
		return res, nil
	}
	after, found, rerr := c.db.Outbox(ctx, rec.ID)
	if rerr != nil || !found {
		res.Error = "the try failed"
		return res, rerr
	}
	res.Error, res.NextAttemptAt = after.LastError, after.NextAttemptAt
	return res, nil
}

// notWaiting says why nothing waits under id: an entry that was there
// says what became of it (the walk's retry came a moment after the peer,
// back online, had taken it).
func notWaiting(id string, rec store.OutboxRecord) string {
	what := "the " + outboxWhat(rec) + " " + rec.ID + " to " + rec.To
	switch {
	case rec.State == store.OutboxDelivered && rec.DeliveredAt != nil:
		return fmt.Sprintf("%s was delivered at %s: nothing to retry", what, rec.DeliveredAt.Local().Format("15:04:05"))
	case rec.State == store.OutboxExpired:
		return what + " expired before it was delivered: nothing to retry"
	case rec.State == store.OutboxWithheld:
		return what + " was kept back: the ACL in force no longer lets it go to " + rec.To + " (the audit log says why)"
	case rec.State != "" && rec.State != store.OutboxPending:
		return what + " was withdrawn: nothing to retry"
	}
	return fmt.Sprintf("nothing waits to be sent under %q; `aoi outbox` lists what does", id)
}

// outboxWhat names an entry as the owner knows it.
func outboxWhat(r store.OutboxRecord) string {
	switch r.Method {
	case wire.MethodQuery:
		return "question"
	case wire.MethodTaskExecute:
		return "task request"
	case wire.MethodMessage:
		return "message"
	case wire.MethodNotify:
		var p wire.NotifyParams
		if json.Unmarshal(r.Params, &p) == nil {
			switch p.Event {
			case wire.EventQueryCompleted:
				return "answer"
			case wire.EventTaskCompleted, wire.EventTaskFailed:
				return "task result"
			}
			return p.Event
		}
	}
	return r.Method
}

// DropOutbox withdraws an entry not delivered yet (OutboxService): the
// walk's QA could only watch a message its peer refused be retried every
// minute until it expired. A withdrawn question stops waiting for its
// answer. The audit log records it.
func (c *Core) DropOutbox(ctx context.Context, req OutboxDropRequest) error {
	rec, found, err := c.db.Outbox(ctx, req.ID)
	if err != nil {
		return err
	}
	if !found || rec.State != store.OutboxPending {
		return errs.NotFound("nothing waits to be sent under %q; `aoi outbox` lists what does", req.ID)
	}
	err = c.db.Write(ctx, func(tx *store.Tx) error {
		if err := tx.DropOutbox(rec.ID); err != nil {
			return err
		}
		if rec.Method == wire.MethodQuery || rec.Method == wire.MethodTaskExecute {
			if err := tx.SetAskResult(rec.ID, wire.MustJSON(map[string]string{"error": "withdrawn before " + rec.To + " was reached"})); err != nil {
				return err
			}
		}
		_, err := tx.AppendAudit("owner", "ctl.outbox.drop", "ok", map[string]any{"id": rec.ID, "to": rec.To, "what": outboxWhat(rec)})
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return errs.NotFound("%s was delivered or expired meanwhile", req.ID)
	}
	if err != nil {
		return fmt.Errorf("withdraw %s: %w", req.ID, err)
	}
	c.events.Publish(EventOutboxChanged, rec.ID, rec.To, "dropped")
	return nil
}
