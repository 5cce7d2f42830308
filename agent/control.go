package agent

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/rpc"
)

// Control-socket methods: one per Service method (docs/architecture.md,
// "The Service seam").
const (
	CtlStatus      = "ctl.status"
	CtlPeers       = "ctl.peers"
	CtlDiscover    = "ctl.discover"
	CtlTrust       = "ctl.trust"
	CtlRefuse      = "ctl.refuse"
	CtlAsk         = "ctl.ask"
	CtlQueries     = "ctl.queries"
	CtlAnswer      = "ctl.answer"
	CtlDecline     = "ctl.decline"
	CtlRelease     = "ctl.release"
	CtlFocus       = "ctl.focus"
	CtlMessages    = "ctl.messages"
	CtlMarkRead    = "ctl.messages.read"
	CtlSendMessage = "ctl.send_message"
	CtlInbox       = "ctl.inbox"
	CtlCoordTasks  = "ctl.coord_tasks"
	CtlNote        = "ctl.note"
	CtlReportEvent = "ctl.report_event"
	CtlSnapshot    = "ctl.snapshot"
	CtlTaskRequest = "ctl.task_request"
	CtlTaskStatus  = "ctl.task_status"
	CtlTaskCancel  = "ctl.task_cancel"
	CtlApprovals   = "ctl.approvals"
	CtlApprove     = "ctl.approve"
	CtlReject      = "ctl.reject"
	CtlTasks       = "ctl.tasks"
	CtlAudit       = "ctl.audit"
	CtlAuditVerify = "ctl.audit_verify"
	CtlEvents      = "ctl.events"
	CtlReload      = "ctl.reload"
)

// Long-poll bounds of ctl.events.
const (
	MaxEventWait   = 25 * time.Second // a client asking for longer waits this long
	MaxEventBatch  = 256              // events per answer
	eventBatchWait = 5 * time.Millisecond
)

// Params of the ctl.* methods that do not take one of Service's own types.
type (
	// CtlQueryParams names a received query (answer, decline, release).
	CtlQueryParams struct {
		QueryID string `json:"query_id"`
		Text    string `json:"text,omitempty"`
		Reason  string `json:"reason,omitempty"`
	}
	// CtlRefuseParams names a pending trust request.
	CtlRefuseParams struct {
		Fingerprint string `json:"fingerprint"`
	}
	// CtlFocusParams turns focus on or off.
	CtlFocusParams struct {
		On bool `json:"on"`
	}
	// CtlMessagesParams pages the inbox by sequence number.
	CtlMessagesParams struct {
		AfterSeq int64 `json:"after_seq"`
		Limit    int   `json:"limit,omitempty"`
	}
	// CtlMarkReadParams marks messages read up to a sequence number.
	CtlMarkReadParams struct {
		UptoSeq int64 `json:"upto_seq"`
	}
	// CtlCoordTaskParams narrows ctl.coord_tasks to one task ("" = all).
	CtlCoordTaskParams struct {
		TaskID string `json:"task_id,omitempty"`
	}
	// CtlNoteParams is an owner note.
	CtlNoteParams struct {
		Text string `json:"text"`
	}
	// CtlTaskRef names a task a peer runs for us.
	CtlTaskRef struct {
		Peer   string `json:"peer"`
		TaskID string `json:"task_id"`
	}
	// CtlApprovalParams names an approval and, for reject, why.
	CtlApprovalParams struct {
		ID     string `json:"id"`
		Reason string `json:"reason,omitempty"`
	}
	// CtlEventsParams is a ctl.events long poll: events after AfterSeq
	// (0: only new ones), waiting up to WaitMS for the first.
	CtlEventsParams struct {
		AfterSeq int64 `json:"after_seq"`
		WaitMS   int64 `json:"wait_ms"`
	}
	// CtlEventsResult answers a long poll. LastSeq, when the core reports
	// it, is the newest event's sequence number: a client that got no
	// events resumes from it, and one whose cursor is ahead of it (the
	// core restarted and numbers from 1 again) starts over from it.
	CtlEventsResult struct {
		Events  []Event `json:"events"`
		LastSeq *int64  `json:"last_seq,omitempty"`
	}
	// CtlOK is the result of methods that only succeed or fail.
	CtlOK struct {
		OK bool `json:"ok"`
	}
)

