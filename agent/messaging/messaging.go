// Package messaging is typed messages between coding assistants (seed
// 004): the aoi.message peer handler, SendMessage, Inbox and CoordTasks,
// the assistant's heartbeat (its Inbox polls) and the coordination task
// state machine the messages move. Like agent/peerapi's API it gets what it
// needs as fields and hooks and holds no pointer back to the core.
package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/outbox"
	"github.com/aoi-protocol/aoi/agent/peerapi"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/redact"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/jsondepth"
	"github.com/aoi-protocol/aoi/internal/termtext"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// Messenger sends and receives typed messages. Set the fields, then
// register Routes with the peer server.
type Messenger struct {
	DB      *store.DB
	Peers   *peers.Registry
	Outbox  *outbox.Outbox
	PeerAPI *peerapi.API          // CheckFrom, Subject and the refusal audit rows
	Config  func() *config.Config // the current config (reloads apply)
	Policy  func() *acl.Policy    // the current ACL policy
	Now     func() time.Time
	Log     *slog.Logger
	// Redact removes secrets from text that leaves the machine; Redactor
	// is the redactor for a payload's strings (an error withholds it).
	Redact   func(string) string
	Redactor func() (*redact.Redactor, error)
	// Publish emits a front-end event (agent/events kinds).
	Publish func(kind, id, agent, summary string)

	// assistantPoll is when the coding assistant last checked its
	// messages (unix ns; 0 = never), its heartbeat.
	assistantPoll atomic.Int64
	// refusedTold is when the owner was last told that the ACL refused a
	// peer's message (peer id → time.Time), so a sender's retries ring
	// at most once per refusedToldEvery.
	refusedTold sync.Map
}

// refusedToldEvery bounds how often the owner hears that their ACL
// refuses one peer's messages (its outbox retries every ten minutes).
const refusedToldEvery = time.Hour

// Routes is the aoi.message route; the core adds it to the peer API's.
func (m *Messenger) Routes() map[string]rpc.Handler {
	return map[string]rpc.Handler{wire.MethodMessage: m.handleMessage}
}

// maxPayload bounds a message's payload (JSON bytes); the body limit
// bounds the rest.
const maxPayload = wire.MaxPayloadBytes

// firstTry is how long the outbox leaves a new message to SendMessage's
// own first attempt (a call to a peer times out within 10 s).
const firstTry = 15 * time.Second

// handleMessage is aoi.message: a typed message for this agent's coding
// assistant (never the secretary). The sender must be granted messaging
// (a scope_type "messages" rule with write); the message is redacted,
// stored once however often it is retried, moves its coordination task,
// and is audited in the same transaction before the acknowledgement.
func (m *Messenger) handleMessage(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.MessageParams
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := m.PeerAPI.CheckFrom(ctx, call, p.From, p.To); err != nil {
		return nil, err
	}
	if err := checkEnvelope(p.ID, p.Type, p.TaskID, p.ThreadID, p.ReplyTo, p.Priority, p.Payload); err != nil {
		return nil, errs.Invalid("%s", err.Error())
	}
	if p.Origin != "" && !wire.ValidAgentID(p.Origin) {
		return nil, errs.Invalid("params.origin is not an agent id")
	}
	asReply, err := m.checkMessaging(ctx, call, p)
	if err != nil {
		return nil, err
	}
	if p.Priority == "" {
		p.Priority = wire.PriorityNormal
	}
	rec := store.MessageRecord{MsgID: p.ID, From: p.From, Event: p.Type, Data: m.redactJSON(p.Payload), ReceivedAt: m.Now(),
		Type: p.Type, TaskID: p.TaskID, ThreadID: p.ThreadID, ReplyTo: p.ReplyTo, Origin: p.Origin, Priority: p.Priority}
	detail := map[string]any{"type": p.Type, "task_id": p.TaskID, "thread_id": p.ThreadID, "origin": p.Origin}
	if asReply {
		detail["allowed_as"] = "reply" // no messages rule let it in: the owner's own conversation did
	}
	var ack wire.MessageAck
	err = m.DB.Write(ctx, func(tx *store.Tx) error {
		var err error
		ack.Seq, ack.Duplicate, err = tx.InsertMessage(rec)
		if err != nil || ack.Duplicate {
			return err
		}
		if err := m.PeerAPI.InboxRoom(tx, p.From); err != nil {
			return err
		}
		if _, err := m.moveTask(tx, p.TaskID, p.From, p.Type, rec.Data, false); err != nil {
			return err
		}
		detail["seq"] = ack.Seq
		_, err = tx.AppendAudit(p.From, call.Method, "ok", detail)
		return err
	})
	if err != nil {
		return nil, m.PeerAPI.RefuseInboxFull(ctx, call, err)
	}
	call.MarkAudited()
	ack.Received = true
	if !ack.Duplicate {
		m.Publish(events.MessageReceived, fmt.Sprint(ack.Seq), p.From, p.Type)
		if p.TaskID != "" {
			m.Publish(events.CoordTask, p.TaskID, p.From, p.Type)
		}
		if p.Priority == wire.PriorityHigh || p.Priority == wire.PriorityCritical {
			m.Publish(events.Attention, fmt.Sprint(ack.Seq), p.From, p.From+": "+p.Type)
		}
	}
	return ack, nil
}

