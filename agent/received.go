package agent

import (
	"context"
	"time"

	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// Queries lists received queries, newest first.
func (c *Core) Queries(ctx context.Context, f QueryFilter) ([]Query, error) {
	recs, err := c.db.Queries(ctx, f.State, limitOr(f.Limit, 200))
	if err != nil {
		return nil, err
	}
	out := make([]Query, 0, len(recs))
	for _, r := range recs {
		out = append(out, queryView(r))
	}
	return out, c.markUndelivered(ctx, recs, out)
}

// markUndelivered sets Undelivered on the answered and declined queries
// whose reply still waits in the outbox.
func (c *Core) markUndelivered(ctx context.Context, recs []store.QueryRecord, out []Query) error {
	replied := false
	for _, r := range recs {
		replied = replied || r.State == inbox.Answered || r.State == inbox.Declined
	}
	if !replied {
		return nil
	}
	waiting, err := c.db.PendingReplies(ctx, wire.MethodNotify)
	if err != nil {
		return err
	}
	for i, r := range recs {
		out[i].Undelivered = r.RequestID != "" && waiting[r.RequestID] && (r.State == inbox.Answered || r.State == inbox.Declined)
	}
	return nil
}

func queryView(r store.QueryRecord) Query {
	return Query{ID: r.ID, From: r.From, AskerID: r.RequestID, Text: r.Text, ContextScope: r.ContextScope, Priority: r.Priority, State: r.State,
		Decision: r.Decision, Confidence: r.Confidence, Draft: r.Draft, Answer: r.Answer, ReceivedAt: r.ReceivedAt, AnsweredAt: r.AnsweredAt}
}

// Answer sends the owner's answer to a received query through the outbox
// (inbox.Inbox.Answer: ErrInvalid, ErrNotFound, ErrConflict).
func (c *Core) Answer(ctx context.Context, req AnswerRequest) error {
	return c.inbox.Answer(ctx, req.QueryID, req.Text)
}

// Decline refuses a received query; the asker is told why
// (inbox.Inbox.Decline: ErrNotFound, ErrConflict).
func (c *Core) Decline(ctx context.Context, req DeclineRequest) error {
	return c.inbox.Decline(ctx, req.QueryID, req.Reason)
}

// Release answers buffered queries now with the secretary's draft; an empty
// id releases all of them (inbox.Inbox.Release: ErrNotFound, ErrConflict).
func (c *Core) Release(ctx context.Context, req ReleaseRequest) error {
	return c.inbox.Release(ctx, req.QueryID)
}

// newInbox wires the owner's side of received queries (agent/inbox).
func (c *Core) newInbox() *inbox.Inbox {
	return &inbox.Inbox{DB: c.db, Now: c.now, Notify: c.enqueueNotify, Wake: c.outbox.Wake,
		Redact: c.redactOut, Publish: func(kind, id, agent, summary string) { c.events.Publish(kind, id, agent, summary) },
		Interrupt: func() config.InterruptControl { return c.config().Secretary.InterruptControl }, Log: c.log,
		Unsendable: c.unsendable}
}

// unsendable says why q's draft may not go to its asker now ("" when it
// may) and what would let it: the asker is no longer a trusted peer, or
// the ACL in force now (after a reload, or a new role) no longer lets it
// read the scope it asked about (the same check as on arrival,
// peerapi.ScopeUnreadable), or one of the files, folders or contexts the
// draft was drawn from (a folder rule added inside a scope it may still
// read). A draft stored before its sources were kept has none: its scope
// alone is checked. By the asker's id and the role the owner gave it: the
// tailnet identity of the call that asked is not kept.
func (c *Core) unsendable(q store.QueryRecord) (why, fix string) {
	if !c.stillTrusted(q.From) {
		return q.From + " is no longer a trusted peer here", "to answer it from the draft, trust it again (`aoi peers trust`) and let it ask again"
	}
	subject := c.requesterSubject(q.From)
	if entry, ok := c.peerAPI.ScopeUnreadable(subject, q.ContextScope); !ok {
		return q.From + " may no longer read " + entry + " under the ACL in force now",
			"if it should read it, change the ACL, `aoi reload` and release it again"
	}
	if src, ok := c.peerAPI.SourceUnreadable(subject, q.DraftSources); !ok {
		return q.From + " may no longer read " + src + ", which the draft was drawn from, under the ACL in force now",
			"if it should read it, change the ACL, `aoi reload` and release it again"
	}
	return "", ""
}

// SetFocus turns focus mode on or off by hand; turning it off hands the
// buffered queries to the owner (inbox.Inbox.SetFocus).
func (c *Core) SetFocus(ctx context.Context, req FocusRequest) error {
	if err := c.inbox.SetFocus(ctx, req.On); err != nil {
		return err
	}
	c.announceSoon()
	return nil
}

// announceSoon has announceChanges tell every trusted peer what this
// agent is now.
func (c *Core) announceSoon() {
	select {
	case c.announceNow <- struct{}{}:
	default: // a kick is already waiting
	}
}

// focusLookEvery is how often announceChanges looks whether the focus
// hours began or ended.
const focusLookEvery = 10 * time.Second

// announceChanges tells every trusted peer at once what changed in what
// this agent says of itself: focus beginning or ending, by hand or by the
// focus hours (their Peers pane shows it busy while in focus, which the
// next heartbeat, up to a discovery interval later, would only then say:
// the walk saw "online" a minute into focus and "busy" after it ended),
// and a reload (task types and contexts they may use: the walk's peer
// offered only the old task types until it ran discover).
func (c *Core) announceChanges(ctx context.Context) {
	last := c.inbox.FocusActive()
	for {
		kicked := false
		select {
		case <-ctx.Done():
			return
		case <-c.announceNow:
			kicked = true
		case <-c.clock.After(focusLookEvery):
		}
		on := c.inbox.FocusActive()
		if !kicked && on == last {
			continue
		}
		last = on
		if _, err := c.peers.Round(ctx, 0); err != nil && ctx.Err() == nil {
			c.log.Info("announcing a change failed", "component", "registry", "err", err)
		}
	}
}
