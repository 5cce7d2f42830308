package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// runAction turns a pane or dialog action into dialogs and service calls.
func (m *Model) runAction(a action) tea.Cmd {
	switch a := a.(type) {
	case nil, closeDialog:
		return nil
	case approveAction:
		return m.call("approved "+a.id, dApprovals|dTasks|dStatus, func(c context.Context, s agent.Service) error {
			return s.Approve(c, a.id)
		})
	case askRejectReason:
		m.pushDialog(newReasonDialog("Reject "+Sanitize(a.a.TaskType)+" from "+Sanitize(a.a.Requester),
			"Why? (sent to the requester)", func(r string) action { return rejectAction{id: a.a.ID, reason: r} }, m.env))
	case rejectAction:
		return m.call("rejected "+a.id, dApprovals|dTasks|dStatus, func(c context.Context, s agent.Service) error {
			return s.Reject(c, a.id, a.reason)
		})
	case openQuery:
		m.pushDialog(newAnswerDialog(a.q, m.env))
		return m.topDialog().(*answerDialog).focusCmd()
	case answerAction:
		return m.call("answer sent for "+a.id, dQueries|dStatus, func(c context.Context, s agent.Service) error {
			return s.Answer(c, a.id, a.text)
		})
	case askDeclineReason:
		m.pushDialog(newReasonDialog("Decline query from "+Sanitize(a.q.From),
			"Why? (sent to the asker)", func(r string) action { return declineAction{id: a.q.ID, reason: r} }, m.env))
	case declineAction:
		return m.call("declined "+a.id, dQueries|dStatus, func(c context.Context, s agent.Service) error {
			return s.Decline(c, a.id, a.reason)
		})
	case releaseAction:
		what := "released " + a.id
		if a.id == "" {
			what = "released all buffered queries"
		}
		return m.call(what, dQueries|dStatus, func(c context.Context, s agent.Service) error {
			return s.Release(c, a.id)
		})
	case trustAction:
		req := agent.TrustRequest{AgentID: a.p.AgentID, Fingerprint: a.p.Fingerprint, Endpoint: a.p.Endpoint}
		return m.call("trusted "+Sanitize(a.p.AgentID), dPeers|dStatus, func(c context.Context, s agent.Service) error {
			return s.Trust(c, req)
		})
	case refuseAction:
		return m.call("refused "+Sanitize(a.p.AgentID), dPeers|dStatus, func(c context.Context, s agent.Service) error {
			return s.Refuse(c, a.p.Fingerprint)
		})
	case showDetail:
		m.pushDialog(newDetailDialog(a.title, a.body))
	case auditFetch:
		return m.auditCmd(a.req)
	case openFilter:
		m.pushDialog(newReasonDialog("Filter audit",
			"agent:NAME method:NAME result:NAME, or a word", func(t string) action { return setFilter{text: t} }, m.env).
			withValue(a.current).allowEmpty())
	case setFilter:
		return m.runAction(m.audit.setFilter(a.text))
	case noticeAction:
		m.info(a.text)
	}
	return nil
}
