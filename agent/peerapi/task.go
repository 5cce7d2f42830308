package peerapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// runnableTaskType looks up a task type the caller may ask for. One it may
// not (no execute on its context) is answered as one not configured, with
// the types it may ask for: a refusal naming its context would tell the
// caller of a context (and a task) it is kept from. The audit row says why.
func (a *API) runnableTaskType(ctx context.Context, call *rpc.Call, name string) (config.TaskType, error) {
	cfg := a.Config()
	subject := a.Subject(call.Caller)
	var ids, runnable []string
	for _, c := range cfg.Contexts {
		ids = append(ids, c.Identifier)
	}
	for n, tt := range cfg.Tasks {
		if a.Policy().MayRunIn(subject, tt.Context, ids) {
			runnable = append(runnable, n)
		}
	}
	sort.Strings(runnable)
	tt, found := cfg.Tasks[name]
	if found && slices.Contains(runnable, name) {
		return tt, nil
	}
	if found {
		a.AuditRefusal(ctx, call, "acl", map[string]any{"task_type": name, "reason": "no execute access to the task's context"})
	}
	return config.TaskType{}, errs.Invalid("%s", (&task.UnknownTaskTypeError{TaskType: name, Known: runnable}).Error())
}

// handleTaskExecute: the task type must be configured, the caller needs
// execute on its context (and on every scope entry), then the engine stores
// it for approval or auto-approves it.
func (a *API) handleTaskExecute(ctx context.Context, call *rpc.Call) (any, error) {
	// A request without an id (a JSON-RPC notification) could not be told
	// apart from its own repetition, so it could not run only once, and
	// its requester could never learn the task's id: refused (audited).
	if call.Notification {
		return nil, errs.Invalid("%s needs an id: send it as a request, not a notification", wire.MethodTaskExecute)
	}
	var p wire.TaskExecuteParams
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := a.CheckFrom(ctx, call, p.From, p.To); err != nil {
		return nil, err
	}
	if err := refuseUncleanScope(p.ContextScope); err != nil {
		return nil, err
	}
	tt, err := a.runnableTaskType(ctx, call, p.TaskType)
	if err != nil {
		return nil, err
	}
	// A task tied to no context could touch any of them: it needs
	// execute on every one (an empty scope), whatever scope the caller
	// names. One tied to a context needs it there and on its paths.
	var scope, paths []string
	if tt.Context != "" {
		paths = pathParamScopes(tt, p.TaskParams)
		scope = append(append(append(scope, p.ContextScope...), tt.Context), paths...)
	}
	subject := a.Subject(call.Caller)
	decision, err := a.checkScope(ctx, call, acl.Execute, scope)
	if err != nil {
		return nil, err
	}
	if err := a.checkBeneath(ctx, call, paths); err != nil {
		return nil, err
	}
	t, err := a.Tasks.Submit(ctx, task.Request{RequestID: IDString(call.ID), From: p.From, FromRole: subject.Role,
		TaskType: p.TaskType, Params: p.TaskParams, Ref: p.Ref, MatchedRule: decision.RuleID, Repeats: rpc.ReplayWindow})
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

// pathParamScopes are the places a task's `type: path` parameters name,
// as scope entries inside the task's context. A parameter left empty (or
// not given, with no default) names the context itself: its placeholder
// drops out and the command runs at the top of the worktree.
func pathParamScopes(tt config.TaskType, params map[string]any) []string {
	var out []string
	for name, decl := range tt.Params {
		if decl.Type != config.ParamTypePath {
			continue
		}
		v := ""
		switch raw := params[name].(type) {
		case string:
			v = raw
		case float64, bool: // taken as written, as the task's own params are
			v = fmt.Sprint(raw)
		}
		if v == "" {
			v = decl.Default
		}
		switch {
		case strings.HasPrefix(v, "/"):
			continue // refused as absolute when the task is resolved
		case v == "" || v == ".":
			out = append(out, tt.Context)
		default:
			out = append(out, tt.Context+"/"+v) // uncleaned: a "../" is refused as leading outside
		}
	}
	return out
}

// checkBeneath refuses a path parameter that reaches a folder the caller
// is kept out of: a command given a folder may walk all of it.
func (a *API) checkBeneath(ctx context.Context, call *rpc.Call, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	resolved, _ := a.ResolveScope(a.Config(), paths) // an escape was refused by checkScope
	for _, p := range resolved {
		d, at := a.Policy().CheckBeneath(a.Subject(call.Caller), acl.Execute, p)
		if d.AuditOnly {
			a.AuditACLOnly(ctx, call, at, d)
		}
		if d.Allowed {
			continue
		}
		call.RecordACL(false)
		reason := func(why string) string {
			return fmt.Sprintf("the path %s reaches %s: %s; name a folder that does not hold it", p, at, why)
		}
		a.AuditRefusal(ctx, call, "acl", map[string]any{"scope": p, "beneath": at, "rule": d.RuleID, "reason": reason(d.Reason)})
		return errs.Denied(reason(d.Told), map[string]any{"required_permission": "context.execute", "requested_scope": p})
	}
	return nil
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
	switch {
	case state == task.StatePending:
		return "waiting for the owner's approval" // the result follows as an aoi.notify
	case task.IsTerminal(state):
		return "" // a repeated request of a task that has ended: its status says how
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
