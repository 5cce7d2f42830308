// Package service is the seam between aoi's core and its front ends: the
// Service interface, composed of one narrow interface per capability, and
// the request and result types of its methods. agent re-exports every name
// here by alias (agent.Service, agent.Status, …); *agent.Core implements
// it in process and agent/ctlclient over the control socket. It sits below
// agent so the control table can live beside its client.
package service

import (
	"context"
	"encoding/json"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/agent/messaging"
	"github.com/aoi-protocol/aoi/agent/peers"
)

// Service is everything a front end (the TUI, the CLI, the MCP server) can ask
// of a running core. *Core implements it in-process; ctlclient.Client
// implements it over the control socket, so attach mode is the same code path.
//
// It is composed of narrow interfaces, one per capability, so a front end
// (or a test double) can depend on only the part it uses. Errors are of the
// kinds in agent/errs (ErrInvalid, ErrDenied, ErrNotFound, ErrUnknownPeer,
// ErrConflict, for errors.Is), in process and over the socket alike; each
// method names the kinds it returns. Any other error (the store, a peer
// that did not answer) carries text saying what happened and what to do.
type Service interface {
	AdminService
	PeerService
	InboxService
	AskingService
	MessagingService
	ApprovalService
	MirrorService
	AuditService
	EventService
	PromptService
	OutboxService
}

// AdminService is about this agent itself.
type AdminService interface {
	// Status describes this agent: id, role, listen address, focus, counts.
	// Errors: none of the kinds (only a failing store).
	Status(ctx context.Context) (Status, error)
	// Reload re-reads the config (ACL, limits, interrupt, tasks, peers,
	// log level) and reports what changed. Errors: none of the kinds; an
	// invalid file, or one changing agent.id, is refused with its
	// validation error and the running config stays.
	Reload(ctx context.Context) (ReloadReport, error)
}

// PeerService is the registry: who this agent knows and trusts.
type PeerService interface {
	// Peers lists every known peer (registry), including unpinned callers
	// waiting for a trust decision (Peer.Trust == TrustPending).
	// Errors: none of the kinds.
	Peers(ctx context.Context) ([]Peer, error)
	// Discover announces this agent to every configured/known peer and
	// returns the refreshed peer list; a peer that does not answer is
	// marked offline, not an error. Errors: none of the kinds.
	Discover(ctx context.Context) ([]Peer, error)
	// Trust pins a peer's certificate fingerprint (and optionally its
	// endpoint and role). Errors: ErrInvalid (agent id, role or
	// fingerprint malformed).
	Trust(ctx context.Context, req TrustRequest) error
	// Refuse drops a pending trust request, or stops trusting the pinned
	// peer with that fingerprint; an unknown fingerprint is not an error.
	// Errors: ErrInvalid (a peer the config's peers[] pins).
	Refuse(ctx context.Context, req RefuseRequest) error
}

// InboxService is the owner's side of queries received from peers.
type InboxService interface {
	// Queries lists queries received from peers, newest first.
	// Errors: none of the kinds.
	Queries(ctx context.Context, f QueryFilter) ([]Query, error)
	// Answer sends the owner's answer to a received query (via aoi.notify
	// query.completed, through the outbox). Errors: ErrInvalid (empty
	// text), ErrNotFound (no such query), ErrConflict (already answered
	// or declined).
	Answer(ctx context.Context, req AnswerRequest) error
	// Decline refuses a received query; the asker is told the reason.
	// Errors: ErrNotFound, ErrConflict.
	Decline(ctx context.Context, req DeclineRequest) error
	// Release answers buffered queries now with the secretary's draft;
	// an empty id releases all. Errors: ErrNotFound, ErrConflict (the
	// query is not buffered or has no draft).
	Release(ctx context.Context, req ReleaseRequest) error
	// SetFocus turns focus mode on or off by hand (overrides focus
	// hours); turning it off releases the buffered queries.
	// Errors: none of the kinds.
	SetFocus(ctx context.Context, req FocusRequest) error
}