// EventSequencer is implemented by a Service that can report its newest
// event sequence number; ctl.events uses it to close the gap between polls.
type EventSequencer interface {
	LastEventSeq() int64
}

// LastEventSeq implements EventSequencer: the newest event's sequence
// number (0 before the first).
func (c *Core) LastEventSeq() int64 { return c.events.LastSeq() }

var _ EventSequencer = (*Core)(nil)

// RegisterControl registers every ctl.* method on srv, each decoding its
// params, calling svc and encoding the result.
func RegisterControl(srv *rpc.Server, svc Service) {
	for name, h := range controlMethods(svc) {
		srv.Handle(name, h)
	}
}

type none struct{}

func controlMethods(svc Service) map[string]rpc.Handler {
	return map[string]rpc.Handler{
		CtlStatus:   method(func(ctx context.Context, _ none) (Status, error) { return svc.Status(ctx) }),
		CtlPeers:    method(func(ctx context.Context, _ none) ([]Peer, error) { return svc.Peers(ctx) }),
		CtlDiscover: method(func(ctx context.Context, _ none) ([]Peer, error) { return svc.Discover(ctx) }),
		CtlTrust:    action(svc.Trust),
		CtlRefuse: action(func(ctx context.Context, p CtlRefuseParams) error {
			return svc.Refuse(ctx, p.Fingerprint)
		}),
		CtlAsk:     method(svc.Ask),
		CtlQueries: method(svc.Queries),
		CtlAnswer: action(func(ctx context.Context, p CtlQueryParams) error {
			return svc.Answer(ctx, p.QueryID, p.Text)
		}),
		CtlDecline: action(func(ctx context.Context, p CtlQueryParams) error {
			return svc.Decline(ctx, p.QueryID, p.Reason)
		}),
		CtlRelease: action(func(ctx context.Context, p CtlQueryParams) error { return svc.Release(ctx, p.QueryID) }),
		CtlFocus:   action(func(ctx context.Context, p CtlFocusParams) error { return svc.SetFocus(ctx, p.On) }),
		CtlMessages: method(func(ctx context.Context, p CtlMessagesParams) ([]Message, error) {
			return svc.Messages(ctx, p.AfterSeq, p.Limit)
		}),
		CtlMarkRead: action(func(ctx context.Context, p CtlMarkReadParams) error {
			return svc.MarkMessagesRead(ctx, p.UptoSeq)
		}),
		CtlSendMessage: method(svc.SendMessage),
		CtlInbox:       method(svc.Inbox),
		CtlCoordTasks: method(func(ctx context.Context, p CtlCoordTaskParams) ([]CoordTask, error) {
			return svc.CoordTasks(ctx, p.TaskID)
		}),
		CtlNote:        action(func(ctx context.Context, p CtlNoteParams) error { return svc.Note(ctx, p.Text) }),
		CtlReportEvent: action(svc.ReportEvent),
		CtlSnapshot: method(func(ctx context.Context, _ none) (json.RawMessage, error) {
			return svc.Snapshot(ctx)
		}),
		CtlTaskRequest: method(svc.RequestTask),
		CtlTaskStatus: method(func(ctx context.Context, p CtlTaskRef) (Task, error) {
			return svc.RemoteTaskStatus(ctx, p.Peer, p.TaskID)
		}),
		CtlTaskCancel: action(func(ctx context.Context, p CtlTaskRef) error {
			return svc.CancelRemoteTask(ctx, p.Peer, p.TaskID)
		}),
		CtlApprovals: method(svc.Approvals),
		CtlApprove:   action(func(ctx context.Context, p CtlApprovalParams) error { return svc.Approve(ctx, p.ID) }),
		CtlReject: action(func(ctx context.Context, p CtlApprovalParams) error {
			return svc.Reject(ctx, p.ID, p.Reason)
		}),
		CtlTasks: method(svc.Tasks),
		CtlAudit: method(svc.Audit),
		CtlAuditVerify: method(func(ctx context.Context, _ none) (AuditVerification, error) {
			return svc.VerifyAudit(ctx)
		}),
		CtlEvents: method(func(ctx context.Context, p CtlEventsParams) (CtlEventsResult, error) {
			return pollEvents(ctx, svc, p)
		}),
		CtlReload: method(func(ctx context.Context, _ none) (ReloadReport, error) { return svc.Reload(ctx) }),
	}
}

