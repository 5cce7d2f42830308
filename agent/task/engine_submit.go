package task

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// Submit validates a request and stores the task with its approval in one
// transaction: pending for the owner, or approved at once by the task
// type's policy (then it runs as soon as a slot is free). Invalid requests
// return *UnknownTaskTypeError or *ParamError (INVALID_PARAMS) and store
// nothing.
func (e *Engine) Submit(ctx context.Context, req Request) (store.TaskRecord, error) {
	e.init()
	cfg := e.Config()
	tt, resolved, commit, err := e.validate(ctx, cfg, req)
	if err != nil {
		return store.TaskRecord{}, err
	}
	now := e.Store.Now()
	required, rule := Policy(tt, req.From, req.FromRole, now)
	suffix := newID()
	t := store.TaskRecord{ID: "t" + suffix, RequestID: req.RequestID, Requester: req.From, TaskType: req.TaskType,
		Params: resolved, Ref: req.Ref, RefCommit: commit, State: StatePending, CreatedAt: now}
	a := store.ApprovalRecord{ID: "a" + suffix, TaskID: t.ID, Requester: req.From, TaskType: req.TaskType,
		Params: resolved, MatchedRule: req.MatchedRule, State: StatePending, CreatedAt: now,
		ExpiresAt: now.Add(time.Duration(cfg.Approvals.ExpirySec) * time.Second)}
	if !required {
		a.State, a.DecidedBy, a.DecidedAt, a.Reason = StateApproved, rule, &now, "auto-approved by "+rule
	}
	var first store.TaskRecord // the task this request repeats, if any
	err = e.Store.Write(ctx, func(tx *store.Tx) error {
		var err error
		if first, err = repeated(tx, req, resolved, now); err != nil {
			return err
		}
		if first.ID != "" {
			return e.audit(tx, req.From, "task.request", "repeated", map[string]any{"task_id": first.ID, "task_type": first.TaskType, "state": first.State})
		}
		if err := waitingRoom(tx, req.From, required); err != nil {
			return err
		}
		if err := tx.InsertTask(t); err != nil {
			return err
		}
		if err := tx.InsertApproval(a); err != nil {
			return err
		}
		detail := map[string]any{"task_id": t.ID, "approval_id": a.ID, "task_type": t.TaskType,
			"params": t.Params, "ref": t.Ref, "ref_commit": t.RefCommit, "matched_rule": a.MatchedRule, "approval": a.State, "decided_by": a.DecidedBy}
		if err := e.audit(tx, req.From, "task.request", "ok", detail); err != nil {
			return err
		}
		if required {
			return nil
		}
		return tx.TransitionTask(t.ID, StatePending, StateApproved, a.Reason, store.TaskUpdate{})
	})
	if errors.Is(err, errs.ErrConflict) {
		return store.TaskRecord{}, err
	}
	if err != nil {
		return store.TaskRecord{}, fmt.Errorf("store task request: %w", err)
	}
	if first.ID != "" {
		return first, nil // asked again: it runs once
	}
	if required {
		e.publish(EventApprovalRequested, a.ID, req.From, strings.TrimSpace(fmt.Sprintf("%s wants to run %s %s", req.From, req.TaskType, formatParams(resolved))))
		return t, nil
	}
	t.State = StateApproved
	e.publish(EventTaskState, t.ID, req.From, fmt.Sprintf("%s %s: approved (%s)", req.TaskType, t.ID, rule))
	e.poke()
	return t, nil
}

// repeated returns the task req asks for again, if it is one asked within
// req.Repeats with the same request id, type, params and ref ("" ID if
// none). The peer server answers a repeated call from memory; after a
// restart only the store remembers it, and a task must not run twice.
func repeated(tx *store.Tx, req Request, resolved map[string]string, now time.Time) (store.TaskRecord, error) {
	if req.Repeats <= 0 || req.RequestID == "" {
		return store.TaskRecord{}, nil
	}
	t, found, err := tx.TaskByRequest(req.From, req.RequestID, now.Add(-req.Repeats))
	if err != nil || !found || t.TaskType != req.TaskType || t.Ref != req.Ref || !maps.Equal(t.Params, resolved) {
		return store.TaskRecord{}, err
	}
	return t, nil
}