// AskingService is what this agent asks of peers: queries and tasks. A
// peer that answers with an error gives an error wrapping its
// *rpc.Error (errors.As); one that does not answer gives an error saying
// it is unreachable (and it is marked offline).
type AskingService interface {
	// Ask sends an ad hoc query to a peer's secretary. Errors:
	// ErrInvalid (empty question, malformed agent id, this agent
	// itself), ErrUnknownPeer (not in the registry).
	Ask(ctx context.Context, req AskRequest) (AskResult, error)
	// RequestTask asks a peer to run one of its configured task types.
	// Errors: ErrInvalid (agent id), ErrUnknownPeer.
	RequestTask(ctx context.Context, req TaskRequest) (TaskTicket, error)
	// RemoteTaskStatus asks a peer about a task we asked it for.
	// Errors: ErrInvalid (agent id), ErrUnknownPeer.
	RemoteTaskStatus(ctx context.Context, ref RemoteTaskRef) (Task, error)
	// CancelRemoteTask asks a peer to cancel a task we asked it for.
	// Errors: ErrInvalid (agent id), ErrUnknownPeer.
	CancelRemoteTask(ctx context.Context, ref RemoteTaskRef) error
}

// MessagingService is notifications and typed messages between agents.
type MessagingService interface {
	// Messages lists notifications received from peers (answers, task
	// results) in sequence order, after req.AfterSeq. Errors: none of the
	// kinds.
	Messages(ctx context.Context, req MessagesRequest) ([]Message, error)
	// MarkMessagesRead marks every message up to req.UptoSeq (or those
	// req.Seqs name) read by the owner. Listing marks nothing, so the unread count
	// (Status.UnreadMsgs) means "not yet seen in the interface or `aoi
	// inbox`" and survives restarts. Errors: none of the kinds.
	MarkMessagesRead(ctx context.Context, req MarkReadRequest) error
	// SendMessage sends a typed message (aoi.message) to a peer's
	// assistant inbox through the outbox; it is queued while the peer is
	// offline. Errors: ErrInvalid (envelope, payload or recipient
	// malformed, no recipient and none to infer from the task),
	// ErrNotFound (the message to forward), ErrUnknownPeer.
	SendMessage(ctx context.Context, req SendMessageRequest) (SentMessage, error)
	// Inbox lists received typed messages. Errors: none of the kinds.
	Inbox(ctx context.Context, f InboxFilter) (InboxPage, error)
	// CoordTasks lists the coordination tasks typed messages move (seed
	// 004); an empty task id lists all. Errors: none of the kinds.
	CoordTasks(ctx context.Context, req CoordTasksRequest) ([]CoordTask, error)
}

// ApprovalService is the tasks this agent runs for peers and the owner's
// decisions on them.
type ApprovalService interface {
	// Approvals lists local approvals, pending first. Errors: none of the
	// kinds.
	Approvals(ctx context.Context, f ApprovalFilter) ([]Approval, error)
	// Approve approves a pending task; it runs when a slot is free.
	// Errors: ErrNotFound (no such approval), ErrConflict (already
	// decided).
	Approve(ctx context.Context, req ApproveRequest) error
	// Reject rejects a pending task; the requester is told the reason.
	// Errors: as Approve.
	Reject(ctx context.Context, req RejectRequest) error
	// Tasks lists tasks this agent runs for peers, newest first.
	// Errors: none of the kinds.
	Tasks(ctx context.Context, f TaskFilter) ([]Task, error)
}

// OutboxService shows what waits to be delivered to peers (questions
// asked while they were offline, answers, messages, task results) and lets
// the owner withdraw an entry, which is then never sent.
type OutboxService interface {
	// Outbox lists the entries not delivered yet, oldest first. Errors:
	// none of the kinds.
	Outbox(ctx context.Context) ([]OutboxEntry, error)
	// DropOutbox withdraws an entry not delivered yet. Errors:
	// ErrNotFound (no such entry waits: delivered, expired or dropped).
	DropOutbox(ctx context.Context, req OutboxDropRequest) error
	// RetryOutbox tries one waiting entry now instead of at its next
	// try, and says whether the peer took it. Errors: ErrNotFound (no
	// such entry waits), ErrConflict (a delivery to its peer is under
	// way).
	RetryOutbox(ctx context.Context, req OutboxRetryRequest) (OutboxRetryResult, error)
}

