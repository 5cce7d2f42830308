package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/store"
)

// Outcome is a finished task's result: stored as the task's output and sent
// as the data of the task.completed / task.failed notify. OutputTail and
// failure messages are redacted and bounded.
type Outcome struct {
	TaskID     string  `json:"task_id"`
	Status     string  `json:"status"`
	ExitCode   *int    `json:"exit_code,omitempty"`
	DurationMS int64   `json:"duration_ms"`
	Output     *Counts `json:"output,omitempty"`
	OutputTail string  `json:"output_tail,omitempty"`
	Truncated  bool    `json:"output_truncated,omitempty"`
	Error      string  `json:"error,omitempty"`
	Code       int     `json:"code,omitempty"` // CodeApprovalDenied for rejected / expired
	// Summary is one line for the requester's lists: "run_tests completed:
	// 12 run, 12 passed, 0 failed", "run_tests rejected: not today".
	Summary string `json:"summary,omitempty"`
}

// summarize fills Summary from the rest; why, when given, says why the
// task ended better than its error (an owner's reason for rejecting).
func (o *Outcome) summarize(taskType, why string) {
	s := taskType + " " + o.Status
	if why == "" {
		why = o.Error
	}
	switch {
	case o.Output != nil && o.Output.Run > 0:
		s += fmt.Sprintf(": %d run, %d passed, %d failed", o.Output.Run, o.Output.Passed, o.Output.Failed)
	case why != "" && why != o.Status: // "run_tests canceled: canceled" says it twice
		line, _, _ := strings.Cut(why, "\n")
		s += ": " + line
	case o.ExitCode != nil && *o.ExitCode != 0:
		s += fmt.Sprintf(": exit %d", *o.ExitCode)
	}
	if r := []rune(s); len(r) > 160 {
		s = string(r[:159]) + "…"
	}
	o.Summary = s
}

// Approve approves a pending approval; its task runs when a slot is free.
// An unknown id is a *NotFoundError, one already decided an errs.ErrConflict.
func (e *Engine) Approve(ctx context.Context, approvalID string) error {
	a, err := e.pendingApproval(ctx, approvalID)
	if err != nil {
		return err
	}
	if e.Trusted != nil && !e.Trusted(a.Requester) {
		// Asked while trusted, approved after the owner stopped trusting
		// it (aoi peers refuse, or taken out of the config) before
		// CancelUntrusted got to it: not run.
		if err := e.cancelWaiting(ctx, a, a.Requester+" is no longer trusted here"); err != nil {
			return decideError(a.ID, err)
		}
		return errs.Conflict("%s is no longer trusted here, so its request %s was canceled, not run; trust it again (aoi peers trust) and have it ask again", a.Requester, a.ID)
	}
	err = e.Store.Write(ctx, func(tx *store.Tx) error {
		if err := tx.DecideApproval(a.ID, StatePending, StateApproved, "owner", ""); err != nil {
			return err
		}
		if err := tx.TransitionTask(a.TaskID, StatePending, StateApproved, "approved by the owner", store.TaskUpdate{}); err != nil {
			return err
		}
		// The result is the decision, so the audit list tells an
		// approval from a rejection without opening the row.
		return e.audit(tx, "owner", "approval.decide", StateApproved, decisionDetail(a, StateApproved, ""))
	})
	if err != nil {
		return decideError(a.ID, err)
	}
	e.publish(EventApprovalDecided, a.ID, a.Requester, fmt.Sprintf("approved %s for %s", a.TaskType, a.Requester))
	e.publish(EventTaskState, a.TaskID, a.Requester, a.TaskType+" "+a.TaskID+": approved")
	e.poke()
	return nil
}

// Reject refuses a pending approval; the requester is told APPROVAL_DENIED
// with the reason. Its errors are Approve's.
func (e *Engine) Reject(ctx context.Context, approvalID, reason string) error {
	a, err := e.pendingApproval(ctx, approvalID)
	if err != nil {
		return err
	}
	msg := "the owner rejected the request"
	if reason != "" {
		msg += ": " + reason
	}
	ev := approvalEvent{EventApprovalDecided, fmt.Sprintf("rejected %s for %s", a.TaskType, a.Requester)}
	return decideError(a.ID, e.closeApproval(ctx, a, StateRejected, "owner", reason, msg, ev))
}

