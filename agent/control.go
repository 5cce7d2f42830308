package agent

import (
	"github.com/aoi-protocol/aoi/agent/control"
	"github.com/aoi-protocol/aoi/rpc"
)

// The control table (ctl.*) lives in agent/control beside its client; these
// are its names in agent.

// Control-socket methods: one per Service method.
const (
	CtlStatus      = control.CtlStatus
	CtlPeers       = control.CtlPeers
	CtlDiscover    = control.CtlDiscover
	CtlTrust       = control.CtlTrust
	CtlRefuse      = control.CtlRefuse
	CtlAsk         = control.CtlAsk
	CtlQueries     = control.CtlQueries
	CtlAnswer      = control.CtlAnswer
	CtlDecline     = control.CtlDecline
	CtlRelease     = control.CtlRelease
	CtlFocus       = control.CtlFocus
	CtlMessages    = control.CtlMessages
	CtlMarkRead    = control.CtlMarkRead
	CtlSendMessage = control.CtlSendMessage
	CtlInbox       = control.CtlInbox
	CtlCoordTasks  = control.CtlCoordTasks
	CtlNote        = control.CtlNote
	CtlNotes       = control.CtlNotes
	CtlDeleteNote  = control.CtlDeleteNote
	CtlPromptLines = control.CtlPromptLines
	CtlPromptAdd   = control.CtlPromptAdd
	CtlOutbox      = control.CtlOutbox
	CtlOutboxDrop  = control.CtlOutboxDrop
	CtlOutboxRetry = control.CtlOutboxRetry
	CtlReportEvent = control.CtlReportEvent
	CtlSnapshot    = control.CtlSnapshot
	CtlTaskRequest = control.CtlTaskRequest
	CtlTaskStatus  = control.CtlTaskStatus
	CtlTaskCancel  = control.CtlTaskCancel
	CtlApprovals   = control.CtlApprovals
	CtlApprove     = control.CtlApprove
	CtlReject      = control.CtlReject
	CtlTasks       = control.CtlTasks
	CtlAudit       = control.CtlAudit
	CtlAuditVerify = control.CtlAuditVerify
	CtlEvents      = control.CtlEvents
	CtlReload      = control.CtlReload
)

// Long-poll bounds of ctl.events, and the code of a failed control call.
const (
	MaxEventWait      = control.MaxEventWait
	MaxEventBatch     = control.MaxEventBatch
	CodeControlFailed = control.CodeControlFailed
)

// Params and results of the ctl.* methods that are not Service's own types.
type (
	CtlEventsParams = control.CtlEventsParams
	CtlEventsResult = control.CtlEventsResult
	CtlOK           = control.CtlOK
	EventSequencer  = control.EventSequencer
)

// RegisterControl registers every ctl.* method on srv (control.Register).
func RegisterControl(srv *rpc.Server, svc Service) { control.Register(srv, svc) }

// LastEventSeq implements EventSequencer: the newest event's sequence
// number (0 before the first).
func (c *Core) LastEventSeq() int64 { return c.events.LastSeq() }

var _ EventSequencer = (*Core)(nil)
