package tui

import (
	"context"

	"github.com/aoi-protocol/aoi/agent"
)

// Service is the part of agent.Service the interface uses: all of the
// admin, peer, received-query, approval and event services, and the
// asking, messaging, mirror and audit methods it has keys and commands
// for. *agent.Core and ctlclient.Client implement it.
type Service interface {
	agent.AdminService
	agent.PeerService
	agent.InboxService
	agent.ApprovalService
	agent.EventService
	// PromptHistory and RememberPrompt keep the prompt bar's history
	// across restarts.
	agent.PromptService
	// Ask and RequestTask back :ask and :task.
	Ask(ctx context.Context, req agent.AskRequest) (agent.AskResult, error)
	RequestTask(ctx context.Context, req agent.TaskRequest) (agent.TaskTicket, error)
	// Messages, MarkMessagesRead and CoordTasks back the Messages pane.
	Messages(ctx context.Context, req agent.MessagesRequest) ([]agent.Message, error)
	MarkMessagesRead(ctx context.Context, req agent.MarkReadRequest) error
	CoordTasks(ctx context.Context, req agent.CoordTasksRequest) ([]agent.CoordTask, error)
	// SendMessage backs :reply, a typed message back to a message's sender.
	SendMessage(ctx context.Context, req agent.SendMessageRequest) (agent.SentMessage, error)
	// Outbox backs :outbox, what waits to be delivered to peers.
	Outbox(ctx context.Context) ([]agent.OutboxEntry, error)
	// Note backs :note; Audit the Audit pane.
	Note(ctx context.Context, req agent.NoteRequest) (agent.NoteSaved, error)
	Audit(ctx context.Context, f agent.AuditFilter) ([]agent.AuditEntry, error)
}

var _ Service = agent.Service(nil)