// OutboxEntry is something waiting to be delivered to a peer.
type OutboxEntry struct {
	ID string `json:"id"`
	To string `json:"to"`
	// What it is: "question", "message", "answer", "task result", or the
	// method's name.
	What     string `json:"what"`
	Attempts int    `json:"attempts"`
	// LastError is why the last try failed (the peer's words, as stored);
	// Refused says the peer answered with a refusal rather than nothing.
	LastError     string    `json:"last_error,omitempty"`
	Refused       bool      `json:"refused,omitempty"`
	CreatedAt     time.Time `json:"created_at"`
	NextAttemptAt time.Time `json:"next_attempt_at"`
	ExpiresAt     time.Time `json:"expires_at,omitzero"`
}

// OutboxDropRequest names the entry to withdraw.
type OutboxDropRequest struct {
	ID string `json:"id"`
}

// OutboxRetryRequest names the entry to try now.
type OutboxRetryRequest struct {
	ID string `json:"id"`
}

// OutboxRetryResult is how a try made at the owner's word went: the entry
// as it was, and either Delivered or why not with when the next try is.
type OutboxRetryResult struct {
	Entry     OutboxEntry `json:"entry"`
	Delivered bool        `json:"delivered"`
	// Error is why the peer did not take it, in words (as `aoi outbox`
	// shows it); Expired says the entry was past its expiry and was
	// given up instead of sent; Withheld that it may no longer go to its
	// peer (Error says why) and was kept back.
	Error         string    `json:"error,omitempty"`
	Expired       bool      `json:"expired,omitempty"`
	Withheld      bool      `json:"withheld,omitempty"`
	NextAttemptAt time.Time `json:"next_attempt_at,omitzero"`
}

// PromptService keeps what the owner typed in the interface's prompt bar,
// so `up` finds it again after a restart.
type PromptService interface {
	// PromptHistory returns the newest PromptHistoryKeep lines, oldest
	// first, as stored (redacted). Errors: none of the kinds.
	PromptHistory(ctx context.Context) ([]string, error)
	// RememberPrompt adds a line, with any secret in it redacted; a
	// repeat of the newest line is not added again. Errors: ErrInvalid
	// (an empty line, or one over MaxPromptLine characters).
	RememberPrompt(ctx context.Context, req PromptLine) error
}

// PromptHistoryKeep is how many prompt lines are kept; MaxPromptLine is
// the longest line taken, in characters (the prompt bar's own limit).
const (
	PromptHistoryKeep = 200
	MaxPromptLine     = 4000
)

// MirrorService is the context mirror the secretary answers from. With
// mirroring off, every method fails with an error saying how to turn it
// on.
type MirrorService interface {
	// Note records an owner note in the context mirror and says the id
	// it is stored under. Errors: ErrInvalid (empty text).
	Note(ctx context.Context, req NoteRequest) (NoteSaved, error)
	// Notes lists the owner's notes, newest first. Errors: none of the
	// kinds.
	Notes(ctx context.Context, req NotesRequest) ([]Note, error)
	// DeleteNote removes one of the owner's notes from the mirror.
	// Errors: ErrNotFound (no note with that id).
	DeleteNote(ctx context.Context, req DeleteNoteRequest) error
	// ReportEvent records an event from the coding assistant (MCP) in the
	// context mirror; it is redacted before it is stored. Errors:
	// ErrInvalid (no type, progress outside 0–100).
	ReportEvent(ctx context.Context, ev ReportedEvent) error
	// Snapshot returns the current context snapshot (seed 000
	// ContextSnapshot). Errors: none of the kinds.
	Snapshot(ctx context.Context) (json.RawMessage, error)
}

// AuditService reads the hash-chained audit log.
type AuditService interface {
	// Audit lists audit rows newest first. Errors: none of the kinds.
	Audit(ctx context.Context, f AuditFilter) ([]AuditEntry, error)
	// VerifyAudit walks the chain; a broken chain is a result
	// (OK false), not an error. Errors: none of the kinds.
	VerifyAudit(ctx context.Context) (AuditVerification, error)
}

// EventService streams changes in the core.
type EventService interface {
	// Events streams core events with sequence numbers, starting after
	// req.AfterSeq (0 = only new ones). The channel closes when ctx ends.
	// Errors: none of the kinds.
	Events(ctx context.Context, req EventsRequest) (<-chan Event, error)
}

