package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// Messages from the event bridge.
type (
	// subscribedMsg carries the channel from Service.Events.
	subscribedMsg struct {
		ch  <-chan agent.Event
		err error
	}
	// eventMsg is one core event; the bridge re-arms after each.
	eventMsg struct {
		ev agent.Event
		ch <-chan agent.Event
	}
	// eventsClosedMsg says the channel closed (core stopped, socket lost).
	eventsClosedMsg struct{}
	// resubscribeMsg retries the subscription after a pause.
	resubscribeMsg struct{}
	// flushMsg fetches whatever events marked as changed.
	flushMsg struct{}
)

// subscribe opens the event stream after the last seen sequence number.
func subscribe(ctx context.Context, svc Service, after int64) tea.Cmd {
	return func() tea.Msg {
		ch, err := svc.Events(ctx, agent.EventsRequest{AfterSeq: after})
		return subscribedMsg{ch: ch, err: err}
	}
}

// waitEvent waits for the next event on ch. The root re-arms it after every
// event, so exactly one waiter exists at a time.
func waitEvent(ch <-chan agent.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsClosedMsg{}
		}
		return eventMsg{ev: ev, ch: ch}
	}
}

// dirty is a set of data kinds to refetch.
type dirty uint16

const (
	dStatus dirty = 1 << iota
	dPeers
	dQueries
	dApprovals
	dTasks
	dMessages
	dAudit
	dAll = dStatus | dPeers | dQueries | dApprovals | dTasks | dMessages | dAudit
)

// dirtyFor maps an event kind to the data it changes.
func dirtyFor(kind string) dirty {
	switch kind {
	case agent.EventQueryReceived, agent.EventQueryUpdated:
		return dQueries | dStatus
	case agent.EventMessageReceived:
		return dMessages | dStatus
	case agent.EventApprovalRequested, agent.EventApprovalDecided, agent.EventApprovalExpired:
		return dApprovals | dTasks | dStatus
	case agent.EventTaskState, agent.EventTaskHeartbeat:
		return dTasks
	case agent.EventPeerChanged, agent.EventTrustRequested:
		return dPeers | dStatus
	case agent.EventAudit:
		return dAudit
	case agent.EventFocusChanged, agent.EventAttention, agent.EventAskSent:
		return dStatus // the status lists what waits for an answer
	case agent.EventOutboxChanged:
		return dStatus // the status bar counts what is undelivered
	}
	return dStatus
}

// flushDelay coalesces a burst of events into one round of fetches.
const flushDelay = 40 * time.Millisecond

func flushAfter() tea.Cmd {
	return tea.Tick(flushDelay, func(time.Time) tea.Msg { return flushMsg{} })
}

// fetched is the result of one fetch; seq orders it against other fetches
// of the same kind so a late, older result never overwrites a newer one.
type fetched[T any] struct {
	seq uint64
	val T
	err error
}

// fetch runs f with a timeout in a command. f must capture only copies.
func fetch[T any](ctx context.Context, timeout time.Duration, seq uint64, f func(context.Context) (T, error)) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		v, err := f(ctx)
		return fetched[T]{seq: seq, val: v, err: err}
	}
}

// Limits of what one fetch asks for.
const (
	queryLimit    = 500
	approvalLimit = 2000
	taskLimit     = 200
	messageLimit  = 100
	auditPageSize = 200
)

// fetchCmds builds the fetches for the dirty set. Each captures the service,
// context and arguments by value.
func (m *Model) fetchCmds(d dirty) []tea.Cmd {
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	var cmds []tea.Cmd
	next := func() uint64 { m.seq++; return m.seq }
	if d&dStatus != 0 {
		cmds = append(cmds, fetch(ctx, to, next(), svc.Status))
	}
	if d&dPeers != 0 {
		cmds = append(cmds, fetch(ctx, to, next(), svc.Peers))
	}
	if d&dQueries != 0 {
		cmds = append(cmds, fetch(ctx, to, next(), func(c context.Context) ([]agent.Query, error) {
			return svc.Queries(c, agent.QueryFilter{Limit: queryLimit})
		}))
	}
	if d&dApprovals != 0 {
		cmds = append(cmds, fetch(ctx, to, next(), func(c context.Context) ([]agent.Approval, error) {
			return svc.Approvals(c, agent.ApprovalFilter{State: agent.TaskPending, Limit: approvalLimit})
		}))
	}
	if d&dTasks != 0 {
		cmds = append(cmds, fetch(ctx, to, next(), func(c context.Context) ([]agent.Task, error) {
			return svc.Tasks(c, agent.TaskFilter{Limit: taskLimit})
		}))
	}
	if d&dMessages != 0 {
		after := m.msgSeq
		cmds = append(cmds, fetch(ctx, to, next(), func(c context.Context) ([]agent.Message, error) {
			return svc.Messages(c, agent.MessagesRequest{AfterSeq: after, Limit: messageLimit})
		}))
	}
	if d&dAudit != 0 {
		if req, ok := m.audit.refreshHead(); ok {
			cmds = append(cmds, m.auditCmd(req))
		}
	}
	return cmds
}

// auditRequest asks for one page of the audit log.
type auditRequest struct {
	page   int
	before int64
	filter agent.AuditFilter
	gen    int // filter generation; a page for an old filter is dropped
}

// auditPageMsg is one fetched audit page.
type auditPageMsg struct {
	req  auditRequest
	rows []agent.AuditEntry
	err  error
}

func (m *Model) auditCmd(req auditRequest) tea.Cmd {
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, to)
		defer cancel()
		f := req.filter
		f.BeforeSeq, f.Limit = req.before, auditPageSize
		rows, err := svc.Audit(ctx, f)
		return auditPageMsg{req: req, rows: rows, err: err}
	}
}

// doneMsg reports the end of an owner action (approve, answer, …).
type doneMsg struct {
	what    string // shown on success: "approved a-12"
	failed  string // shown before the error: "approving a-12"; "" uses what
	err     error
	refresh dirty
	after   func(*Model, error) // runs once the outcome is shown, if set
}

// then makes cmd, a callAs command, run after with the outcome.
func then(cmd tea.Cmd, after func(*Model, error)) tea.Cmd {
	return func() tea.Msg {
		msg := cmd().(doneMsg)
		msg.after = after
		return msg
	}
}

// callAs runs an owner action in a command and reports it with doneMsg:
// what on success, "<failed> failed: <why>" otherwise ("answering q-1
// failed: …", not "answer sent for q-1 failed").
func (m *Model) callAs(what, failed string, refresh dirty, f func(context.Context, Service) error) tea.Cmd {
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, to)
		defer cancel()
		return doneMsg{what: what, failed: failed, err: f(ctx, svc), refresh: refresh}
	}
}

// tickMsg advances the clock for countdowns and notices.
type tickMsg time.Time

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}
