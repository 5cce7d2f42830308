package mcpserver

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/aoi-protocol/aoi/agent/wire"
)

// Bounds on arguments, shared by the schemas and the handlers.
const (
	maxID       = 128     // agent, query and task ids
	maxQuery    = 8 << 10 // the core's own limit on a query's text
	maxScope    = 16
	maxScopeLen = 256
	maxReply    = 8 << 10
	maxType     = 64
	maxContent  = 16 << 10
	maxPath     = 1024
	maxSummary  = 2000
	maxLastID   = 1 << 53 // the largest integer JSON numbers carry exactly
	maxLimit    = 100
	maxWaitSec  = 120
	maxOpen     = 200 // open questions listed per state
	maxPayload  = 16 << 10
)

// Tool names.
const (
	ToolDiscover       = "aoi_discover"
	ToolQuery          = "aoi_query"
	ToolCheckMessages  = "aoi_check_messages"
	ToolReply          = "aoi_reply"
	ToolReportEvent    = "aoi_report_event"
	ToolUpdateProgress = "aoi_update_progress"
	ToolTaskStatus     = "aoi_task_status"
	ToolSendMessage    = "aoi_send_message"
)

// Tool annotations carry only what differs from the MCP defaults
// (read-write, destructive, open world): no aoi tool destroys anything,
// discovery and task status only read, and recording events or reading the
// inbox stays on this machine. Absent hints cost no tokens.
var readOnly mcp.ToolOption = func(t *mcp.Tool) {
	t.Annotations = mcp.ToolAnnotation{ReadOnlyHint: mcp.ToBoolPtr(true)}
}

// changes marks a tool that changes state without destroying anything;
// openWorld says whether it reaches other agents.
func changes(openWorld bool) mcp.ToolOption {
	return func(t *mcp.Tool) {
		t.Annotations = mcp.ToolAnnotation{DestructiveHint: mcp.ToBoolPtr(false)}
		if !openWorld {
			t.Annotations.OpenWorldHint = mcp.ToBoolPtr(false)
		}
	}
}