// Requests of the Service methods that take no type of their own. The
// JSON names are the control socket's params (ctl.*), unchanged.
type (
	// RefuseRequest names a pending trust request by its fingerprint.
	RefuseRequest struct {
		Fingerprint string `json:"fingerprint"`
	}
	// AnswerRequest is the owner's answer to a received query.
	AnswerRequest struct {
		QueryID string `json:"query_id"`
		Text    string `json:"text,omitempty"`
	}
	// DeclineRequest refuses a received query, saying why.
	DeclineRequest struct {
		QueryID string `json:"query_id"`
		Reason  string `json:"reason,omitempty"`
	}
	// ReleaseRequest names a buffered query to answer now ("" = all).
	ReleaseRequest struct {
		QueryID string `json:"query_id"`
	}
	// FocusRequest turns focus mode on or off.
	FocusRequest struct {
		On bool `json:"on"`
	}
	// MessagesRequest pages received notifications by sequence number
	// (Limit 0: the default, 100).
	MessagesRequest struct {
		AfterSeq int64 `json:"after_seq"`
		Limit    int   `json:"limit,omitempty"`
	}
	// MarkReadRequest marks messages read up to a sequence number.
	// Seqs, when set, are the messages marked read, alone: `aoi inbox
	// --limit` marks those it showed and leaves earlier ones unread.
	MarkReadRequest struct {
		UptoSeq int64   `json:"upto_seq"`
		Seqs    []int64 `json:"seqs,omitempty"`
	}
	// PromptLine is one line typed in the prompt bar.
	PromptLine struct {
		Line string `json:"line"`
	}
	// NoteRequest is an owner note.
	NoteRequest struct {
		Text string `json:"text"`
	}
	// NotesRequest lists notes: at most Limit (default 50).
	NotesRequest struct {
		Limit int `json:"limit,omitempty"`
	}
	// Note is one of the owner's notes as stored (redacted).
	Note struct {
		ID   int64     `json:"id"`
		Text string    `json:"text"`
		At   time.Time `json:"at"`
	}
	// NoteSaved is the note just recorded: its id, as Notes lists it and
	// DeleteNote takes it (0 from an aoi that did not say it).
	NoteSaved struct {
		ID int64 `json:"id"`
	}
	// DeleteNoteRequest names the note to remove.
	DeleteNoteRequest struct {
		ID int64 `json:"id"`
	}
	// RemoteTaskRef names a task a peer runs for us.
	RemoteTaskRef struct {
		Peer   string `json:"peer"`
		TaskID string `json:"task_id"`
	}
	// ApproveRequest names a pending approval.
	ApproveRequest struct {
		ID string `json:"id"`
	}
	// RejectRequest names a pending approval and why it is rejected
	// ("" = "rejected by the owner").
	RejectRequest struct {
		ID     string `json:"id"`
		Reason string `json:"reason,omitempty"`
	}
	// EventsRequest starts an event stream after a sequence number
	// (0: only new events).
	EventsRequest struct {
		AfterSeq int64 `json:"after_seq"`
		// Exact makes AfterSeq a sequence number even when it is 0:
		// every event after it that the core still holds. A client that
		// learnt the newest number (0: none yet) from the core resumes
		// exactly, so nothing published between two calls is lost to the
		// core's later idea of "only new ones".
		Exact bool `json:"exact,omitempty"`
	}
)