// checkMessaging applies the ACL's messages rules to the caller, a
// pinned peer (CheckFrom), and tells the owner when they refuse it. A
// message that answers one this agent sent the caller (it replies to it,
// is in its thread, or is about its task: progress on a task the owner
// assigned) is let in where only default_permission refused it: the owner started that conversation, as an answer to a question
// they asked is let in (aoi.notify); asReply says so, for the audit row. A
// rule that refuses the caller still refuses it.
func (m *Messenger) checkMessaging(ctx context.Context, call *rpc.Call, p wire.MessageParams) (asReply bool, err error) {
	d := m.Policy().CheckMessages(m.PeerAPI.Subject(call.Caller))
	if d.AuditOnly {
		m.PeerAPI.AuditACLOnly(ctx, call, "messages", d)
	}
	if d.Allowed {
		return false, nil
	}
	if d.RuleID == "" {
		answers, err := m.DB.SentMessageTo(ctx, p.From, p.ReplyTo, p.ThreadID, p.TaskID)
		if err != nil || answers {
			return answers, err
		}
	}
	m.PeerAPI.AuditRefusal(ctx, call, "acl", map[string]any{"scope": "messages", "rule": d.RuleID, "reason": d.Reason})
	m.tellRefused(p.From)
	return false, errs.Denied(d.Told, map[string]any{"required_permission": "messages.write"})
}

// tellRefused rings the owner when their ACL refuses a trusted peer's
// message, at most once per refusedToldEvery for each peer: the sender
// was told to ask this owner for a rule, and the owner saw nothing but an
// audit row (the tenth walk's PM waited on a message the engineer never
// knew was sent).
func (m *Messenger) tellRefused(peer string) {
	now := m.Now()
	if last, ok := m.refusedTold.Load(peer); ok && now.Sub(last.(time.Time)) < refusedToldEvery {
		return
	}
	m.refusedTold.Store(peer, now)
	m.Publish(events.Attention, "", peer, fmt.Sprintf("your ACL refused a message %s sent your coding assistant: no `messages` rule gives %s write access; "+
		"add one to the config and `aoi reload` to let its messages through (`aoi audit --method aoi.message` lists the refusals)", peer, peer))
}

