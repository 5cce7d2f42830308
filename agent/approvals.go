package agent

import (
	"context"
	"time"

	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/store"
)

// pendingApprovals counts approvals waiting for the owner.
func (c *Core) pendingApprovals(ctx context.Context) int {
	n, err := c.db.CountApprovals(ctx, TaskPending)
	if err != nil {
		return 0
	}
	return n
}

// Approvals lists local approvals, pending first.
func (c *Core) Approvals(ctx context.Context, f ApprovalFilter) ([]Approval, error) {
	recs, err := c.db.Approvals(ctx, f.State, limitOr(f.Limit, 200))
	if err != nil {
		return nil, err
	}
	out := make([]Approval, 0, len(recs))
	for _, a := range recs {
		ap := Approval{ID: a.ID, TaskID: a.TaskID, Requester: a.Requester, TaskType: a.TaskType, Params: a.Params,
			MatchedRule: a.MatchedRule, State: a.State, Reason: a.Reason, DecidedBy: a.DecidedBy, CreatedAt: a.CreatedAt,
			ExpiresAt: a.ExpiresAt, DecidedAt: a.DecidedAt}
		if a.State == TaskPending {
			ap.Plan = taskPlan(c.tasks.Plan(a.TaskID, a.TaskType, a.Params))
			// The ref shapes what runs as much as the params do.
			if rec, ok, err := c.db.Task(ctx, a.TaskID); err == nil && ok && ap.Plan.Problem == "" {
				ap.Plan.Ref, ap.Plan.RefCommit = rec.Ref, rec.RefCommit
			}
		}
		out = append(out, ap)
	}
	return out, nil
}

func taskPlan(p task.Plan) *TaskPlan {
	return &TaskPlan{Argv: p.Argv, MCPTool: p.MCPTool, Context: p.Context, RepoPath: p.Dir, Isolation: p.Isolation,
		Branch: p.Branch, TimeoutSec: int(p.Timeout / time.Second), Unconfined: p.Unconfined, Problem: p.Problem}
}

// Approve approves a pending task; it runs when a slot is free.
// ErrNotFound: no such approval; ErrConflict: it is already decided.
func (c *Core) Approve(ctx context.Context, req ApproveRequest) error {
	return task.DomainError(c.tasks.Approve(ctx, req.ID))
}

// Reject rejects a pending task; the requester gets APPROVAL_DENIED.
// Errors as Approve.
func (c *Core) Reject(ctx context.Context, req RejectRequest) error {
	// Sent to the requester and kept with the task, as an answer's text
	// and a decline's reason are: redacted first.
	reason := c.redactOut(req.Reason)
	if reason == "" {
		reason = "rejected by the owner"
	}
	return task.DomainError(c.tasks.Reject(ctx, req.ID, reason))
}

// Tasks lists tasks this agent runs for peers, newest first.
func (c *Core) Tasks(ctx context.Context, f TaskFilter) ([]Task, error) {
	q := store.TaskQuery{Limit: limitOr(f.Limit, 200)}
	if f.State != "" {
		q.States = []string{f.State}
	}
	recs, err := c.db.Tasks(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]Task, 0, len(recs))
	for _, t := range recs {
		out = append(out, Task{ID: t.ID, Requester: t.Requester, Type: t.TaskType, Params: t.Params, State: t.State,
			ExitCode: t.ExitCode, Output: t.Output, Error: t.Error, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt,
			StartedAt: t.StartedAt, FinishedAt: t.FinishedAt})
	}
	return out, nil
}
