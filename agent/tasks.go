package agent

import (
	"context"
	"errors"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// errNoTasks is returned until the task engine is wired in.
var errNoTasks = errors.New("tasks are not enabled in this build")

// openTasks builds the task engine from the config.
func (c *Core) openTasks(ctx context.Context, cfg *config.Config) error { return nil }

// registerTaskHandlers installs aoi.task.* on the peer server.
func (c *Core) registerTaskHandlers(s *rpc.Server) {}

// pendingApprovals counts approvals waiting for the owner.
func (c *Core) pendingApprovals(ctx context.Context) int { return 0 }

// Approvals lists local approvals.
func (c *Core) Approvals(ctx context.Context, f ApprovalFilter) ([]Approval, error) {
	return nil, errNoTasks
}

// Approve approves a pending task.
func (c *Core) Approve(ctx context.Context, id string) error { return errNoTasks }

// Reject rejects a pending task.
func (c *Core) Reject(ctx context.Context, id, reason string) error { return errNoTasks }

// Tasks lists tasks this agent runs for peers.
func (c *Core) Tasks(ctx context.Context, f TaskFilter) ([]Task, error) { return nil, errNoTasks }