// maxWaitingPerPeer bounds the requests one peer may have waiting: for
// the owner's approval, past which a peer sending requests in a loop would
// bury the Approvals pane (and every y) under its own; and, approved by a
// rule, for a slot to run in, past which it would queue work ahead of
// everyone else's without end (the attack run found no bound there).
const maxWaitingPerPeer = 20

// waitingRoom refuses a request from a peer that already has
// maxWaitingPerPeer waiting for the owner (required) or, auto-approved,
// for a slot to run in.
func waitingRoom(tx *store.Tx, from string, required bool) error {
	// The requester's owner reads this, in `aoi task` or the prompt bar:
	// the command that cancels, not the protocol's method name.
	const cancel = "cancel some (`aoi task cancel AGENT TASK_ID`)"
	count, what := tx.QueuedTasksFrom, "approved tasks already wait for a slot to run in; wait until they have run or "+cancel
	if required {
		count, what = tx.PendingApprovalsFrom, "requests already wait for the owner's approval; wait until they are decided or "+cancel
	}
	n, err := count(from)
	if err != nil {
		return err
	}
	if n >= maxWaitingPerPeer {
		return errs.Conflict("%d of your %s before asking again", n, what)
	}
	return nil
}

// validate checks everything that can be checked before storing: the task
// type, its params, the ref, and that the task can run here at all.
func (e *Engine) validate(ctx context.Context, cfg *config.Config, req Request) (tt config.TaskType, resolved map[string]string, commit string, err error) {
	tt, err = LookupTaskType(cfg.Tasks, req.TaskType)
	if err != nil {
		return tt, nil, "", err
	}
	_, resolved, err = Resolve(req.TaskType, tt, req.Params)
	if err != nil {
		return tt, nil, "", err
	}
	if tt.MCPTool != "" {
		if e.MCP == nil {
			return tt, nil, "", fmt.Errorf("task %s uses mcp_tool but this agent has no secretary.work_ai.mcp_endpoint; the owner must set it", req.TaskType)
		}
		if req.Ref != "" {
			return tt, nil, "", &ParamError{TaskType: req.TaskType, Field: "ref", Reason: "mcp_tool tasks take no ref; leave it out"}
		}
		return tt, resolved, "", nil
	}
	if tt.Isolation != config.IsolationWorktree {
		if req.Ref != "" {
			return tt, nil, "", &ParamError{TaskType: req.TaskType, Field: "ref", Reason: "only worktree tasks take a ref; leave it out"}
		}
		return tt, resolved, "", nil
	}
	if req.Ref != "" && !tt.AllowRef {
		return tt, nil, "", &ParamError{TaskType: req.TaskType, Field: "ref", Reason: "this task runs the commit the owner's repository is at: " +
			"a ref's code would run with the owner's permissions, and the owner has not allowed that (tasks." + req.TaskType + ".allow_ref); leave ref out"}
	}
	repo := repoDir(cfg, tt)
	if !IsGitRepo(repo) {
		return tt, nil, "", fmt.Errorf("task %s is misconfigured: isolation is worktree but %q (context %s) is not a git repository; the owner must fix local_path", req.TaskType, repo, tt.Context)
	}
	pinned, err := resolveRef(ctx, repo, req.Ref)
	if err != nil {
		return tt, nil, "", &ParamError{TaskType: req.TaskType, Field: "ref", Reason: err.Error()}
	}
	if req.Ref != "" {
		// The commit the ref names now is what the owner approves and
		// what runs, however the branch moves before the task starts.
		commit = pinned
	}
	return tt, resolved, commit, nil
}

// formatParams renders params as sorted k=v pairs for notices and
// messages, without the ones left out (empty).
func formatParams(p map[string]string) string {
	parts := make([]string, 0, len(p))
	for _, k := range sortedKeys(p) {
		if p[k] != "" {
			parts = append(parts, k+"="+p[k])
		}
	}
	s := strings.Join(parts, " ")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