// method adapts a Service call taking params P and returning R.
func method[P, R any](f func(context.Context, P) (R, error)) rpc.Handler {
	return func(ctx context.Context, call *rpc.Call) (any, error) {
		var p P
		if err := call.Bind(&p); err != nil {
			return nil, err
		}
		r, err := f(ctx, p)
		if err != nil {
			return nil, controlError(err)
		}
		return r, nil
	}
}

// action adapts a Service call that only succeeds or fails.
func action[P any](f func(context.Context, P) error) rpc.Handler {
	return method(func(ctx context.Context, p P) (CtlOK, error) {
		return CtlOK{OK: true}, f(ctx, p)
	})
}

// controlError is the control table's edge: it keeps an *rpc.Error (its
// code matters to the front end) and turns any other error into one
// carrying the error's text, since the caller is the owner on the local
// socket and the text says what to do. A domain error (agent/errs) also
// names its kind in data.kind, which ctlclient turns back into the kind.
func controlError(err error) error {
	var re *rpc.Error
	if errors.As(err, &re) {
		return re
	}
	code := CodeControlFailed
	if errors.Is(err, context.DeadlineExceeded) {
		code = rpc.CodeTimeout
	}
	data := map[string]any{"reason": err.Error()}
	if kind := errs.KindName(err); kind != "" {
		data["kind"] = kind
	}
	return rpc.NewError(code, data)
}

// CodeControlFailed is the code of a control call that failed for a reason
// other than one of the AOI codes; data.reason says why.
const CodeControlFailed = -32000

// pollEvents answers one ctl.events long poll.
func pollEvents(ctx context.Context, svc Service, p CtlEventsParams) (CtlEventsResult, error) {
	res := CtlEventsResult{Events: []Event{}}
	after := p.AfterSeq
	if seq, ok := svc.(EventSequencer); ok {
		last := seq.LastEventSeq()
		res.LastSeq = &last
		if after > last {
			return res, nil // the cursor is from an earlier run of the core
		}
		if after <= 0 {
			after = last // so nothing published during this poll is missed
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := svc.Events(ctx, after)
	if err != nil {
		return res, err
	}
	wait := min(max(time.Duration(p.WaitMS)*time.Millisecond, eventBatchWait), MaxEventWait)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for len(res.Events) < MaxEventBatch {
		select {
		case ev, ok := <-events:
			if !ok {
				return finishPoll(res), nil
			}
			if len(res.Events) == 0 {
				// Collect what follows closely, then answer.
				timer.Reset(eventBatchWait)
			}
			res.Events = append(res.Events, ev)
		case <-timer.C:
			return finishPoll(res), nil
		case <-ctx.Done():
			return finishPoll(res), nil
		}
	}
	return finishPoll(res), nil
}

// finishPoll keeps LastSeq at least as new as the last event returned.
func finishPoll(res CtlEventsResult) CtlEventsResult {
	if n := len(res.Events); n > 0 && res.LastSeq != nil && *res.LastSeq < res.Events[n-1].Seq {
		last := res.Events[n-1].Seq
		res.LastSeq = &last
	}
	return res
}