// Status is the agent's own state, shown in the status bar and `aoi status`.
type Status struct {
	AgentID       string   `json:"agent_id"`
	Role          string   `json:"role"`
	Owner         string   `json:"owner,omitempty"`
	Version       string   `json:"aoi_version"`
	Transport     string   `json:"transport"` // "direct" or "tailnet"
	ListenAddr    string   `json:"listen_addr"`
	Fingerprint   string   `json:"fingerprint,omitempty"`
	Tailnet       *Tailnet `json:"tailnet,omitempty"`
	Focus         bool     `json:"focus"`
	PeersOnline   int      `json:"peers_online"`
	PendingQuery  int      `json:"pending_queries"`
	Buffered      int      `json:"buffered_queries"`
	PendingApprov int      `json:"pending_approvals"`
	UnreadMsgs    int      `json:"unread_messages"`
	// OutboxRefused counts what this agent queued for peers (messages,
	// answers) that the peer refused (at least once): still retried until
	// it expires, but going nowhere until the peer's owner changes trust
	// or config.
	OutboxRefused int `json:"outbox_refused"`
	// RefusingMessagesFrom names the peers whose latest message your ACL
	// refused within the last day (no messages rule lets them write):
	// their aoi retries, and only a rule of yours lets it in.
	RefusingMessagesFrom []string `json:"refusing_messages_from,omitempty"`
	// OutboxQueued counts everything queued for peers and not yet
	// delivered (answers and messages to a peer that is offline wait
	// there), the refused ones included.
	OutboxQueued int       `json:"outbox_queued"`
	StartedAt    time.Time `json:"started_at"`
	DataDir      string    `json:"data_dir"`
	// Contexts is how many contexts (repositories, folders) the config
	// names: with none, the secretary has nothing to answer from.
	Contexts int `json:"contexts"`
	// History says, per repository context, how much of its history the
	// secretary has indexed (empty when mirroring is off).
	History []IndexProgress `json:"history,omitempty"`
	// Waiting is what this agent asked peers (questions, task requests)
	// that no answer has come back for yet, newest first, at most 20.
	Waiting []WaitingAsk `json:"waiting_for_answers,omitempty"`
	// WaitingTotal counts every ask still waiting for its answer, the ones
	// Waiting leaves out too: a list cut at 20 must not read as all.
	WaitingTotal int `json:"waiting_total"`
}

// WaitingAsk is one question or task request of this agent still waiting
// for its answer.
type WaitingAsk struct {
	RequestID string    `json:"request_id"`
	To        string    `json:"to"`
	Text      string    `json:"text"`              // the question, or "task TYPE"
	TaskID    string    `json:"task_id,omitempty"` // a task request's id at the peer (aoi task status)
	SentAt    time.Time `json:"sent_at"`
}

// Endpoint is the address colleagues reach this agent on: in tailnet mode
// the node's first tailnet address with the port it listens on, else the
// listen address ("" until the core listens).
func (s Status) Endpoint() string {
	if s.Tailnet != nil && len(s.Tailnet.Addresses) > 0 {
		if _, port, err := net.SplitHostPort(s.ListenAddr); err == nil {
			return net.JoinHostPort(s.Tailnet.Addresses[0], port)
		}
	}
	return s.ListenAddr
}

// Reach says who can use an endpoint as it is written.
type Reach int

const (
	ReachAsWritten      Reach = iota // give colleagues the address as it is
	ReachThisMachine                 // loopback: nobody elsewhere reaches it
	ReachEveryInterface              // a wildcard (0.0.0.0, [::], ":7700"): colleagues need a real address of this machine
)

// ReachOf classifies a host:port endpoint (an unreadable one is as written).
func ReachOf(endpoint string) Reach {
	host, _, err := net.SplitHostPort(endpoint)
	if err != nil {
		return ReachAsWritten
	}
	ip := net.ParseIP(host)
	switch {
	case host == "localhost" || ip != nil && ip.IsLoopback():
		return ReachThisMachine
	case host == "" || ip != nil && ip.IsUnspecified():
		return ReachEveryInterface
	}
	return ReachAsWritten
}

// IndexProgress is how far the secretary's indexing of one repository's
// history has come: the newest commits at once, the rest of the branch
// inside retention_days in the background.
type IndexProgress struct {
	Context string `json:"context"`
	Indexed int    `json:"indexed"` // commits indexed so far
	Total   int    `json:"total"`   // commits inside the retention window (0: not known)
	Done    bool   `json:"done"`
	Error   string `json:"error,omitempty"` // why the last poll failed; "" when it worked
}

// Tailnet describes the tsnet node when tailnet mode is on.
type Tailnet struct {
	Name      string   `json:"tailnet"`
	NodeName  string   `json:"node_name"`
	Addresses []string `json:"addresses"`
	State     string   `json:"state"`
}

// AskRequest is an outgoing aoi.query.
type AskRequest struct {
	To           string   `json:"to"`
	Query        string   `json:"query"`
	ContextScope []string `json:"context_scope,omitempty"`
	Priority     string   `json:"priority,omitempty"`
	Async        bool     `json:"async,omitempty"`
	TimeoutSec   int      `json:"timeout,omitempty"`
}

// AskResult is what the peer returned at once; when Completed is false the
// answer follows as a Message with RelatedID == QueryID.
type AskResult struct {
	QueryID string          `json:"query_id"`
	Result  json.RawMessage `json:"result"`
}

