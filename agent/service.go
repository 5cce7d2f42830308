package agent

import "github.com/aoi-protocol/aoi/agent/service"

// The Service seam lives in agent/service (below agent, so the control
// table can sit beside its client); these are its names in agent, where
// the core and the front ends have always used them.

type (
	Service            = service.Service
	AdminService       = service.AdminService
	PeerService        = service.PeerService
	InboxService       = service.InboxService
	AskingService      = service.AskingService
	MessagingService   = service.MessagingService
	ApprovalService    = service.ApprovalService
	MirrorService      = service.MirrorService
	PromptService      = service.PromptService
	PromptLine         = service.PromptLine
	OutboxEntry        = service.OutboxEntry
	OutboxDropRequest  = service.OutboxDropRequest
	OutboxRetryRequest = service.OutboxRetryRequest
	OutboxRetryResult  = service.OutboxRetryResult
	OutboxService      = service.OutboxService
	AuditService       = service.AuditService
	EventService       = service.EventService
	RefuseRequest      = service.RefuseRequest
	AnswerRequest      = service.AnswerRequest
	DeclineRequest     = service.DeclineRequest
	ReleaseRequest     = service.ReleaseRequest
	FocusRequest       = service.FocusRequest
	MessagesRequest    = service.MessagesRequest
	MarkReadRequest    = service.MarkReadRequest
	NoteRequest        = service.NoteRequest
	NotesRequest       = service.NotesRequest
	Note               = service.Note
	NoteSaved          = service.NoteSaved
	DeleteNoteRequest  = service.DeleteNoteRequest
	RemoteTaskRef      = service.RemoteTaskRef
	ApproveRequest     = service.ApproveRequest
	RejectRequest      = service.RejectRequest
	EventsRequest      = service.EventsRequest
	Status             = service.Status
	Reach              = service.Reach
	IndexProgress      = service.IndexProgress
	WaitingAsk         = service.WaitingAsk
	Tailnet            = service.Tailnet
	AskRequest         = service.AskRequest
	AskResult          = service.AskResult
	Query              = service.Query
	QueryFilter        = service.QueryFilter
	ReportedEvent      = service.ReportedEvent
	TaskRequest        = service.TaskRequest
	TaskTicket         = service.TaskTicket
	Task               = service.Task
	TaskFilter         = service.TaskFilter
	Approval           = service.Approval
	TaskPlan           = service.TaskPlan
	ApprovalFilter     = service.ApprovalFilter
	AuditEntry         = service.AuditEntry
	AuditFilter        = service.AuditFilter
	AuditVerification  = service.AuditVerification
	Event              = service.Event
	ReloadReport       = service.ReloadReport

	SendMessageRequest = service.SendMessageRequest
	SentMessage        = service.SentMessage
	InboxFilter        = service.InboxFilter
	InboxPage          = service.InboxPage
	OlderAgentError    = service.OlderAgentError
	CoordTask          = service.CoordTask
	CoordTasksRequest  = service.CoordTasksRequest
	Message            = service.Message
)

// ReachOf says who can use an endpoint as written (service.ReachOf).
var ReachOf = service.ReachOf

// QueryByIDStart finds the query an id or its start names
// (service.QueryByIDStart).
var QueryByIDStart = service.QueryByIDStart

// QueriesStartingWith counts the queries an id's start fits
// (service.QueriesStartingWith).
var QueriesStartingWith = service.QueriesStartingWith

// AuditResultLabel and AuditResultCode map audit error names to the short
// labels the interface shows and back (service.AuditResultLabel).
var (
	AuditResultLabel = service.AuditResultLabel
	AuditResultCode  = service.AuditResultCode
)

// MessageKindLabel names a message's kind in words, as the interface and
// `aoi inbox` show it (service.MessageKindLabel).
var MessageKindLabel = service.MessageKindLabel

// WaitingGroup is the asks of one text to one peer still waiting, as the
// interface and `aoi status` fold them (service.FoldWaiting).
type WaitingGroup = service.WaitingGroup

// FoldWaiting groups waiting asks by peer and text (service.FoldWaiting).
var FoldWaiting = service.FoldWaiting

const (
	ReachAsWritten         = service.ReachAsWritten
	ReachThisMachine       = service.ReachThisMachine
	ReachEveryInterface    = service.ReachEveryInterface
	QueryAnswered          = service.QueryAnswered
	AskQueued              = service.AskQueued
	QueryBuffered          = service.QueryBuffered
	QueryEscalated         = service.QueryEscalated
	QueryAwaiting          = service.QueryAwaiting
	QueryDeclined          = service.QueryDeclined
	TaskPending            = service.TaskPending
	TaskApproved           = service.TaskApproved
	TaskInProgress         = service.TaskInProgress
	TaskReview             = service.TaskReview
	TaskCompleted          = service.TaskCompleted
	TaskRejected           = service.TaskRejected
	TaskExpired            = service.TaskExpired
	TaskFailed             = service.TaskFailed
	TaskCanceled           = service.TaskCanceled
	EventQueryReceived     = service.EventQueryReceived
	EventQueryUpdated      = service.EventQueryUpdated
	EventMessageReceived   = service.EventMessageReceived
	EventMessagesRead      = service.EventMessagesRead
	EventMessagesReadSome  = service.EventMessagesReadSome
	EventApprovalRequested = service.EventApprovalRequested
	EventApprovalDecided   = service.EventApprovalDecided
	EventApprovalExpired   = service.EventApprovalExpired
	EventTaskState         = service.EventTaskState
	EventTaskHeartbeat     = service.EventTaskHeartbeat
	EventPeerChanged       = service.EventPeerChanged
	EventTrustRequested    = service.EventTrustRequested
	EventAudit             = service.EventAudit
	EventFocusChanged      = service.EventFocusChanged
	EventAttention         = service.EventAttention
	EventCoordTask         = service.EventCoordTask
	EventAskSent           = service.EventAskSent
	EventOutboxChanged     = service.EventOutboxChanged
	EventCoreDisconnected  = service.EventCoreDisconnected
	EventCoreReconnected   = service.EventCoreReconnected
)

// Prompt history bounds (see service).
const (
	PromptHistoryKeep = service.PromptHistoryKeep
	MaxPromptLine     = service.MaxPromptLine
)
