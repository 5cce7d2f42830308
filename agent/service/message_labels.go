package service

// messageKindLabels are the protocol's events, and the coding assistant's
// message types, as a reader names them: the interface's Messages pane
// and `aoi inbox` say "answer" for query.completed alike.
var messageKindLabels = map[string]string{
	"query.completed": "answer",
	"query.declined":  "declined",
	"task.completed":  "task done",
	"task.failed":     "task failed",
	"task.rejected":   "task rejected",
	"task.expired":    "task expired",
	"task.canceled":   "task canceled",
	"task.state":      "task update",
	"approval.denied": "not approved",
	"context.updated": "news",
	// aoi.message types, for the coding assistant.
	"task_assign":    "task assigned",
	"review_request": "review asked",
	"review_result":  "review",
	"task_complete":  "task complete",
}

// MessageKindLabel is what a message is, in words (Message.Kind names the
// protocol's event), or the kind itself when it has none.
func MessageKindLabel(kind string) string {
	if l, ok := messageKindLabels[kind]; ok {
		return l
	}
	return kind
}
