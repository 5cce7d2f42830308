package messaging

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Coordination task states (seed 004), moved by typed messages:
// assigned → in_progress → review → done | failed, and review →
// in_progress when a review asks for changes.
const (
	CoordAssigned   = "assigned"
	CoordInProgress = "in_progress"
	CoordReview     = "review"
	CoordDone       = "done"
	CoordFailed     = "failed"

	SideRequester = "requester" // this agent asked for the task
	SideAssignee  = "assignee"  // this agent works on it
)

// SendMessageRequest is an outgoing aoi.message. To may be empty when
// TaskID names a task with one counterpart: the message goes to it (so a
// worker's progress reaches whoever assigned the task). Forward relays a
// received message (by its seq) keeping its type, task, thread, payload
// and original sender; fields set here override it.
type SendMessageRequest struct {
	To       string          `json:"to,omitempty"`
	Type     string          `json:"type,omitempty"`
	TaskID   string          `json:"task_id,omitempty"`
	ThreadID string          `json:"thread_id,omitempty"`
	ReplyTo  string          `json:"reply_to,omitempty"`
	Priority string          `json:"priority,omitempty"`
	Payload  json.RawMessage `json:"payload,omitempty"`
	Forward  int64           `json:"forward,omitempty"`

	origin string // first sender of a forwarded message (set by the core)
}

// SentMessage is what SendMessage stored: the message id and whether it
// waits in the outbox, because the recipient is offline or refused it.
type SentMessage struct {
	ID       string `json:"message_id"`
	To       string `json:"to"`
	Type     string `json:"type"`
	TaskID   string `json:"task_id,omitempty"`
	ThreadID string `json:"thread_id"`
	Queued   bool   `json:"queued"`
	// Refused: the receiver was reached and said no; the message stays
	// queued, but only its owner can let it through.
	Refused   bool   `json:"refused,omitempty"`
	TaskState string `json:"task_state,omitempty"`
	Note      string `json:"note"`
}

// InboxFilter narrows Inbox. Empty fields match everything.
type InboxFilter struct {
	AfterSeq int64  `json:"last_id,omitempty"`
	Type     string `json:"type,omitempty"`
	TaskID   string `json:"task_id,omitempty"`
	ThreadID string `json:"thread_id,omitempty"`
	Unread   bool   `json:"unread,omitempty"`
	Limit    int    `json:"limit,omitempty"`
	// Assistant marks the call as the coding assistant's poll (its
	// heartbeat); the CLI and the interface leave it false.
	Assistant bool `json:"assistant,omitempty"`
	// WithSent adds, to a ThreadID or TaskID page, the messages this agent
	// sent in the thread or about the task, so the page reads as the whole
	// conversation (Sent set).
	WithSent bool `json:"with_sent,omitempty"`
	// AfterMessage starts a WithSent page after the message this agent
	// sent with this id (InboxPage.LastMessageID), where AfterSeq can only
	// name a received one.
	AfterMessage string `json:"after_message_id,omitempty"`
}

// IgnoredBy names the options of f that applied, the filter an agent
// answered f with (InboxPage.Applied), does not hold: an aoi started
// before the caller was built did not know them, and its page reads
// wrong without them. An agent that echoes no filter is older than the
// echo, and may not know the options added shortly before it: the whole
// conversation (with_sent) and paging after a sent message
// (after_message_id). A new option gets its line here.
func (f InboxFilter) IgnoredBy(applied *InboxFilter) []string {
	var ignored []string
	if f.WithSent && (applied == nil || !applied.WithSent) {
		ignored = append(ignored, "with_sent")
	}
	if f.AfterMessage != "" && (applied == nil || applied.AfterMessage != f.AfterMessage) {
		ignored = append(ignored, "after_message_id")
	}
	return ignored
}

// OlderAgentError says that the running aoi answered without options it
// does not know (InboxFilter.IgnoredBy): it is older than the aoi that
// asked, and is restarted to know them. The answer is not shown: a
// conversation without the messages you sent, or a first page instead
// of the next, reads as if it were right.
type OlderAgentError struct {
	Options []string // InboxFilter's JSON names
}

// olderAgentOptions says what each option asked for; a front end may
// name its own flags instead (Ignored).
var olderAgentOptions = map[string]string{
	"with_sent":        "the messages you sent in the conversation",
	"after_message_id": "the page after a message you sent",
}

func (e *OlderAgentError) Error() string { return e.Ignored(olderAgentOptions) }