// AskQueued is the metadata state of an AskResult whose peer could not be
// reached: the question waits in the outbox and goes out when it is back.
const AskQueued = "queued"

// Query handling outcomes, recorded with each received query.
const (
	QueryAnswered  = inbox.Answered  // auto-responded or answered by the owner
	QueryBuffered  = inbox.Buffered  // waiting for focus time to end
	QueryEscalated = inbox.Escalated // rang the owner, waiting in the queries pane
	QueryAwaiting  = inbox.Awaiting  // stored, waiting for the owner (no secretary decision)
	QueryDeclined  = inbox.Declined
)

// Query is a query received from a peer.
type Query struct {
	ID   string `json:"id"`
	From string `json:"from"`
	// AskerID is the id the asker knows the question by (its request
	// id, ask-…: what `aoi query` printed there), to match one a
	// colleague quotes.
	AskerID      string          `json:"asker_id,omitempty"`
	Text         string          `json:"query"`
	ContextScope []string        `json:"context_scope,omitempty"`
	Priority     string          `json:"priority"`
	State        string          `json:"state"`
	Decision     string          `json:"decision,omitempty"` // AUTO_RESPOND | BUFFER | ESCALATE
	Confidence   float64         `json:"confidence"`
	Draft        json.RawMessage `json:"draft,omitempty"`  // secretary's draft QueryResult
	Answer       json.RawMessage `json:"answer,omitempty"` // what was sent
	ReceivedAt   time.Time       `json:"received_at"`
	AnsweredAt   *time.Time      `json:"answered_at,omitempty"`
	// Undelivered: answered or declined, but the reply still waits in the
	// outbox (the asker was unreachable); it goes when the asker is back.
	Undelivered bool `json:"undelivered,omitempty"`
}

// QueryByIDStart finds the query id names among qs: the one with that
// id; else, as tab completion leaves an id when several share its start,
// the one question still open (not answered or declined) whose id starts
// so; else, when none open does, the one answered or declined, whose
// answer then says it was. ok is false when id names none of these (or
// several): the caller passes id on as it is, for the core to refuse.
func QueryByIDStart(qs []Query, id string) (q Query, ok bool) {
	if id == "" {
		return Query{}, false
	}
	var open, settled []Query
	for _, q := range qs {
		switch {
		case q.ID == id:
			return q, true
		case !strings.HasPrefix(q.ID, id):
		case q.State == QueryAnswered || q.State == QueryDeclined:
			settled = append(settled, q)
		default:
			open = append(open, q)
		}
	}
	switch {
	case len(open) == 1:
		return open[0], true
	case len(open) == 0 && len(settled) == 1:
		return settled[0], true
	}
	return Query{}, false
}

// QueriesStartingWith counts the queries among qs whose id starts with id:
// when QueryByIDStart names none, several of them say the start is too
// short, and none that it fits no id at all.
func QueriesStartingWith(qs []Query, id string) int {
	n := 0
	for _, q := range qs {
		if strings.HasPrefix(q.ID, id) {
			n++
		}
	}
	return n
}

// QueryFilter narrows Queries. Empty fields match everything.
type QueryFilter struct {
	State string `json:"state,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// ReportedEvent is a context event pushed by the coding assistant.
type ReportedEvent struct {
	Type     string         `json:"type"` // e.g. file.edited, test.run, progress
	File     string         `json:"file_path,omitempty"`
	Content  string         `json:"content"`
	Progress *int           `json:"progress,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
}

// TaskRequest is an outgoing aoi.task.execute.
type TaskRequest struct {
	To           string            `json:"to"`
	TaskType     string            `json:"task_type"`
	Params       map[string]string `json:"task_params,omitempty"`
	ContextScope []string          `json:"context_scope,omitempty"`
	Sync         bool              `json:"sync,omitempty"`
	TimeoutSec   int               `json:"timeout,omitempty"`
	// NoQueue makes a peer that cannot be reached an error rather than a
	// request queued in the outbox, as Sync does: `aoi task --sync` sends
	// its request async, to say once the peer has queued it that it
	// waits, and must not leave one behind when it fails.
	NoQueue bool `json:"no_queue,omitempty"`
}

