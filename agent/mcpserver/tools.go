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
)

// tools defines every tool. Names and descriptions are kept short: they are
// sent to the model on every turn (the test holds them under 2,000 tokens).
func (h *handlers) tools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool(ToolDiscover,
			mcp.WithDescription("List colleagues' agents: id, role, status, contexts, task types."),
			mcp.WithBoolean("refresh", mcp.Description("Ask the network again first.")),
		), Handler: h.discover},
		{Tool: mcp.NewTool(ToolQuery,
			mcp.WithDescription("Ask a colleague's secretary about their work. If not answered at once, the answer arrives as a message."),
			mcp.WithString("to", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxID), mcp.Description("Agent id, e.g. eng-suzuki.")),
			mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxQuery)),
			mcp.WithArray("scope", mcp.MaxItems(maxScope), mcp.WithStringItems(mcp.MaxLength(maxScopeLen)),
				mcp.Description("Contexts, e.g. acme/webapp.")),
			mcp.WithString("priority", mcp.Enum(wire.PriorityLow, wire.PriorityNormal, wire.PriorityHigh, wire.PriorityCritical)),
			mcp.WithInteger("wait_seconds", mcp.Min(0), mcp.Max(maxWaitSec), mcp.Description("Wait this long for a late answer.")),
		), Handler: h.query},
		{Tool: mcp.NewTool(ToolCheckMessages,
			mcp.WithDescription("New messages (answers, task results) after last_id, in order, plus questions waiting for aoi_reply. Pass back the returned last_id."),
			mcp.WithInteger("last_id", mcp.Min(0), mcp.Max(maxLastID)),
			mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxLimit)),
		), Handler: h.checkMessages},
		{Tool: mcp.NewTool(ToolReply,
			mcp.WithDescription("Answer (or decline) a colleague's question waiting for the owner."),
			mcp.WithString("query_id", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxID)),
			mcp.WithString("text", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxReply)),
			mcp.WithBoolean("decline", mcp.Description("Refuse; text is the reason.")),
		), Handler: h.reply},
		{Tool: mcp.NewTool(ToolReportEvent,
			mcp.WithDescription("Record what you did (edit, test run, error, decision) so the secretary can answer colleagues. Secrets are redacted."),
			mcp.WithString("type", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxType), mcp.Pattern(`^[a-z][a-z0-9_.-]*$`),
				mcp.Description("e.g. file.edited, test.run, error, note.")),
			mcp.WithString("content", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxContent)),
			mcp.WithString("file_path", mcp.MaxLength(maxPath)),
		), Handler: h.reportEvent},
		{Tool: mcp.NewTool(ToolUpdateProgress,
			mcp.WithDescription("Report progress on the current task."),
			mcp.WithInteger("percent", mcp.Required(), mcp.Min(0), mcp.Max(100)),
			mcp.WithString("summary", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxSummary)),
		), Handler: h.updateProgress},
		{Tool: mcp.NewTool(ToolTaskStatus,
			mcp.WithDescription("Status of a task you asked a colleague's agent to run."),
			mcp.WithString("agent", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxID)),
			mcp.WithString("task_id", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxID)),
		), Handler: h.taskStatus},
	}
}
