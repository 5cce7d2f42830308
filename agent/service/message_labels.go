package service

// messageKindLabels are the protocol's events as a reader names them: the
// interface's Messages pane, `aoi inbox` and `aoi messages` say "answer"
// for query.completed alike. A typed message (aoi.message) has none: it
// reads as its type, task_assign, the word `aoi send` and `--type` take
// and the coding assistant sees (the thirteenth walk read "task assigned"
// in `aoi inbox` beside task_assign in `aoi messages`).
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
}

// MessageKindLabel is what a message is, in words (Message.Kind names the
// protocol's event), or the kind itself when it has none.
func MessageKindLabel(kind string) string {
	if l, ok := messageKindLabels[kind]; ok {
		return l
	}
	return kind
}