// Label names a task request the way its asker reads it back: "task
// run_tests suite=./auth/...", the params sorted, so two results of one
// task type can be told apart.
func (r TaskRequest) Label() string {
	keys := make([]string, 0, len(r.Params))
	for k := range r.Params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	label := "task " + r.TaskType
	for _, k := range keys {
		label += " " + k + "=" + r.Params[k]
	}
	return label
}

// TaskTicket is the peer's immediate answer to a task request.
type TaskTicket struct {
	RequestID string          `json:"request_id"`
	TaskID    string          `json:"task_id"`
	Status    string          `json:"status"`
	Result    json.RawMessage `json:"result,omitempty"`
}

// Task states (seed 004 state machine).
const (
	TaskPending    = "pending"
	TaskApproved   = "approved"
	TaskInProgress = "in_progress"
	TaskReview     = "review"
	TaskCompleted  = "completed"
	TaskRejected   = "rejected"
	TaskExpired    = "expired"
	TaskFailed     = "failed"
	TaskCanceled   = "canceled"
)

// Task is a task this agent runs for a peer (or, from RemoteTaskStatus, one
// a peer runs for us).
type Task struct {
	ID         string            `json:"task_id"`
	Requester  string            `json:"requester"`
	Type       string            `json:"task_type"`
	Params     map[string]string `json:"task_params,omitempty"`
	State      string            `json:"status"`
	ExitCode   *int              `json:"exit_code,omitempty"`
	Output     json.RawMessage   `json:"output,omitempty"`
	Error      string            `json:"error,omitempty"`
	CreatedAt  time.Time         `json:"created_at"`
	UpdatedAt  time.Time         `json:"updated_at"`
	StartedAt  *time.Time        `json:"started_at,omitempty"`
	FinishedAt *time.Time        `json:"finished_at,omitempty"`
}