// tools defines every tool. Names and descriptions are kept short: they are
// sent to the model on every turn (the test holds them under 2,000 tokens).
func (h *handlers) tools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool(ToolDiscover, readOnly,
			mcp.WithDescription("List colleagues' agents: id, role, status, contexts, task types."),
			mcp.WithBoolean("refresh", mcp.Description("Ask the network again first.")),
		), Handler: h.discover},
		{Tool: mcp.NewTool(ToolQuery, changes(true),
			mcp.WithDescription("Ask a colleague's secretary about their work. If not answered at once, the answer arrives as a message."),
			mcp.WithString("to", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxID), mcp.Description("Agent id from aoi_discover, e.g. eng-suzuki.")),
			mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxQuery), mcp.Description("The question, in words.")),
			mcp.WithArray("scope", mcp.MaxItems(maxScope), mcp.WithStringItems(mcp.MaxLength(maxScopeLen)),
				mcp.Description("Only these contexts, e.g. acme/webapp.")),
			mcp.WithString("priority", mcp.Enum(wire.PriorityLow, wire.PriorityNormal, wire.PriorityHigh, wire.PriorityCritical), mcp.Description("Default normal; high rings the owner.")),
			mcp.WithInteger("wait_seconds", mcp.Min(0), mcp.Max(maxWaitSec), mcp.Description("Wait up to this long for a late answer; 0 returns at once.")),
		), Handler: h.query},
		{Tool: mcp.NewTool(ToolCheckMessages, changes(false),
			mcp.WithDescription("Your inbox in order (messages, answers, task results) and questions awaiting aoi_reply. Poll regularly: it is your heartbeat."),
			mcp.WithInteger("last_id", mcp.Min(0), mcp.Max(maxLastID), mcp.Description("last_id from the previous call (0 first); more=true means call again.")),
			mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxLimit), mcp.Description("At most this many (default 20).")),
			mcp.WithString("type", mcp.Enum(wire.MessageTypes...), mcp.Description("Only this message type.")),
			mcp.WithString("task_id", mcp.MaxLength(maxID), mcp.Description("Only this task's messages.")),
			mcp.WithString("thread_id", mcp.MaxLength(maxID), mcp.Description("Only this thread (others: senders outside it, left out).")),
			mcp.WithBoolean("unread", mcp.Description("Only messages not returned before.")),
			mcp.WithBoolean("include_sent", mcp.Description("With thread_id or task_id: the whole conversation, your sent messages (sent=true) among the received, in time order.")),
			mcp.WithString("last_message_id", mcp.MaxLength(maxID), mcp.Description("With include_sent: last_message_id from the previous call, if any (pass last_id too).")),
		), Handler: h.checkMessages},
		{Tool: mcp.NewTool(ToolSendMessage, changes(true),
			mcp.WithDescription("Send a typed message to a colleague's coding assistant; queued while they are offline. It moves task_id's state."),
			mcp.WithString("to", mcp.MaxLength(maxID), mcp.Description("Agent id; omit with task_id to reach whoever assigned that task.")),
			mcp.WithString("type", mcp.Enum(wire.MessageTypes...), mcp.Description("Required unless forwarding. task_assign→assigned, progress→in_progress, review_request→review, review_result {approved:false}→in_progress, task_complete→done.")),
			mcp.WithObject("payload", mcp.Description(`e.g. {"description":…}, {"status":…,"message":…}, {"approved":false,"feedback":…}.`)),
			mcp.WithString("task_id", mcp.MaxLength(maxID), mcp.Description("Task this concerns, e.g. T-1.")),
			mcp.WithString("thread_id", mcp.MaxLength(maxID), mcp.Description("Keep a conversation together; default: reply_to's thread, else task_id's with them, else new.")),
			mcp.WithString("reply_to", mcp.MaxLength(maxID), mcp.Description("message_id answered.")),
			mcp.WithString("priority", mcp.Enum(wire.PriorityLow, wire.PriorityNormal, wire.PriorityHigh, wire.PriorityCritical), mcp.Description("Default normal; high and critical ring the owner.")),
			mcp.WithInteger("forward_id", mcp.Min(1), mcp.Max(maxLastID), mcp.Description("Relay your received message with this id, keeping its sender and thread.")),
		), Handler: h.sendMessage},
		{Tool: mcp.NewTool(ToolReply, changes(true),
			mcp.WithDescription("Answer (or decline) a colleague's question waiting for the owner."),
			mcp.WithString("query_id", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxID), mcp.Description("query_id from aoi_check_messages' open_questions.")),
			mcp.WithString("text", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxReply), mcp.Description("The answer sent to the asker.")),
			mcp.WithBoolean("decline", mcp.Description("Refuse; text is the reason.")),
		), Handler: h.reply},
		{Tool: mcp.NewTool(ToolReportEvent, changes(false),
			mcp.WithDescription("Record what you did (edit, test run, error, decision) so the secretary can answer colleagues. Secrets are redacted."),
			mcp.WithString("type", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxType), mcp.Pattern(`^[a-z][a-z0-9_.-]*$`),
				mcp.Description("e.g. file.edited, test.run, error, note.")),
			mcp.WithString("content", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxContent), mcp.Description("What happened, e.g. test output.")),
			mcp.WithString("file_path", mcp.MaxLength(maxPath), mcp.Description("File concerned, if any.")),
		), Handler: h.reportEvent},
		{Tool: mcp.NewTool(ToolUpdateProgress, changes(true),
			mcp.WithDescription("Report progress on the current task; with task_id it is also sent to whoever assigned it."),
			mcp.WithInteger("percent", mcp.Required(), mcp.Min(0), mcp.Max(100), mcp.Description("0–100.")),
			mcp.WithString("summary", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxSummary), mcp.Description("What is done and what is next.")),
			mcp.WithString("task_id", mcp.MaxLength(maxID), mcp.Description("Task you work on, e.g. T-1; its assigner is told.")),
		), Handler: h.updateProgress},
		{Tool: mcp.NewTool(ToolTaskStatus, readOnly,
			mcp.WithDescription("Status of a task: with agent, one you asked that agent to run; without, a coordination task from messages (state per counterpart)."),
			mcp.WithString("agent", mcp.MaxLength(maxID), mcp.Description("Agent running a configured task.")),
			mcp.WithString("task_id", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxID), mcp.Description("Task id.")),
		), Handler: h.taskStatus},
	}
}
