package agent

import (
	"encoding/json"
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

	// PeerAway: the agent runs, but its coding assistant has not checked
	// its messages within network.assistant_away_after_sec.
	PeerAway = "away"
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
// waits in the outbox because the recipient is offline.
type SentMessage struct {
	ID        string `json:"message_id"`
	To        string `json:"to"`
	Type      string `json:"type"`
	TaskID    string `json:"task_id,omitempty"`
	ThreadID  string `json:"thread_id"`
	Queued    bool   `json:"queued"`
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
}

// InboxPage is one page of the inbox in sequence order: notifications and
// typed messages, or only typed ones when a type/task/thread filter is set.
type InboxPage struct {
	Messages []Message `json:"messages"`
	LastID   int64     `json:"last_id"`
	More     bool      `json:"more"`
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