// TaskFilter narrows Tasks.
type TaskFilter struct {
	State string `json:"state,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// Approval is a task waiting for (or decided by) the owner.
type Approval struct {
	ID          string            `json:"id"`
	TaskID      string            `json:"task_id"`
	Requester   string            `json:"requester"`
	TaskType    string            `json:"task_type"`
	Params      map[string]string `json:"task_params,omitempty"`
	MatchedRule string            `json:"matched_rule,omitempty"`
	State       string            `json:"state"` // pending | approved | rejected | expired
	Reason      string            `json:"reason,omitempty"`
	DecidedBy   string            `json:"decided_by,omitempty"` // owner | rule id
	CreatedAt   time.Time         `json:"created_at"`
	ExpiresAt   time.Time         `json:"expires_at"`
	DecidedAt   *time.Time        `json:"decided_at,omitempty"`
	// Plan is what approving would run, from the config now (pending
	// approvals only).
	Plan *TaskPlan `json:"plan,omitempty"`
}

// TaskPlan is what an approved task runs: the command with its placeholders
// filled, where, how isolated and for how long. Problem is set instead when
// the task could no longer start as configured.
type TaskPlan struct {
	Argv      []string `json:"argv,omitempty"`
	MCPTool   string   `json:"mcp_tool,omitempty"`
	Context   string   `json:"context,omitempty"`
	RepoPath  string   `json:"repo_path,omitempty"`
	Isolation string   `json:"isolation,omitempty"`
	Branch    string   `json:"worktree_branch,omitempty"`
	// Ref is the git ref the requester asked the worktree at ("": HEAD),
	// and RefCommit the commit it named then: what runs, however the
	// branch moves before the task starts.
	Ref        string `json:"ref,omitempty"`
	RefCommit  string `json:"ref_commit,omitempty"`
	TimeoutSec int    `json:"timeout_sec,omitempty"`
	// Unconfined: the task type is configured unconfined: true, so its
	// command runs without Landlock and writes wherever the owner can.
	Unconfined bool   `json:"unconfined,omitempty"`
	Problem    string `json:"problem,omitempty"`
}

// ApprovalFilter narrows Approvals.
type ApprovalFilter struct {
	State string `json:"state,omitempty"`
	Limit int    `json:"limit,omitempty"`
}

// AuditEntry is one row of the hash-chained audit log.
type AuditEntry struct {
	Seq      int64           `json:"seq"`
	Time     time.Time       `json:"time"`
	Agent    string          `json:"agent"`  // the peer (or "owner"/"system")
	Method   string          `json:"method"` // aoi.query, ctl.approve, acl.deny, …
	Result   string          `json:"result"` // ok | error code name
	Detail   json.RawMessage `json:"detail,omitempty"`
	PrevHash string          `json:"prev_hash"`
	Hash     string          `json:"hash"`
}

// AuditFilter narrows Audit. Text is a case-insensitive substring of the
// agent, method, result or detail of a row.
type AuditFilter struct {
	Agent     string `json:"agent,omitempty"`
	Method    string `json:"method,omitempty"`
	Result    string `json:"result,omitempty"`
	Text      string `json:"text,omitempty"`
	BeforeSeq int64  `json:"before_seq,omitempty"`
	Limit     int    `json:"limit,omitempty"`
}

// AuditVerification is the outcome of walking the chain.
type AuditVerification struct {
	OK       bool   `json:"ok"`
	Entries  int64  `json:"entries"`
	FirstBad int64  `json:"first_bad_seq,omitempty"`
	Problem  string `json:"problem,omitempty"`
	// SealedThrough is the last row a seal signed with this agent's
	// identity key covers (0: none yet); Unsealed counts the rows after
	// that seal, which rest on the hash chain alone.
	SealedThrough int64 `json:"sealed_through,omitempty"`
	Unsealed      int64 `json:"unsealed_rows"`
	// Warning says what could not be checked though the chain verifies:
	// the log holds seals but audit-seal.json, the newest seal's copy
	// outside the database, is missing from the data dir.
	Warning string `json:"warning,omitempty"`
}

// Event kinds streamed to front ends (agent/events).
const (
	EventQueryReceived     = events.QueryReceived
	EventQueryUpdated      = events.QueryUpdated
	EventMessageReceived   = events.MessageReceived
	EventMessagesRead      = events.MessagesRead
	EventMessagesReadSome  = events.MessagesReadSome
	EventApprovalRequested = events.ApprovalRequested
	EventApprovalDecided   = events.ApprovalDecided
	EventApprovalExpired   = events.ApprovalExpired
	EventTaskState         = events.TaskState
	EventTaskHeartbeat     = events.TaskHeartbeat
	EventPeerChanged       = events.PeerChanged
	EventTrustRequested    = events.TrustRequested
	EventAudit             = events.Audit
	EventFocusChanged      = events.FocusChanged
	EventAttention         = events.Attention
	EventCoordTask         = events.CoordTask
	EventAskSent           = events.AskSent
	EventOutboxChanged     = events.OutboxChanged
	EventCoreDisconnected  = events.CoreDisconnected
	EventCoreReconnected   = events.CoreReconnected
)

// Event is a change in the core (agent/events). It carries ids and a
// one-line summary; front ends fetch details through Service.
type Event = events.Event

// Types of the capability packages, under the names front ends use.
type (
	SendMessageRequest = messaging.SendMessageRequest
	SentMessage        = messaging.SentMessage
	InboxFilter        = messaging.InboxFilter
	InboxPage          = messaging.InboxPage
	OlderAgentError    = messaging.OlderAgentError
	CoordTask          = messaging.CoordTask
	CoordTasksRequest  = messaging.CoordTasksRequest
	Message            = messaging.Message
	Peer               = peers.Peer
	TrustRequest       = peers.TrustRequest
)

// ReloadReport says what a reload changed, in words for the owner.
type ReloadReport struct {
	Path string `json:"path"`
	// Changes are the settings now in force, e.g. "acl: 2 rules → 3 (+pm-read)",
	// "secretary.interrupt_control.auto_respond_threshold 0.8 → 0.7",
	// "tasks: +docs".
	Changes []string `json:"changes"`
	// Restart are changed settings the running process cannot apply
	// (listen address, tailnet, metrics address, …).
	Restart []string `json:"restart,omitempty"`
}

// String is the report on one line.
func (r ReloadReport) String() string {
	var b strings.Builder
	b.WriteString("config reloaded")
	if len(r.Changes) == 0 {
		b.WriteString(": no changes")
	} else {
		b.WriteString(": " + strings.Join(r.Changes, "; "))
	}
	if len(r.Restart) > 0 {
		b.WriteString("; restart aoi to apply: " + strings.Join(r.Restart, "; "))
	}
	return b.String()
}
