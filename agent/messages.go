package agent

import (
	"context"
	"strconv"
	"strings"

	"github.com/aoi-protocol/aoi/agent/messaging"
	"github.com/aoi-protocol/aoi/store"
)

// Messages lists received notifications after a sequence number and marks
// them read.
func (c *Core) Messages(ctx context.Context, req MessagesRequest) ([]Message, error) {
	recs, err := c.db.Messages(ctx, req.AfterSeq, limitOr(req.Limit, 100))
	if err != nil {
		return nil, err
	}
	out := make([]Message, 0, len(recs))
	for _, r := range recs {
		m := messaging.View(r)
		if r.RelatedID != "" {
			if a, found, err := c.db.Ask(ctx, r.RelatedID); err == nil && found {
				m.Question = a.Text
			}
		}
		if r.Type != "" && m.Question == "" {
			m.Question = c.msgs.RepliedText(ctx, r.ReplyTo, r.From)
		}
		out = append(out, m)
	}
	return out, nil
}

// MarkMessagesRead marks the owner's messages read up to uptoSeq, or the
// ones req.Seqs names alone.
func (c *Core) MarkMessagesRead(ctx context.Context, req MarkReadRequest) error {
	if len(req.Seqs) > 0 {
		return c.markSomeRead(ctx, req.Seqs)
	}
	uptoSeq := req.UptoSeq
	if uptoSeq <= 0 {
		return nil
	}
	err := c.db.Write(ctx, func(tx *store.Tx) error { return tx.MarkMessagesRead(uptoSeq) })
	if err == nil {
		c.events.Publish(EventMessagesRead, strconv.FormatInt(uptoSeq, 10), "", "")
	}
	return err
}

// markSomeRead marks the messages seqs names read, leaving those between
// them unread, and tells the front ends which.
func (c *Core) markSomeRead(ctx context.Context, seqs []int64) error {
	err := c.db.Write(ctx, func(tx *store.Tx) error { return tx.MarkMessagesReadSeqs(seqs) })
	if err == nil {
		ids := make([]string, len(seqs))
		for i, s := range seqs {
			ids[i] = strconv.FormatInt(s, 10)
		}
		c.events.Publish(EventMessagesReadSome, strings.Join(ids, ","), "", "")
	}
	return err
}
