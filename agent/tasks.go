package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/mcpbridge"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// openTasks builds the task engine, recovers what a crash left behind and
// runs its loop while the core serves.
func (c *Core) openTasks(ctx context.Context, cfg *config.Config) error {
	c.tasks = &task.Engine{
		Store:   c.db,
		Runner:  task.NewRunner(cfg.Limits.MaxConcurrentTasks, task.RunnerOptions{}),
		DataDir: c.dataDir,
		Config:  c.config,
		Notify:  c.notifyRequester,
		Redact:  c.redactOut,
		Publish: c.publishTaskEvent,
		Log:     c.log.With("component", "tasks"),
	}
	if err := c.openWorkAI(cfg); err != nil {
		return err
	}
	if err := c.tasks.Recover(ctx); err != nil {
		return fmt.Errorf("recover tasks after restart: %w", err)
	}
	c.ext.onStart(func(ctx context.Context) {
		c.tasks.Start(ctx)
		<-ctx.Done()
		c.tasks.Stop()
	})
	return nil
}

// openWorkAI connects mcp_tool tasks to the work AI's MCP server named in
// the config. Only tools that a configured task names may be called: a peer
// picks a task type, never a tool or a server.
func (c *Core) openWorkAI(cfg *config.Config) error {
	ep := cfg.Secretary.WorkAI.MCPEndpoint
	if ep == "" {
		return nil
	}
	br, err := mcpbridge.New(ep, mcpbridge.Options{Logger: c.log.With("component", "mcp"), AllowTool: c.taskNamesTool})
	if err != nil {
		return fmt.Errorf("secretary.work_ai.mcp_endpoint: %w", err)
	}
	c.ext.onClose(func() { br.Close() })
	c.tasks.MCP = func(ctx context.Context, tool string, args map[string]any, p map[string]string) (string, bool, error) {
		r, err := br.RunTool(ctx, tool, args, p)
		return r.Text, r.IsError, err
	}
	return nil
}

// taskNamesTool reports whether a configured task runs the MCP tool.
func (c *Core) taskNamesTool(name string) bool {
	for _, tt := range c.config().Tasks {
		if tt.MCPTool == name {
			return true
		}
	}
	return false
}

// notifyRequester queues a task result for its requester in the outbox.
func (c *Core) notifyRequester(ctx context.Context, requester, event, relatedID string, data any) error {
	err := c.db.Write(ctx, func(tx *store.Tx) error { return c.enqueueNotify(tx, requester, event, relatedID, data) })
	if err == nil {
		c.outbox.Wake()
		c.mirrorTaskResult(ctx, data)
	}
	return err
}

// publishTaskEvent forwards engine events; a new approval rings the owner.
func (c *Core) publishTaskEvent(kind, id, agentID, summary string) {
	c.events.Publish(kind, id, agentID, summary)
	if kind == EventApprovalRequested {
		c.events.Publish(EventAttention, id, agentID, summary)
	}
}

// handleTaskExecute: the task type must be configured, the caller needs
// execute on its context (and on every scope entry), then the engine stores
// it for approval or auto-approves it.
func (c *Core) handleTaskExecute(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.TaskExecuteParams
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := c.checkFrom(ctx, call, p.From, p.To); err != nil {
		return nil, err
	}
	tt, err := task.LookupTaskType(c.config().Tasks, p.TaskType)
	if err != nil {
		return nil, errs.Invalid("%s", err.Error())
	}
	scope := append([]string{}, p.ContextScope...)
	if tt.Context != "" {
		scope = append(scope, tt.Context)
	}
	subject := c.subject(call.Caller)
	decision, err := c.checkScope(ctx, call, acl.Execute, scope)
	if err != nil {
		return nil, err
	}
	t, err := c.tasks.Submit(ctx, task.Request{RequestID: idString(call.ID), From: p.From, FromRole: subject.Role,
		TaskType: p.TaskType, Params: p.TaskParams, Ref: p.Ref, MatchedRule: decision.RuleID})
	if err != nil {
		return nil, taskError(err)
	}
	call.MarkAudited()
	if p.Async == nil || *p.Async {
		return wire.TaskExecuteResult{TaskID: t.ID, Status: t.State, Message: taskMessage(t.State)}, nil
	}
	return c.waitTask(ctx, t.ID, p.Timeout)
}

// waitTask serves a synchronous request: the result, or the current state
// when the timeout passes first (the notify still follows).
func (c *Core) waitTask(ctx context.Context, id string, timeoutSec int) (any, error) {
	if timeoutSec <= 0 {
		timeoutSec = 30
	}
	wctx, cancel := context.WithTimeout(ctx, time.Duration(timeoutSec)*time.Second)
	defer cancel()
	t, err := c.tasks.Wait(wctx, id)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	res := wire.TaskExecuteResult{TaskID: t.ID, Status: t.State, Output: t.Output, Error: t.Error}
	if !task.IsTerminal(t.State) {
		res.Message = fmt.Sprintf("still %s after %ds; the result will follow as aoi.notify", t.State, timeoutSec)
	}
	return res, nil
}

func taskMessage(state string) string {
	if state == TaskPending {
		return "waiting for the owner's approval; the result will follow as aoi.notify"
	}
	return "queued; the result will follow as aoi.notify"
}

// taskError maps engine errors to JSON-RPC errors a requester can act on.
func taskError(err error) error {
	var pe *task.ParamError
	var ue *task.UnknownTaskTypeError
	var re *task.RefError
	var nf *task.NotFoundError
	switch {
	case errors.As(err, &pe), errors.As(err, &ue), errors.As(err, &re):
		return errs.Invalid("%s", err.Error())
	case errors.As(err, &nf):
		return errs.NotFound("%s", err.Error())
	}
	return err
}

// handleTaskStatus reports a task to the agent that asked for it.
func (c *Core) handleTaskStatus(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.TaskRef
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := c.checkFrom(ctx, call, p.From, ""); err != nil {
		return nil, err
	}
	t, err := c.tasks.Status(ctx, p.TaskID, p.From)
	if err != nil {
		return nil, taskError(err)
	}
	return wire.TaskExecuteResult{TaskID: t.ID, Status: t.State, Output: t.Output, Error: t.Error,
		TaskType: t.TaskType, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}, nil
}

// handleTaskCancel cancels a task for the agent that asked for it.
func (c *Core) handleTaskCancel(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.TaskRef
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := c.checkFrom(ctx, call, p.From, ""); err != nil {
		return nil, err
	}
	if err := c.tasks.Cancel(ctx, p.TaskID, p.From); err != nil {
		return nil, taskError(err)
	}
	return map[string]any{"task_id": p.TaskID, "canceled": true}, nil
}

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
		}
		out = append(out, ap)
	}
	return out, nil
}

func taskPlan(p task.Plan) *TaskPlan {
	return &TaskPlan{Argv: p.Argv, MCPTool: p.MCPTool, Context: p.Context, RepoPath: p.Dir, Isolation: p.Isolation,
		Branch: p.Branch, TimeoutSec: int(p.Timeout / time.Second), Problem: p.Problem}
}

// Approve approves a pending task; it runs when a slot is free.
func (c *Core) Approve(ctx context.Context, req ApproveRequest) error {
	return c.tasks.Approve(ctx, req.ID)
}

// Reject rejects a pending task; the requester gets APPROVAL_DENIED.
func (c *Core) Reject(ctx context.Context, req RejectRequest) error {
	reason := req.Reason
	if reason == "" {
		reason = "rejected by the owner"
	}
	return c.tasks.Reject(ctx, req.ID, reason)
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