// SendMessage sends a typed message through the outbox: it is stored and
// audited first, delivered at once when the recipient answers, and
// retried with back-off while it is offline (until outbox expiry).
func (m *Messenger) SendMessage(ctx context.Context, req SendMessageRequest) (SentMessage, error) {
	id := wire.NewID("m")
	if err := m.completeRequest(ctx, id, &req); err != nil {
		return SentMessage{}, err
	}
	now := m.Now()
	params := wire.MessageParams{ID: id, From: m.Config().Agent.ID, To: req.To, Type: req.Type, TaskID: req.TaskID, ThreadID: req.ThreadID,
		ReplyTo: req.ReplyTo, Priority: req.Priority, Origin: req.origin, Payload: m.redactJSON(req.Payload), Timestamp: now}
	out := SentMessage{ID: id, To: req.To, Type: req.Type, TaskID: req.TaskID, ThreadID: req.ThreadID}
	// The first attempt is made here, so the sender learns whether it
	// arrived; the outbox loop takes over (after firstTry) if it did not,
	// or if this process dies first.
	entry := store.OutboxRecord{ID: id, To: req.To, Method: wire.MethodMessage, Params: wire.MustJSON(params),
		NextAttemptAt: now.Add(firstTry), CreatedAt: now, ExpiresAt: now.Add(m.Config().Outbox.Expiry())}
	var err error
	if out.TaskState, err = m.queueMessage(ctx, entry, params); err != nil {
		return SentMessage{}, err
	}
	if req.TaskID != "" {
		m.Publish(events.CoordTask, req.TaskID, req.To, req.Type)
	}
	derr := m.Outbox.Deliver(context.WithoutCancel(ctx), entry)
	out.Queued = derr != nil
	out.Note = "delivered; " + req.To + "'s assistant sees it on its next aoi_check_messages"
	if out.Queued {
		m.Outbox.Wake() // it was rescheduled: let the loop see when
		out.Note, out.Refused = m.queuedNote(req.To, derr)
	}
	return out, nil
}

// completeRequest fills what req leaves to defaults (a forwarded
// message's envelope, the task's counterpart, priority, thread) and checks
// the envelope and that its recipient is a known peer.
func (m *Messenger) completeRequest(ctx context.Context, id string, req *SendMessageRequest) error {
	if req.Forward > 0 {
		if err := m.fillForward(ctx, req); err != nil {
			return err
		}
	}
	if req.To == "" {
		to, err := m.counterpart(ctx, req.TaskID)
		if err != nil {
			return err
		}
		req.To = to
	}
	if err := m.Peers.CheckPeerID(req.To); err != nil {
		return err
	}
	if len(req.Payload) == 0 {
		req.Payload = json.RawMessage("{}")
	}
	if req.Priority == "" {
		req.Priority = wire.PriorityNormal
	}
	if req.ReplyTo != "" && (req.ThreadID == "" || req.TaskID == "") {
		thread, task, err := m.replied(ctx, req.ReplyTo, req.To)
		if err != nil {
			return err
		}
		req.ThreadID, req.TaskID = cmp(req.ThreadID, thread), cmp(req.TaskID, task)
	}
	if req.ThreadID == "" && req.TaskID != "" {
		// Progress on an assigned task reads with its task_assign.
		thread, _, err := m.DB.TaskThread(ctx, req.To, req.TaskID)
		if err != nil {
			return err
		}
		req.ThreadID = thread
	}
	if req.ThreadID == "" {
		req.ThreadID = id
	}
	if err := checkEnvelope(id, req.Type, req.TaskID, req.ThreadID, req.ReplyTo, req.Priority, req.Payload); err != nil {
		return err
	}
	_, found, err := m.DB.Peer(ctx, req.To)
	if err != nil {
		return err
	}
	if !found {
		return errs.UnknownPeer(req.To, fmt.Sprintf("%s is not a known peer; pin it with `aoi peers trust %s FINGERPRINT --endpoint HOST:PORT` or run `aoi discover`", req.To, req.To))
	}
	return nil
}

// replied is the thread and the task of the message a reply names: one
// received (from the reply's recipient first), else one this agent sent.
// They are "" when neither is stored here, and the reply starts a thread
// of its own as it did before: a reply that names no thread joins its
// message's, so a conversation stays together without copying the thread
// id by hand, and one that names no task is about its message's task, as
// the interface's :reply has it (`aoi send --reply-to` to a question
// about a task was left out of `aoi messages --task`, the twelfth walk).
func (m *Messenger) replied(ctx context.Context, replyTo, to string) (thread, task string, err error) {
	thread, task, found, err := m.DB.ReceivedThread(ctx, replyTo, to)
	if err != nil || found {
		return thread, task, err
	}
	sent, found, err := m.DB.Outbox(ctx, replyTo)
	if err != nil || !found || sent.Method != wire.MethodMessage {
		return "", "", err
	}
	var p wire.MessageParams
	if json.Unmarshal(sent.Params, &p) != nil || !wire.ValidID(p.ThreadID) {
		return "", "", nil
	}
	if !wire.ValidID(p.TaskID) {
		p.TaskID = ""
	}
	return p.ThreadID, p.TaskID, nil
}