// Ignored is the error's text with each option called what names calls
// it (its JSON name when names has none).
func (e *OlderAgentError) Ignored(names map[string]string) string {
	asked := make([]string, len(e.Options))
	for i, o := range e.Options {
		asked[i] = cmp(names[o], o)
	}
	return fmt.Sprintf("the running aoi is older than this one and ignored %s: restart it (quit aoi or `aoi serve` and start it again), then ask again",
		strings.Join(asked, " and "))
}

// Conversation reports whether f asks for a thread's or a task's whole
// conversation, the messages this agent sent in it included.
func (f InboxFilter) Conversation() bool {
	return f.WithSent && (f.ThreadID != "" || f.TaskID != "") && !f.Unread
}

// InboxPage is one page of the inbox in sequence order: notifications and
// typed messages, or only typed ones when a type/task/thread filter is set.
type InboxPage struct {
	Messages []Message `json:"messages"`
	LastID   int64     `json:"last_id"`
	More     bool      `json:"more"`
	// LastMessageID is set when a conversation's page (WithSent) ends
	// with a message this agent sent: its id, where the next page starts
	// (InboxFilter.AfterMessage).
	LastMessageID string `json:"last_message_id,omitempty"`
	// Others counts, by sender, the messages received naming the
	// thread or task asked for from peers that take no part in its
	// conversation (neither started it nor were written to in it): they
	// are left off the page, and listed with every message received.
	Others map[string]int `json:"others,omitempty"`
	// Applied is the filter as the agent read it (the control socket
	// echoes it): a caller newer than the running aoi tells from it the
	// options that aoi did not know (InboxFilter.IgnoredBy).
	Applied *InboxFilter `json:"applied,omitempty"`
}

// CoordTask is a coordination task with one counterpart.
type CoordTask struct {
	TaskID    string    `json:"task_id"`
	Peer      string    `json:"peer"`
	Side      string    `json:"side"`
	State     string    `json:"state"`
	Summary   string    `json:"summary,omitempty"`
	LastType  string    `json:"last_type,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// CoordTasksRequest narrows CoordTasks to one task ("" = all).
type CoordTasksRequest struct {
	TaskID string `json:"task_id,omitempty"`
}

// Message is a notification (aoi.notify) or a typed message (aoi.message)
// received from a peer, in order. Type and the fields after it are set
// for typed messages only (Event then repeats Type, Data is the payload).
type Message struct {
	Seq        int64           `json:"seq"`
	From       string          `json:"from"`
	Event      string          `json:"event"`
	RelatedID  string          `json:"related_query_id,omitempty"`
	Data       json.RawMessage `json:"data"`
	ReceivedAt time.Time       `json:"received_at,omitzero"`
	Type       string          `json:"type,omitempty"`
	TaskID     string          `json:"task_id,omitempty"`
	ThreadID   string          `json:"thread_id,omitempty"`
	ReplyTo    string          `json:"reply_to,omitempty"`
	Origin     string          `json:"origin,omitempty"`
	Priority   string          `json:"priority,omitempty"`
	MessageID  string          `json:"message_id,omitempty"`
	// Read is whether the owner has seen it (MarkMessagesRead);
	// AssistantSeen whether aoi_check_messages has shown it to the coding
	// assistant (what `aoi messages --unread` leaves out). Two readers,
	// two marks.
	Read          bool `json:"read"`
	AssistantSeen bool `json:"assistant_seen"`
	// Question is the text of the owner's question an answer replies to
	// (RelatedID names one this agent asked), kept across restarts, or of
	// the message this agent sent that a typed reply names (ReplyTo).
	Question string `json:"question,omitempty"`
	// Sent marks a message this agent sent (InboxFilter.WithSent): it has
	// no Seq, From is this agent, To the recipient, SentAt when it was
	// queued and Delivery what became of it (delivered, queued, refused,
	// expired).
	Sent     bool      `json:"sent,omitempty"`
	To       string    `json:"to,omitempty"`
	SentAt   time.Time `json:"sent_at,omitzero"`
	Delivery string    `json:"delivery,omitempty"`
}

// At is when the message arrived, or for one this agent sent, when it
// was sent: the time a conversation is ordered by.
func (m Message) At() time.Time {
	if m.Sent {
		return m.SentAt
	}
	return m.ReceivedAt
}

// Kind is what a person reads the message as: a typed message's type, else
// the notification's event, except that a task which ended without
// running (task.failed on the wire, status rejected, expired or canceled) is named
// for what happened: the owner's no is not a failure.
func (m Message) Kind() string {
	if m.Type != "" {
		return m.Type
	}
	if m.Event == "task.failed" {
		var d struct {
			Status string `json:"status"`
		}
		if json.Unmarshal(m.Data, &d) == nil && (d.Status == "rejected" || d.Status == "expired" || d.Status == "canceled") {
			return "task." + d.Status
		}
	}
	return m.Event
}
