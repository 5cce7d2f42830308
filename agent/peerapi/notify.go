package peerapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/internal/jsondepth"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// handleNotify stores a notification from a peer in the ordered inbox.
// Redelivered notifications (same id) are acknowledged but stored once.
func (a *API) handleNotify(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.NotifyParams
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := a.CheckFrom(ctx, call, p.From, p.To); err != nil {
		return nil, err
	}
	switch {
	case p.Event == "":
		return nil, errs.Invalid("params.event is required (e.g. query.completed)")
	case len(p.Event) > maxEvent:
		return nil, errs.Invalid("params.event is %d bytes; an event is a name such as query.completed, at most %d", len(p.Event), maxEvent)
	case len(p.ID) > maxNotifyID:
		return nil, errs.Invalid("params.id is %d bytes; an id is at most %d", len(p.ID), maxNotifyID)
	case len(p.RelatedQueryID) > maxNotifyID:
		return nil, errs.Invalid("params.related_query_id is %d bytes; it names a request by its id, at most %d", len(p.RelatedQueryID), maxNotifyID)
	}
	if len(p.Data) == 0 {
		p.Data = json.RawMessage("null")
	}
	answer, err := a.checkNotifier(ctx, call, p)
	if err != nil {
		return nil, err
	}
	if !answer {
		// Let in as aoi.message is, it lands where a message does and
		// is bounded as one (the attack run stored 950 KB this way).
		switch d := jsondepth.Of(p.Data); {
		case len(p.Data) > wire.MaxPayloadBytes:
			return nil, errs.Invalid("params.data is %d bytes of JSON; a notification that answers nothing asked carries at most %d, as an aoi.message payload does", len(p.Data), wire.MaxPayloadBytes)
		case d > wire.MaxPayloadDepth:
			return nil, errs.Invalid("params.data nests %d levels deep; the limit is %d: flatten it", d, wire.MaxPayloadDepth)
		}
	}
	var seq int64
	var dup bool
	err = a.DB.Write(ctx, func(tx *store.Tx) error {
		if answer {
			// Again where the message is stored: two answers sent at
			// once both passed the check above.
			if prev, found, err := tx.AnswerFrom(p.From, p.RelatedQueryID); err != nil || found && (p.ID == "" || prev != p.ID) {
				return cmp.Or(err, errAnswered)
			}
		}
		var err error
		seq, dup, err = tx.InsertMessage(store.MessageRecord{MsgID: p.ID, From: p.From, Event: p.Event,
			RelatedID: p.RelatedQueryID, Data: p.Data, ReceivedAt: a.Now()})
		if err != nil || dup {
			return err
		}
		if !answer { // an answer is bounded by what this agent asked
			if err := a.InboxRoom(tx, p.From); err != nil {
				return err
			}
		}
		_, err = tx.AppendAudit(p.From, call.Method, "ok", map[string]any{"event": p.Event, "related_query_id": p.RelatedQueryID, "seq": seq})
		return err
	})
	if errors.Is(err, errAnswered) {
		return nil, a.refuseSecondAnswer(ctx, call, p)
	}
	if err != nil {
		return nil, a.RefuseInboxFull(ctx, call, err)
	}
	call.MarkAudited()
	if !dup {
		a.Publish(events.MessageReceived, fmt.Sprint(seq), p.From, p.Event)
		a.Publish(events.Attention, fmt.Sprint(seq), p.From, p.From+": "+p.Event)
	}
	return map[string]any{"received": true, "seq": seq, "duplicate": dup}, nil
}

// maxEvent bounds a notification's event name (query.completed,
// task.failed, a sender's own kinds).
const maxEvent = 128

// maxNotifyID bounds a notification's id and related_query_id, as the
// JSON-RPC id a related_query_id names is bounded (rpc.MaxIDBytes): both
// are stored with the message and go into its audit row, and a pinned
// peer's 60 KiB related_query_id was stored whole.
const maxNotifyID = rpc.MaxIDBytes

// checkNotifier lets a notification in when it answers something this
// agent asked the caller (a question or a task request: related_query_id
// names it and the caller is the peer asked), or when the ACL gives the
// caller write access to the assistant's inbox (a messages rule), since a
// notification lands there as a message does. Otherwise any pinned peer
// could put any words in front of the coding assistant.
//
// A notification that claims to answer a question this agent asked
// another peer is refused in any case: only the peer asked may answer it,
// or one peer could put its words in another's mouth (`aoi query --wait`,
// the inbox and the assistant all show an answer by the question it
// relates to).
func (a *API) checkNotifier(ctx context.Context, call *rpc.Call, p wire.NotifyParams) (answer bool, err error) {
	if p.RelatedQueryID != "" {
		ask, found, err := a.DB.Ask(ctx, p.RelatedQueryID)
		switch {
		case err != nil:
			return false, err
		case found && ask.To == p.From:
			return true, a.checkAnswer(ctx, call, p)
		case found:
			a.AuditRefusal(ctx, call, "answerer", map[string]any{"related_query_id": p.RelatedQueryID})
			return false, errs.Denied("related_query_id names a question this agent asked another peer; only the peer asked can answer it",
				map[string]any{"related_query_id": p.RelatedQueryID})
		}
	}
	d := a.Policy().CheckMessages(a.Subject(call.Caller))
	if d.AuditOnly {
		a.AuditACLOnly(ctx, call, "messages", d)
	}
	if d.Allowed {
		return false, nil
	}
	a.AuditRefusal(ctx, call, "acl", map[string]any{"scope": "messages", "rule": d.RuleID, "reason": d.Reason})
	return false, errs.Denied("aoi.notify carries an answer to something this agent asked you (related_query_id), "+
		"or needs write access to the assistant's inbox as aoi.message does: "+d.Told,
		map[string]any{"required_permission": "messages.write"})
}

// answerEvents are the notifications that answer an ask: a question's
// answer or refusal, a task's result.
var answerEvents = []string{wire.EventQueryCompleted, wire.EventQueryDeclined, wire.EventTaskCompleted, wire.EventTaskFailed}

// checkAnswer lets the peer asked answer once, with an answer's event:
// one question does not open the assistant's inbox to anything the peer
// sends after. A redelivery of the same notification (the same id) is
// fine; one without an id cannot be told from a new answer, so after the
// first answer it is refused.
func (a *API) checkAnswer(ctx context.Context, call *rpc.Call, p wire.NotifyParams) error {
	if !slices.Contains(answerEvents, p.Event) {
		return errs.Invalid("an answer's event is one of %s, not %q", strings.Join(answerEvents, ", "), p.Event)
	}
	prev, found, err := a.DB.AnswerFrom(ctx, p.From, p.RelatedQueryID)
	if err != nil || !found || p.ID != "" && prev == p.ID {
		return err
	}
	return a.refuseSecondAnswer(ctx, call, p)
}

// errAnswered says, inside the write, that the question was answered
// already.
var errAnswered = errors.New("answered already")

// refuseSecondAnswer audits and words the refusal of a second answer.
func (a *API) refuseSecondAnswer(ctx context.Context, call *rpc.Call, p wire.NotifyParams) error {
	a.AuditRefusal(ctx, call, "answered", map[string]any{"related_query_id": p.RelatedQueryID})
	return errs.Denied("related_query_id names a question or request you have answered already; send more with aoi.message",
		map[string]any{"related_query_id": p.RelatedQueryID})
}