// queueMessage stores the message in the outbox, moves its task along and
// audits the send, in one transaction. It returns the task's new state.
func (m *Messenger) queueMessage(ctx context.Context, entry store.OutboxRecord, p wire.MessageParams) (taskState string, err error) {
	err = m.DB.Write(ctx, func(tx *store.Tx) error {
		if err := tx.EnqueueOutbox(entry); err != nil {
			return err
		}
		var err error
		if taskState, err = m.moveTask(tx, p.TaskID, p.To, p.Type, p.Payload, true); err != nil {
			return err
		}
		_, err = tx.AppendAudit("owner", "ctl.send_message", "ok", map[string]any{"to": p.To, "type": p.Type,
			"task_id": p.TaskID, "thread_id": p.ThreadID, "message_id": p.ID, "origin": p.Origin})
		return err
	})
	return taskState, err
}

// queuedNote says why a message was not delivered at once: the peer could
// not be reached, or it answered and refused the message, which a retry
// delivers only once the peer's owner changes something. It reports
// which of the two happened. The peer's words in it are its own: shown
// as a front end would, cut short and redacted.
func (m *Messenger) queuedNote(to string, err error) (note string, refusedByPeer bool) {
	var refused *rpc.Error
	var te *rpc.TransportError
	switch {
	case errors.As(err, &refused):
	case errors.As(err, &te) && te.Status != 0:
		// Something answered, but not as aoi does (a proxy, a server
		// restarting): not offline, and not a refusal either.
		return fmt.Sprintf("%s answered with HTTP status %d instead of aoi's answer; the message is queued and retried", to, te.Status), false
	default:
		return to + " is offline; the message is queued and will be delivered when it is back", false
	}
	if refused.Code == rpc.CodeRateLimit || refused.Code == rpc.CodeAgentBusy {
		return to + " is busy (" + m.peerWords(refused.Message) + "); the message is queued and retried shortly", false
	}
	why := refused.Reason()
	if why == "" {
		why = refused.Message
	}
	why = m.peerWords(why)
	letThrough := "trusts you, or gives you write access to messages with a `messages` ACL rule"
	if d, _ := refused.Data.(map[string]any); d["required_permission"] == "messages.write" {
		letThrough = "gives you write access to messages with a `messages` ACL rule" // it knows you: only the rule is missing
	}
	return to + " refused the message: " + why + ". It stays queued and is retried until it expires: it arrives once " +
		to + "'s owner lets it through (" + letThrough + ")", true
}

// maxPeerWords bounds what a note quotes of a peer's refusal.
const maxPeerWords = 300

// peerWords is a peer's refusal as a note quotes it (termtext.Quote): on
// one line as a reader sees it, redacted, at most maxPeerWords characters.
func (m *Messenger) peerWords(s string) string { return termtext.Quote(s, maxPeerWords, m.Redact) }

