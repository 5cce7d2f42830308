package wire

import (
	"encoding/json"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
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
// at most 128 bytes of letters and digits of any script, '.', '_', ':' or
// '-', not starting with '.' or a combining mark, in Unicode's composed
// form (NFC). People name their tasks and threads in their own language
// (認証-1, ログイン修正); control, format (bidi, zero-width) and space
// characters stay out, and so does a decomposed spelling, so an id shows as
// what it compares as. Anything else is refused without being echoed.
func ValidID(s string) bool {
	if s == "" || len(s) > 128 || !utf8.ValidString(s) || !norm.NFC.IsNormalString(s) {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == ':' || r == '-' || r == '.' && i > 0:
		case invisible(r):
			return false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		case unicode.IsMark(r) && i > 0:
		default:
			return false
		}
	}
	return true
}

// invisible reports a letter or mark that draws nothing: Hangul fillers
// (letters, to Unicode) and variation selectors (marks) would let two ids
// that look the same differ.
func invisible(r rune) bool {
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Variation_Selector, r)
}
