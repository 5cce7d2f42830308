package tui

import (
	"github.com/aoi-protocol/aoi/agent"
)

// action is what a pane or dialog asks the root model to do. Actions are
// plain values; the root turns them into service calls or dialogs.
type action interface{ isAction() }

type (
	approveAction struct{ a agent.Approval }
	rejectAction  struct {
		a      agent.Approval
		reason string
	}
	askRejectReason struct{ a agent.Approval }
	answerAction    struct {
		q    agent.Query
		text string
	}
	declineAction struct {
		q      agent.Query
		reason string
	}
	// keepAnswer closes the answer dialog keeping what the owner wrote,
	// which the next opening of the question offers again.
	keepAnswer struct {
		q    agent.Query
		text string
	}
	openQuery        struct{ q agent.Query }
	askDeclineReason struct{ q agent.Query }
	// releaseAction sends a query its draft; the zero Query releases every
	// buffered one, once the owner confirmed (n is how many were shown).
	releaseAction struct {
		q         agent.Query
		confirmed bool
		n         int
	}
	trustAction  struct{ p agent.Peer }
	refuseAction struct{ p agent.Peer }
	askRefuse    struct{ p agent.Peer }
	quitAction   struct{}
	askTrust     struct{ p agent.Peer }
	showDetail   struct{ title, body string }
	auditFetch   struct{ req auditRequest }
	openFilter   struct{ current string }
	setFilter    struct{ text string }
	closeDialog  struct{}
	noticeAction struct{ text string }
	openMessage  struct{ msg agent.Message }
	openApproval struct{ a agent.Approval }
)

func (approveAction) isAction()    {}
func (rejectAction) isAction()     {}
func (askRejectReason) isAction()  {}
func (answerAction) isAction()     {}
func (declineAction) isAction()    {}
func (openQuery) isAction()        {}
func (keepAnswer) isAction()       {}
func (askDeclineReason) isAction() {}
func (releaseAction) isAction()    {}
func (trustAction) isAction()      {}
func (refuseAction) isAction()     {}
func (askRefuse) isAction()        {}
func (quitAction) isAction()       {}
func (askTrust) isAction()         {}
func (showDetail) isAction()       {}
func (auditFetch) isAction()       {}
func (openFilter) isAction()       {}
func (setFilter) isAction()        {}
func (closeDialog) isAction()      {}
func (noticeAction) isAction()     {}
func (openMessage) isAction()      {}
func (openApproval) isAction()     {}