// fillForward copies a received message into req for relaying, keeping
// its thread and first sender; fields req sets win.
func (m *Messenger) fillForward(ctx context.Context, req *SendMessageRequest) error {
	recs, err := m.DB.Messages(ctx, req.Forward-1, 1)
	if err != nil {
		return err
	}
	if len(recs) == 0 || recs[0].Seq != req.Forward || recs[0].Type == "" {
		return errs.NotFound("there is no received message %d to forward; list them with aoi_check_messages", req.Forward)
	}
	fwd := recs[0]
	req.Type = cmp(req.Type, fwd.Type)
	req.TaskID = cmp(req.TaskID, fwd.TaskID)
	req.ThreadID = cmp(req.ThreadID, fwd.ThreadID)
	req.ReplyTo = cmp(req.ReplyTo, fwd.ReplyTo)
	req.Priority = cmp(req.Priority, fwd.Priority)
	if len(req.Payload) == 0 {
		req.Payload = fwd.Data
	}
	req.origin = cmp(fwd.Origin, fwd.From)
	return nil
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// counterpart is the one agent a task is shared with, for a message sent
// with a task id and no recipient.
func (m *Messenger) counterpart(ctx context.Context, taskID string) (string, error) {
	if taskID == "" {
		return "", errs.Invalid("say whom to send it to (an agent id), or give a task_id to send it to that task's counterpart")
	}
	ts, err := m.DB.CoordTasks(ctx, taskID, 10)
	if err != nil {
		return "", err
	}
	// Prefer whoever assigned the task to us: progress goes to the
	// requester. Only one: any peer the messages rule lets in can assign
	// the same task id, and the latest assigner got the progress written
	// for the first.
	var assigners []string
	for _, t := range ts {
		if t.Side == SideAssignee {
			assigners = append(assigners, t.Peer)
		}
	}
	switch {
	case len(assigners) == 1:
		return assigners[0], nil
	case len(assigners) > 1:
		return "", errs.Invalid("task %s was assigned to you here by %d agents (%s); say which agent to send it to (to)",
			taskID, len(assigners), strings.Join(assigners, ", "))
	case len(ts) == 0:
		return "", errs.Invalid("no message about task %s was sent or received here, so there is no one to send it to; say which agent (to)", taskID)
	case len(ts) == 1:
		return ts[0].Peer, nil
	}
	peers := make([]string, 0, len(ts))
	for _, t := range ts {
		peers = append(peers, t.Peer)
	}
	return "", errs.Invalid("task %s has %d counterparts here (%s); say which agent to send it to (to)", taskID, len(ts), strings.Join(peers, ", "))
}

// Inbox lists received messages matching f in order (only typed ones when
// f names a type, task or thread). An assistant's call is its heartbeat;
// the messages it is shown no longer match Unread for it (the owner's read
// mark, set by Messages, is separate).
func (m *Messenger) Inbox(ctx context.Context, f InboxFilter) (InboxPage, error) {
	if f.Assistant {
		m.assistantPoll.Store(m.Now().UnixNano())
	}
	var page InboxPage
	var err error
	if f.Conversation() {
		page, err = m.conversation(ctx, f)
	} else {
		page, err = m.received(ctx, f)
	}
	if err != nil {
		return InboxPage{}, err
	}
	if f.Assistant {
		if err := m.markAssistantSeen(ctx, page.Messages); err != nil {
			return page, err
		}
	}
	return page, nil
}

// received is a page of received messages matching f, in sequence order.
func (m *Messenger) received(ctx context.Context, f InboxFilter) (InboxPage, error) {
	var parties []string
	if f.ThreadID != "" || f.TaskID != "" {
		// A thread's or a task's messages are its parties' alone, as in
		// the whole conversation (conversation).
		sent, err := m.DB.SentMessages(ctx, f.ThreadID, f.TaskID)
		if err != nil {
			return InboxPage{}, err
		}
		if parties, err = m.parties(ctx, f, sent); err != nil {
			return InboxPage{}, err
		}
	}
	recs, more, err := m.DB.FilterMessages(ctx, store.MessageFilter{AfterSeq: f.AfterSeq, Type: f.Type, TaskID: f.TaskID,
		ThreadID: f.ThreadID, UnreadOnly: f.Unread, From: parties, Limit: f.Limit})
	if err != nil {
		return InboxPage{}, err
	}
	others, err := m.others(ctx, f, parties)
	if err != nil {
		return InboxPage{}, err
	}
	page := InboxPage{Messages: make([]Message, 0, len(recs)), LastID: f.AfterSeq, More: more, Others: others}
	for _, r := range recs {
		page.Messages = append(page.Messages, View(r))
		page.LastID = max(page.LastID, r.Seq)
	}
	return page, nil
}

// markAssistantSeen records that the coding assistant was shown the
// received messages among msgs.
func (m *Messenger) markAssistantSeen(ctx context.Context, msgs []Message) error {
	seqs := make([]int64, 0, len(msgs))
	for _, msg := range msgs {
		if !msg.Sent {
			seqs = append(seqs, msg.Seq)
		}
	}
	if len(seqs) == 0 {
		return nil
	}
	return m.DB.Write(ctx, func(tx *store.Tx) error { return tx.MarkAssistantSeen(seqs) })
}

// View is a stored message as the front ends show it.
func View(r store.MessageRecord) Message {
	return Message{Seq: r.Seq, From: r.From, Event: r.Event, RelatedID: r.RelatedID, Data: r.Data, ReceivedAt: r.ReceivedAt,
		Type: r.Type, TaskID: r.TaskID, ThreadID: r.ThreadID, ReplyTo: r.ReplyTo, Origin: r.Origin, Priority: r.Priority, MessageID: r.MsgID,
		Read: r.Read, AssistantSeen: r.AssistantSeen}
}

// CoordTasks lists coordination tasks (one row per counterpart), most
// recently changed first; taskID narrows to one task.
func (m *Messenger) CoordTasks(ctx context.Context, req CoordTasksRequest) ([]CoordTask, error) {
	recs, err := m.DB.CoordTasks(ctx, req.TaskID, 200)
	if err != nil {
		return nil, err
	}
	out := make([]CoordTask, 0, len(recs))
	for _, r := range recs {
		out = append(out, CoordTask{TaskID: r.TaskID, Peer: r.Peer, Side: r.Side, State: r.State, Summary: r.Summary,
			LastType: r.LastType, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt})
	}
	return out, nil
}

// AssistantAway reports whether the coding assistant has polled before but
// not within network.assistant_away_after_sec.
func (m *Messenger) AssistantAway() bool {
	last := m.assistantPoll.Load()
	if last == 0 {
		return false
	}
	return m.Now().Sub(time.Unix(0, last)) > m.Config().Network.AssistantAwayAfter()
}

// checkEnvelope validates a message's typed fields with sentences a person
// or a model can act on; ids are never echoed.
func checkEnvelope(id, typ, taskID, threadID, replyTo, priority string, payload json.RawMessage) error {
	if !slices.Contains(wire.MessageTypes, typ) {
		return errs.Invalid("type must be one of %v", wire.MessageTypes)
	}
	for _, f := range []struct{ name, v string }{{"id", id}, {"task_id", taskID}, {"thread_id", threadID}, {"reply_to", replyTo}} {
		if f.v != "" && !wire.ValidID(f.v) {
			return errs.Invalid("%s must be at most 128 bytes of letters (any script), digits, '.', '_', ':' or '-', not starting with '.' (no spaces or symbols)", f.name)
		}
	}
	switch priority {
	case "", wire.PriorityLow, wire.PriorityNormal, wire.PriorityHigh, wire.PriorityCritical:
	default:
		return errs.Invalid("priority must be one of low, normal, high, critical")
	}
	if len(payload) > maxPayload {
		return errs.Invalid("payload is %d bytes of JSON; the limit is %d", len(payload), maxPayload)
	}
	if len(payload) > 0 && !json.Valid(payload) {
		return errs.Invalid("payload is not valid JSON")
	}
	if d := jsondepth.Of(payload); d > maxPayloadDepth {
		return errs.Invalid("payload nests %d levels deep; the limit is %d: flatten it", d, maxPayloadDepth)
	}
	return nil
}

// maxPayloadDepth bounds how deeply a payload's arrays and objects nest:
// the assistant's MCP client decodes it, and a Python one fails past a
// thousand levels (the attack run's 8,000 fit in 16 KiB).
const maxPayloadDepth = wire.MaxPayloadDepth

// redactJSON removes secrets from every string in a JSON payload.
func (m *Messenger) redactJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return wire.MustJSON(m.Redact(string(raw)))
	}
	red, err := m.Redactor()
	if err != nil {
		m.Log.Error("redactor unavailable; withholding the payload", "component", "messages", "err", err)
		return wire.MustJSON("[REDACTED:redactor-unavailable]")
	}
	return wire.MustJSON(red.Value(v))
}
