package wire

import (
	"encoding/json"
	"time"
)

// Message types of aoi.message (seed 004's coordination vocabulary).
const (
	MsgTaskAssign    = "task_assign"
	MsgProgress      = "progress"
	MsgQuestion      = "question"
	MsgAnswer        = "answer"
	MsgReviewRequest = "review_request"
	MsgReviewResult  = "review_result"
	MsgTaskComplete  = "task_complete"
	MsgNote          = "note"
)

// MessageTypes lists every aoi.message type, in workflow order.
var MessageTypes = []string{MsgTaskAssign, MsgProgress, MsgQuestion, MsgAnswer,
	MsgReviewRequest, MsgReviewResult, MsgTaskComplete, MsgNote}

// Bounds on what a peer puts in the coding assistant's inbox: an
// aoi.message's payload, and the data of an aoi.notify that answers
// nothing this agent asked. The assistant reads it whole (into its model's
// context), and a Python MCP client fails past a thousand levels of
// nesting.
const (
	MaxPayloadBytes = 16 << 10
	MaxPayloadDepth = 32
)

// MessageParams are aoi.message's params: a typed envelope for the
// recipient's coding assistant (never its secretary). ID is the sender's
// message id; the receiver stores a retried delivery once. Origin is the
// first sender when an orchestrator relays a message (empty otherwise).
type MessageParams struct {
	ID        string          `json:"id"`
	From      string          `json:"from"`
	To        string          `json:"to"`
	Type      string          `json:"type"`
	TaskID    string          `json:"task_id,omitempty"`
	ThreadID  string          `json:"thread_id,omitempty"`
	ReplyTo   string          `json:"reply_to,omitempty"`
	Priority  string          `json:"priority,omitempty"`
	Origin    string          `json:"origin,omitempty"`
	Payload   json.RawMessage `json:"payload"`
	Timestamp time.Time       `json:"timestamp"`
}

// MessageAck is aoi.message's result.
type MessageAck struct {
	Received  bool  `json:"received"`
	Seq       int64 `json:"seq"`
	Duplicate bool  `json:"duplicate,omitempty"`
}

// ValidID reports whether s is a usable query, task, thread or message id:
// at most 128 ASCII letters, digits, '.', '_', ':' or '-', not starting with '.'.
// Anything else is refused without being echoed.
func ValidID(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' && i > 0 || ch == '_' || ch == ':' || ch == '-') {
			return false
		}
	}
	return true
}
