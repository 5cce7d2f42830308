package peerapi

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// handleTaskExecute: the task type must be configured, the caller needs
// execute on its context (and on every scope entry), then the engine stores
// it for approval or auto-approves it.
func (a *API) handleTaskExecute(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.TaskExecuteParams
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := a.CheckFrom(ctx, call, p.From, p.To); err != nil {
		return nil, err
	}
	tt, err := task.LookupTaskType(a.Config().Tasks, p.TaskType)
	if err != nil {
		return nil, errs.Invalid("%s", err.Error())
	}
	scope := append([]string{}, p.ContextScope...)
	if tt.Context != "" {
		scope = append(scope, tt.Context)
		scope = append(scope, pathParamScopes(tt, p.TaskParams)...)
	}
	subject := a.Subject(call.Caller)
	decision, err := a.checkScope(ctx, call, acl.Execute, scope)
	if err != nil {
		return nil, err
	}
	t, err := a.Tasks.Submit(ctx, task.Request{RequestID: IDString(call.ID), From: p.From, FromRole: subject.Role,
		TaskType: p.TaskType, Params: p.TaskParams, Ref: p.Ref, MatchedRule: decision.RuleID})
	if err != nil {
		return nil, task.DomainError(err)
	}
	call.MarkAudited()
	if p.Async == nil || *p.Async {
		return wire.TaskExecuteResult{TaskID: t.ID, Status: t.State, Message: taskMessage(t.State)}, nil
	}
	return a.waitTask(ctx, t.ID, p.Timeout)
}

// waitTask serves a synchronous request: the result, or the current state
// when the timeout passes first (the notify still follows).
func (a *API) waitTask(ctx context.Context, id string, timeoutSec int) (any, error) {
	timeoutSec = syncWaitSec(timeoutSec)
	wctx, cancel := context.WithTimeout(ctx, time.Duration(timeoutSec)*time.Second)
	defer cancel()
	t, err := a.Tasks.Wait(wctx, id)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	res := wire.TaskExecuteResult{TaskID: t.ID, Status: t.State, Output: t.Output, Error: t.Error}
	if !task.IsTerminal(t.State) {
		res.Message = fmt.Sprintf("still %s after %ds", t.State, timeoutSec) // the result follows as an aoi.notify
	}
	return res, nil
}

// pathParamScopes names, as scope entries inside the task's context, the
// files and folders its path parameters point at, so folder rules apply to
// them as to a query's scope: a rule that gives a peer nothing under
// secrets/ also refuses `catfile pkg=secrets/plan.txt`. Values that are
// not relative paths are left to the engine, which refuses them.
func pathParamScopes(tt config.TaskType, params map[string]any) []string {
	var out []string
	for name, decl := range tt.Params {
		v, ok := params[name].(string)
		if decl.Type != config.ParamTypePath || !ok || v == "" || strings.HasPrefix(v, "/") {
			continue
		}
		out = append(out, tt.Context+"/"+v) // uncleaned: a "../" is refused as leading outside
	}
	return out
}

// maxSyncWaitSec bounds how long a synchronous aoi.task.execute waits.
const maxSyncWaitSec = 300

// syncWaitSec is how long a synchronous request waits for its result, in
// seconds: the timeout it asked for, 30 when it asked for none, at most
// maxSyncWaitSec. A caller may not hold a connection and a handler open
// for a day: past this the result comes as an aoi.notify, as for async
// calls.
func syncWaitSec(asked int) int {
	if asked <= 0 {
		return 30
	}
	return min(asked, maxSyncWaitSec)
}

func taskMessage(state string) string {
	if state == task.StatePending {
		return "waiting for the owner's approval" // the result follows as an aoi.notify
	}
	return "queued" // the result follows as an aoi.notify
}

// handleTaskStatus reports a task to the agent that asked for it.
func (a *API) handleTaskStatus(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.TaskRef
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := a.CheckFrom(ctx, call, p.From, ""); err != nil {
		return nil, err
	}
	t, err := a.Tasks.Status(ctx, p.TaskID, p.From)
	if err != nil {
		return nil, task.DomainError(err)
	}
	return wire.TaskExecuteResult{TaskID: t.ID, Status: t.State, Output: t.Output, Error: t.Error,
		TaskType: t.TaskType, CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt}, nil
}

// handleTaskCancel cancels a task for the agent that asked for it.
func (a *API) handleTaskCancel(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.TaskRef
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := a.CheckFrom(ctx, call, p.From, ""); err != nil {
		return nil, err
	}
	if err := a.Tasks.Cancel(ctx, p.TaskID, p.From); err != nil {
		return nil, task.DomainError(err)
	}
	return map[string]any{"task_id": p.TaskID, "canceled": true}, nil
}
