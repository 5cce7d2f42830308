package messaging

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// withSent merges into a thread's or a task's page the messages this
// agent sent in it, in time order, so `aoi messages --thread` (--task)
// reads as the conversation and not as its received half (the tenth
// walk). A sent message goes on the
// page whose received messages span its time: after the message the page
// starts after (AfterSeq), and up to the page's last message when more
// follow, so paging shows each sent message once.
func (m *Messenger) withSent(ctx context.Context, f InboxFilter, page *InboxPage) error {
	from, err := m.pageStart(ctx, f.AfterSeq)
	if err != nil {
		return err
	}
	var upto time.Time // zero: no end, this is the last page
	if page.More && len(page.Messages) > 0 {
		upto = page.Messages[len(page.Messages)-1].ReceivedAt
	}
	sent, err := m.DB.SentMessages(ctx, f.ThreadID, f.TaskID)
	if err != nil {
		return err
	}
	for _, r := range sent {
		if r.CreatedAt.Before(from) || (!upto.IsZero() && r.CreatedAt.After(upto)) {
			continue
		}
		if msg, ok := sentView(r); ok && (f.Type == "" || msg.Type == f.Type) {
			page.Messages = append(page.Messages, msg)
		}
	}
	slices.SortStableFunc(page.Messages, func(a, b Message) int { return a.At().Compare(b.At()) })
	return nil
}

// pageStart is when the message a page starts after arrived (zero for the
// first page, or when that message is gone).
func (m *Messenger) pageStart(ctx context.Context, afterSeq int64) (time.Time, error) {
	if afterSeq <= 0 {
		return time.Time{}, nil
	}
	recs, err := m.DB.Messages(ctx, afterSeq-1, 1)
	if err != nil || len(recs) == 0 || recs[0].Seq != afterSeq {
		return time.Time{}, err
	}
	return recs[0].ReceivedAt, nil
}

// sentView is a sent aoi.message as the front ends show it.
func sentView(r store.OutboxRecord) (Message, bool) {
	var p wire.MessageParams
	if json.Unmarshal(r.Params, &p) != nil {
		return Message{}, false
	}
	return Message{Sent: true, From: p.From, To: r.To, SentAt: r.CreatedAt, Delivery: delivery(r),
		Event: p.Type, Type: p.Type, Data: p.Payload, TaskID: p.TaskID, ThreadID: p.ThreadID, ReplyTo: p.ReplyTo,
		Origin: p.Origin, Priority: p.Priority, MessageID: p.ID, Read: true, AssistantSeen: true}, true
}

// delivery names what became of a sent message.
func delivery(r store.OutboxRecord) string {
	switch {
	case r.State == store.OutboxPending && r.Refused:
		return "refused"
	case r.State == store.OutboxPending:
		return "queued"
	}
	return r.State
}

// RepliedText is the text of the message this agent sent peer that a
// reply from peer names (replyTo), "" when no such message is kept: what
// the reply answers, for the owner's inbox ("re “…”"), as an answer to a
// question names the question.
func (m *Messenger) RepliedText(ctx context.Context, replyTo, peer string) string {
	if replyTo == "" {
		return ""
	}
	sent, found, err := m.DB.Outbox(ctx, replyTo)
	if err != nil || !found || sent.Method != wire.MethodMessage || sent.To != peer {
		return ""
	}
	var p wire.MessageParams
	if json.Unmarshal(sent.Params, &p) != nil {
		return ""
	}
	return payloadSummary(p.Payload)
}
