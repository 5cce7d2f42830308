package messaging

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// conversation is a page of a thread's or a task's whole conversation:
// the messages received in it and those this agent sent in it, in time
// order, so `aoi messages --thread` (--task) reads as it was said and not
// as its received half (the tenth walk). f.Limit counts every row shown,
// sent ones included (it counted the received ones only, the twelfth
// walk). A page starts after a received message (f.AfterSeq) or after a
// sent one (f.AfterMessage), and names its last row for the next page the
// same way, so paging shows each message once.
func (m *Messenger) conversation(ctx context.Context, f InboxFilter) (InboxPage, error) {
	limit := store.MessagePageLimit(f.Limit)
	sent, err := m.DB.SentMessages(ctx, f.ThreadID, f.TaskID)
	if err != nil {
		return InboxPage{}, err
	}
	c, err := m.pageCursor(ctx, f, sent)
	if err != nil {
		return InboxPage{}, err
	}
	parties, err := m.parties(ctx, f, sent)
	if err != nil {
		return InboxPage{}, err
	}
	recs, more, err := m.DB.FilterMessages(ctx, store.MessageFilter{AfterSeq: f.AfterSeq, ReceivedAfter: c.receivedAfter,
		Type: f.Type, TaskID: f.TaskID, ThreadID: f.ThreadID, From: parties, Limit: limit})
	if err != nil {
		return InboxPage{}, err
	}
	rows := make([]Message, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, View(r))
	}
	var upto time.Time // zero: no received message follows this page's
	if more && len(recs) > 0 {
		upto = recs[len(recs)-1].ReceivedAt // later sent ones belong to a later page
	}
	for _, r := range sent[c.sentFrom:] {
		if r.CreatedAt.Before(c.sentSince) || (!upto.IsZero() && r.CreatedAt.After(upto)) {
			continue
		}
		if msg, ok := sentView(r); ok && (f.Type == "" || msg.Type == f.Type) {
			rows = append(rows, msg)
		}
	}
	// Stable: at the same instant a received message comes first, as the
	// cursors assume.
	slices.SortStableFunc(rows, func(a, b Message) int { return a.At().Compare(b.At()) })
	if len(rows) > limit {
		rows, more = rows[:limit], true
	}
	page := conversationPage(rows, f.AfterSeq, more)
	page.Others, err = m.others(ctx, f, parties)
	return page, err
}

// parties are the peers a thread's or a task's conversation is held
// with: those this agent wrote to in it, and the peer that started it
// (its first message, when a peer wrote it). Another peer may name the
// same thread or task (a task id such as T-1 is another owner's too; a
// thread id can be passed on): its messages are no part of this
// conversation and are not shown as if they were (the attack pass's
// third peer read as a reply in the owner's thread); others counts them.
// nil: nothing of the conversation is stored here, nobody is kept out.
func (m *Messenger) parties(ctx context.Context, f InboxFilter, sent []store.OutboxRecord) ([]string, error) {
	var out []string
	for _, r := range sent {
		if !slices.Contains(out, r.To) {
			out = append(out, r.To)
		}
	}
	first, found, err := m.DB.FirstInConversation(ctx, f.ThreadID, f.TaskID)
	if err != nil || !found {
		return out, err
	}
	startedHere := len(sent) > 0 && (sent[0].ID == f.ThreadID || sent[0].CreatedAt.Before(first.ReceivedAt))
	if (f.ThreadID != "" && first.MsgID == f.ThreadID) || !startedHere {
		if !slices.Contains(out, first.From) {
			out = append(out, first.From)
		}
	}
	return out, nil
}

// others counts, by sender, the messages naming f's thread or task that
// parties leaves out (nil when none is).
func (m *Messenger) others(ctx context.Context, f InboxFilter, parties []string) (map[string]int, error) {
	if len(parties) == 0 {
		return nil, nil
	}
	return m.DB.OthersInConversation(ctx, f.ThreadID, f.TaskID, parties)
}

// conversationPage is rows as a page: LastID the last received message
// shown, LastMessageID the last row's message id when this agent sent it.
func conversationPage(rows []Message, afterSeq int64, more bool) InboxPage {
	page := InboxPage{Messages: rows, LastID: afterSeq, More: more}
	for _, r := range rows {
		if !r.Sent {
			page.LastID = max(page.LastID, r.Seq)
		}
	}
	if n := len(rows); n > 0 && rows[n-1].Sent {
		page.LastMessageID = rows[n-1].MessageID
	}
	return page
}

// cursor is where a conversation's page starts: received messages after
// receivedAfter (and f.AfterSeq), sent ones from index sentFrom of the
// conversation's sent messages, not before sentSince.
type cursor struct {
	receivedAfter time.Time
	sentFrom      int
	sentSince     time.Time
}

// pageCursor reads where f starts a page: after the sent message
// f.AfterMessage, else after the received message f.AfterSeq (a message
// sent at the instant it arrived comes after it).
func (m *Messenger) pageCursor(ctx context.Context, f InboxFilter, sent []store.OutboxRecord) (cursor, error) {
	if f.AfterMessage != "" {
		if !wire.ValidID(f.AfterMessage) {
			return cursor{}, errs.Invalid("the message to start after is not a message id (m-…)")
		}
		i := slices.IndexFunc(sent, func(r store.OutboxRecord) bool { return r.ID == f.AfterMessage })
		if i < 0 {
			return cursor{}, errs.NotFound("no message %s was sent in this conversation (or it was pruned); list it from the start", f.AfterMessage)
		}
		return cursor{receivedAfter: sent[i].CreatedAt, sentFrom: i + 1}, nil
	}
	from, err := m.pageStart(ctx, f.AfterSeq)
	return cursor{sentSince: from}, err
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