// expire closes a pending approval that timed out.
func (e *Engine) expire(ctx context.Context, a store.ApprovalRecord) error {
	msg := fmt.Sprintf("the owner did not approve %s before %s; ask again when they are around",
		a.TaskType, a.ExpiresAt.Format(time.RFC3339))
	ev := approvalEvent{EventApprovalExpired, fmt.Sprintf("%s from %s expired", a.TaskType, a.Requester)}
	// No reason of its own: the summary then says what msg says
	// ("run_tests expired: the owner did not approve it before …").
	return e.closeApproval(ctx, a, StateExpired, "system", "", msg, ev)
}

// approvalEvent is the front-end event announcing an approval's decision.
type approvalEvent struct{ kind, summary string }

// closeApproval moves a pending approval and its task to a final state,
// announces it and tells the requester APPROVAL_DENIED (or canceled).
func (e *Engine) closeApproval(ctx context.Context, a store.ApprovalRecord, to, by, reason, msg string, ev approvalEvent) error {
	out := Outcome{TaskID: a.TaskID, Status: to, Error: msg}
	if to != StateCanceled {
		out.Code = CodeApprovalDenied
	}
	out.summarize(a.TaskType, reason)
	raw, _ := json.Marshal(out) // plain struct: cannot fail
	err := e.Store.Write(ctx, func(tx *store.Tx) error {
		if err := tx.DecideApproval(a.ID, StatePending, to, by, reason); err != nil {
			return err
		}
		u := store.TaskUpdate{Output: raw, Error: &msg, Finished: true}
		if err := tx.TransitionTask(a.TaskID, StatePending, to, msg, u); err != nil {
			return err
		}
		return e.audit(tx, by, "approval.decide", to, decisionDetail(a, to, reason))
	})
	if err != nil {
		return err
	}
	e.publish(ev.kind, a.ID, a.Requester, ev.summary)
	e.publish(EventTaskState, a.TaskID, a.Requester, a.TaskType+" "+a.TaskID+": "+to)
	e.notifyOwed(ctx, a.TaskID)
	return nil
}

func (e *Engine) pendingApproval(ctx context.Context, id string) (store.ApprovalRecord, error) {
	a, ok, err := e.Store.Approval(ctx, id)
	if err != nil {
		return a, err
	}
	if !ok {
		return a, &NotFoundError{Kind: "approval", ID: id}
	}
	if a.State != StatePending {
		return a, errs.Conflict("approval %s is already %s; nothing to decide", id, a.State)
	}
	return a, nil
}

func decideError(id string, err error) error {
	if err == nil {
		return nil
	}
	var se *store.StateError
	if errors.As(err, &se) {
		return errs.Conflict("approval %s was decided meanwhile (%s is now %s); nothing to do", id, se.Kind, se.Found)
	}
	return err
}

func decisionDetail(a store.ApprovalRecord, to, reason string) map[string]any {
	return map[string]any{"approval_id": a.ID, "task_id": a.TaskID, "requester": a.Requester,
		"task_type": a.TaskType, "state": to, "reason": reason}
}

// Status returns a task. A non-empty requester must be the one who asked
// for it (peers only see their own tasks); "" is the owner.
func (e *Engine) Status(ctx context.Context, taskID, requester string) (store.TaskRecord, error) {
	t, ok, err := e.Store.Task(ctx, taskID)
	if err != nil {
		return t, err
	}
	if !ok || (requester != "" && t.Requester != requester) {
		return store.TaskRecord{}, &NotFoundError{Kind: "task", ID: taskID, ForPeer: requester != ""}
	}
	return t, nil
}

// Wait returns the task once it has finished, or ctx's error.
func (e *Engine) Wait(ctx context.Context, taskID string) (store.TaskRecord, error) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		t, err := e.Status(ctx, taskID, "")
		if err != nil || IsTerminal(t.State) {
			return t, err
		}
		select {
		case <-ctx.Done():
			return t, ctx.Err()
		case <-tick.C:
		}
	}
}

