// Package control is the control socket's method table (ctl.*), beside its
// client (agent/ctlclient): each method is one method of service.Service,
// its params the method's request type and its result the method's result.
// Errors are mapped at this edge (Error).
package control

import (
	"context"
	"errors"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/service"
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
	CtlNotes       = "ctl.notes"
	CtlDeleteNote  = "ctl.note.delete"
	CtlPromptLines = "ctl.prompt_history"
	CtlPromptAdd   = "ctl.prompt_history.add"
	CtlOutbox      = "ctl.outbox"
	CtlOutboxDrop  = "ctl.outbox.drop"
	CtlOutboxRetry = "ctl.outbox.retry"
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

// Params and results of the ctl.* methods that are not Service's own
// types: ctl.events is a long poll over Service.Events, and methods that
// only succeed or fail answer CtlOK.
type (
	// CtlEventsParams is a ctl.events long poll: events after AfterSeq
	// (0: only new ones, unless Exact), waiting up to WaitMS for the first.
	// Exact says AfterSeq came from the core's last_seq, so 0 means "after
	// none": every event since the core started.
	CtlEventsParams struct {
		AfterSeq int64 `json:"after_seq"`
		WaitMS   int64 `json:"wait_ms"`
		Exact    bool  `json:"exact,omitempty"`
	}
	// CtlEventsResult answers a long poll. LastSeq, when the core reports
	// it, is the newest event's sequence number: a client that got no
	// events resumes from it, and one whose cursor is ahead of it (the
	// core restarted and numbers from 1 again) starts over from it.
	CtlEventsResult struct {
		Events  []service.Event `json:"events"`
		LastSeq *int64          `json:"last_seq,omitempty"`
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

// Register registers every ctl.* method on srv, each decoding its params,
// calling svc and encoding the result.
func Register(srv *rpc.Server, svc service.Service) {
	for name, h := range controlMethods(svc) {
		srv.Handle(name, h)
	}
}

// controlMethods is the control table: each ctl.* method is one Service
// method, its params the method's request type and its result the
// method's result (CtlOK for methods that only succeed or fail).
func controlMethods(svc service.Service) map[string]rpc.Handler {
	return map[string]rpc.Handler{
		CtlStatus:      HandleNone(svc.Status),
		CtlReload:      HandleNone(svc.Reload),
		CtlPeers:       HandleNone(svc.Peers),
		CtlDiscover:    HandleNone(svc.Discover),
		CtlTrust:       HandleOK(svc.Trust),
		CtlRefuse:      HandleOK(svc.Refuse),
		CtlQueries:     Handle(svc.Queries),
		CtlAnswer:      HandleOK(svc.Answer),
		CtlDecline:     HandleOK(svc.Decline),
		CtlRelease:     HandleOK(svc.Release),
		CtlFocus:       HandleOK(svc.SetFocus),
		CtlAsk:         Handle(svc.Ask),
		CtlTaskRequest: Handle(svc.RequestTask),
		CtlTaskStatus:  Handle(svc.RemoteTaskStatus),
		CtlTaskCancel:  HandleOK(svc.CancelRemoteTask),
		CtlMessages:    Handle(svc.Messages),
		CtlMarkRead:    HandleOK(svc.MarkMessagesRead),
		CtlSendMessage: Handle(svc.SendMessage),
		CtlInbox:       Handle(echoFilter(svc.Inbox)),
		CtlCoordTasks:  Handle(svc.CoordTasks),
		CtlApprovals:   Handle(svc.Approvals),
		CtlApprove:     HandleOK(svc.Approve),
		CtlReject:      HandleOK(svc.Reject),
		CtlTasks:       Handle(svc.Tasks),
		CtlNote:        Handle(svc.Note),
		CtlNotes:       Handle(svc.Notes),
		CtlDeleteNote:  HandleOK(svc.DeleteNote),
		CtlPromptLines: HandleNone(svc.PromptHistory),
		CtlPromptAdd:   HandleOK(svc.RememberPrompt),
		CtlOutbox:      HandleNone(svc.Outbox),
		CtlOutboxDrop:  HandleOK(svc.DropOutbox),
		CtlOutboxRetry: Handle(svc.RetryOutbox),
		CtlReportEvent: HandleOK(svc.ReportEvent),
		CtlSnapshot:    HandleNone(svc.Snapshot),
		CtlAudit:       Handle(svc.Audit),
		CtlAuditVerify: HandleNone(svc.VerifyAudit),
		CtlEvents:      Handle(eventPoller{svc}.poll),
	}
}

// echoFilter answers ctl.inbox with the filter as this aoi read it, so a
// newer CLI or `aoi mcp` sees which of its options this aoi did not know
// rather than showing a page that silently lacks them.
func echoFilter(inbox func(context.Context, service.InboxFilter) (service.InboxPage, error)) func(context.Context, service.InboxFilter) (service.InboxPage, error) {
	return func(ctx context.Context, f service.InboxFilter) (service.InboxPage, error) {
		page, err := inbox(ctx, f)
		page.Applied = &f
		return page, err
	}
}

// Handle registers a method taking request Req and returning Resp: it
// decodes the params into Req and maps an error at the edge.
func Handle[Req, Resp any](fn func(context.Context, Req) (Resp, error)) rpc.Handler {
	return func(ctx context.Context, call *rpc.Call) (any, error) {
		var req Req
		if err := call.Bind(&req); err != nil {
			return nil, err
		}
		resp, err := fn(ctx, req)
		if err != nil {
			return nil, Error(err)
		}
		return resp, nil
	}
}

// none is the params of methods that take none (any object decodes).
type none struct{}

// HandleNone registers a method that takes no request.
func HandleNone[Resp any](fn func(context.Context) (Resp, error)) rpc.Handler {
	return Handle(func(ctx context.Context, _ none) (Resp, error) { return fn(ctx) })
}

// HandleOK registers a method that only succeeds or fails; it answers
// CtlOK.
func HandleOK[Req any](fn func(context.Context, Req) error) rpc.Handler {
	return Handle(func(ctx context.Context, req Req) (CtlOK, error) {
		return CtlOK{OK: true}, fn(ctx, req)
	})
}

// AnsweredBy is the key of an error's data naming the peer whose answer
// the reason quotes: the front end marks such words as a colleague's.
const AnsweredBy = "answered_by"

// Error is the control table's edge: it keeps an *rpc.Error (its
// code matters to the front end) and turns any other error into one
// carrying the error's text, since the caller is the owner on the local
// socket and the text says what to do. A domain error (agent/errs) also
// names its kind in data.kind, which ctlclient turns back into the kind.
func Error(err error) error {
	var re *rpc.Error
	if errors.As(err, &re) {
		if err == error(re) {
			return re
		}
		// Wrapped (a peer's answer, say): keep its code and data, with
		// the whole text, which names who answered, as the reason.
		data := map[string]any{}
		if d, ok := re.Data.(map[string]any); ok {
			for k, v := range d {
				data[k] = v
			}
		}
		data["reason"] = err.Error()
		var pe *peers.PeerError
		if errors.As(err, &pe) {
			data[AnsweredBy] = pe.Agent
		}
		return &rpc.Error{Code: re.Code, Message: re.Message, Data: data}
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

// eventPoller answers ctl.events long polls from an EventService.
type eventPoller struct{ svc service.EventService }

// poll answers one ctl.events long poll.
func (ep eventPoller) poll(ctx context.Context, p CtlEventsParams) (CtlEventsResult, error) {
	svc := ep.svc
	res := CtlEventsResult{Events: []service.Event{}}
	after := p.AfterSeq
	if seq, ok := svc.(EventSequencer); ok {
		last := seq.LastEventSeq()
		res.LastSeq = &last
		if after > last {
			return res, nil // the cursor is from an earlier run of the core
		}
		if after <= 0 && !p.Exact {
			after = last // so nothing published during this poll is missed
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := svc.Events(ctx, service.EventsRequest{AfterSeq: after, Exact: p.Exact})
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