// Cancel stops a task: a pending or approved one at once, a running one by
// killing its process group (its final state follows when it is gone). A
// non-empty requester must be the one who asked for it; "" is the owner.
func (e *Engine) Cancel(ctx context.Context, taskID, requester string) error {
	t, err := e.Status(ctx, taskID, requester)
	if err != nil {
		return err
	}
	by := requester
	if by == "" {
		by = "owner"
	}
	switch t.State {
	case StatePending:
		a, ok, err := e.Store.ApprovalForTask(ctx, taskID)
		if err != nil || !ok {
			return fmt.Errorf("task %s has no approval to cancel: %v", taskID, err)
		}
		ev := approvalEvent{EventApprovalDecided, fmt.Sprintf("%s from %s canceled by %s", a.TaskType, a.Requester, by)}
		return e.closeApproval(ctx, a, StateCanceled, by, "canceled", "canceled by "+by, ev)
	case StateApproved, StateInProgress, StateReview:
		e.requestCancel(taskID)
		if t.State == StateApproved && e.claim(taskID) {
			// Not picked up by the loop yet: cancel it here.
			defer e.release(taskID)
			return e.finish(ctx, t, StateApproved, Outcome{TaskID: taskID, Status: StateCanceled, Error: "canceled by " + by})
		}
		return nil
	}
	return errs.Conflict("task %s is already %s; nothing to cancel", taskID, t.State)
}

// CancelUntrusted cancels every request still waiting for the owner whose
// requester is no longer trusted (aoi peers refuse, x, or taken out of the
// config's peers[]), so the Approvals queue stops offering what a peer
// asked for while it was trusted, and stops its approved and running
// tasks. It returns how many it canceled.
func (e *Engine) CancelUntrusted(ctx context.Context) (int, error) {
	if e.Trusted == nil {
		return 0, nil
	}
	return e.cancelRequests(ctx, func(requester string) bool { return !e.Trusted(requester) },
		func(requester string) string { return requester + " is no longer trusted here" })
}

// CancelFrom cancels everything agentID asked for that has not ended: its
// requests waiting for the owner, its approved tasks waiting for a slot
// and its running ones. why completes "canceled: …" in what the owner and
// the requester read. The owner pinning a new certificate for a peer uses
// it: what was asked under the old one, maybe by whoever took its key, is
// not offered for approval any more.
func (e *Engine) CancelFrom(ctx context.Context, agentID, why string) (int, error) {
	return e.cancelRequests(ctx, func(requester string) bool { return requester == agentID },
		func(string) string { return why })
}

// cancelRequests cancels the requests whose requester matches, waiting or
// started, with why(requester) as the reason. It returns how many it
// canceled.
func (e *Engine) cancelRequests(ctx context.Context, match func(requester string) bool, why func(requester string) string) (int, error) {
	pending, err := e.Store.Approvals(ctx, StatePending, 1000) // at most 20 a peer wait
	if err != nil {
		return 0, err
	}
	n := 0
	for _, a := range pending {
		if !match(a.Requester) {
			continue
		}
		err := e.cancelWaiting(ctx, a, why(a.Requester))
		var decided *store.StateError
		switch {
		case errors.As(err, &decided):
			continue // decided meanwhile
		case err != nil:
			return n, err
		}
		n++
	}
	// Approved ones waiting for a slot, and running ones, stop too.
	started, err := e.Store.Tasks(ctx, store.TaskQuery{States: []string{StateApproved, StateInProgress}, Limit: 1000})
	if err != nil {
		return n, err
	}
	for _, t := range started {
		if !match(t.Requester) {
			continue
		}
		if err := e.Cancel(ctx, t.ID, ""); err != nil && !errors.Is(err, errs.ErrConflict) {
			return n, err
		}
		n++
	}
	return n, nil
}

// cancelWaiting closes one request waiting for the owner.
func (e *Engine) cancelWaiting(ctx context.Context, a store.ApprovalRecord, why string) error {
	ev := approvalEvent{EventApprovalDecided, fmt.Sprintf("%s from %s canceled: %s", a.TaskType, a.Requester, why)}
	return e.closeApproval(ctx, a, StateCanceled, "owner", why, "canceled: "+why, ev)
}
