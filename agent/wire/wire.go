// Package wire holds the peer-to-peer message shapes of seed 000 (field names
// exactly as there). Every package that builds or reads aoi.* params and
// results uses these types, so the wire format is defined once.
package wire

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"strconv"
	"time"
)

// ProtocolVersion is exchanged in aoi.discover and aoi.ping. Peers with a
// different major version are refused (seed 001 §10: minors are compatible).
const ProtocolVersion = "1.0"

// Peer-server method names.
const (
	MethodDiscover    = "aoi.discover"
	MethodQuery       = "aoi.query"
	MethodNotify      = "aoi.notify"
	MethodPing        = "aoi.ping"
	MethodTaskExecute = "aoi.task.execute"
	MethodTaskStatus  = "aoi.task.status"
	MethodTaskCancel  = "aoi.task.cancel"
	MethodMessage     = "aoi.message"
)

// Notify events.
const (
	EventQueryCompleted = "query.completed"
	EventQueryDeclined  = "query.declined"
	EventTaskCompleted  = "task.completed"
	EventTaskFailed     = "task.failed"
	EventTaskState      = "task.state"
	EventApprovalDenied = "approval.denied"
	EventContextUpdated = "context.updated"
)

// Priorities (seed 001 adds critical).
const (
	PriorityLow      = "low"
	PriorityNormal   = "normal"
	PriorityHigh     = "high"
	PriorityCritical = "critical"
)

// MetaAsOf is the QueryResult metadata key holding when the secretary
// wrote the answer (RFC 3339): the moment its "2 min ago" counts from.
const MetaAsOf = "as_of"

// MetaConfidence is the QueryResult metadata key holding the secretary's
// confidence in its answer: every answer it drafts carries one, an
// answer the owner writes none.
const MetaConfidence = "confidence"

// ContextReference names a context an agent holds.
type ContextReference struct {
	Type       string         `json:"type"` // repository | issue | folder | file
	Identifier string         `json:"identifier"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// Capabilities is an agent's capability manifest.
type Capabilities struct {
	Actions              []string           `json:"actions"`
	Contexts             []ContextReference `json:"contexts"`
	MaxConcurrentQueries int                `json:"maxConcurrentQueries,omitempty"`
	SupportedLanguages   []string           `json:"supportedLanguages,omitempty"`
	TaskTypes            []string           `json:"task_types,omitempty"` // aoi extension
	// TaskParams are the parameters each of TaskTypes takes (aoi
	// extension): what a peer may set when it asks for one.
	TaskParams map[string][]TaskParam `json:"task_params,omitempty"`
}

// TaskParam is one parameter a task type takes, as its owner declared it.
type TaskParam struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Default     string   `json:"default,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	Type        string   `json:"type,omitempty"` // "path": a path inside the task's directory
}

// Identity is seed 000's AgentIdentity.
type Identity struct {
	ID              string         `json:"id"`
	Role            string         `json:"role"`
	Owner           string         `json:"owner"`
	TailscaleNodeID string         `json:"tailscaleNodeId"`
	Capabilities    Capabilities   `json:"capabilities"`
	RegisteredAt    time.Time      `json:"registeredAt"`
	LastSeenAt      time.Time      `json:"lastSeenAt"`
	Metadata        map[string]any `json:"metadata,omitempty"`
}

// RegistryEntry is one agent in a discovery result.
type RegistryEntry struct {
	Identity Identity `json:"identity"`
	Endpoint string   `json:"endpoint"`
	Status   string   `json:"status"` // online | offline | busy
}

// DiscoverParams are aoi.discover's params. Role, Owner, Endpoint and
// AOIVersion are aoi extensions an announcing agent fills in.
type DiscoverParams struct {
	AgentID      string       `json:"agent_id"`
	Capabilities Capabilities `json:"capabilities"`
	Announce     bool         `json:"announce"`
	Role         string       `json:"role,omitempty"`
	Owner        string       `json:"owner,omitempty"`
	Endpoint     string       `json:"endpoint,omitempty"`
	AOIVersion   string       `json:"aoi_version,omitempty"`
	// SelfOnly (an aoi extension) asks for the callee's own entry only.
	// aoi's announce rounds set it: they record only what the callee says
	// about itself, and with it an announce costs the same with 10 peers
	// or 1,000 (the seed's full registry in every reply grows as N² over
	// a tailnet). Without it the reply lists the registry, as in seed 000.
	SelfOnly bool `json:"self_only,omitempty"`
	// Status (an aoi extension) is the announcer's own: online, busy in
	// focus, away; missing (an older aoi, the seed's) reads as online.
	Status string `json:"status,omitempty"`
	// Filters for a non-announcing discover.
	FilterRole   string `json:"role_filter,omitempty"`
	FilterStatus string `json:"status_filter,omitempty"`
}

// DiscoverResult is aoi.discover's result.
type DiscoverResult struct {
	Agents     []RegistryEntry `json:"agents"`
	AOIVersion string          `json:"aoi_version"`
}

// QueryParams are aoi.query's params.
type QueryParams struct {
	From         string   `json:"from"`
	To           string   `json:"to"`
	Query        string   `json:"query"`
	ContextScope []string `json:"context_scope"`
	Priority     string   `json:"priority,omitempty"`
	Async        bool     `json:"async,omitempty"`
	Timeout      int      `json:"timeout,omitempty"` // seconds
}

// ContextRef points at evidence behind an answer.
type ContextRef struct {
	Type    string `json:"type"` // commit | file | line | symbol | issue | task | note
	Ref     string `json:"ref"`
	Summary string `json:"summary,omitempty"`
}

// QueryResult is aoi.query's result (and query.completed's data).
type QueryResult struct {
	Summary     string         `json:"summary"`
	Progress    *int           `json:"progress,omitempty"`
	Blockers    []string       `json:"blockers,omitempty"`
	ContextRefs []ContextRef   `json:"context_refs,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	Completed   bool           `json:"completed"`
}

// NotifyParams are aoi.notify's params. ID is an aoi extension: a unique
// message id the receiver uses to drop duplicates of a retried delivery.
type NotifyParams struct {
	ID             string          `json:"id,omitempty"`
	From           string          `json:"from"`
	To             string          `json:"to"`
	Event          string          `json:"event"`
	RelatedQueryID string          `json:"related_query_id,omitempty"`
	Data           json.RawMessage `json:"data"`
	Timestamp      time.Time       `json:"timestamp"`
}

// TaskExecuteParams are aoi.task.execute's params.
type TaskExecuteParams struct {
	From         string         `json:"from"`
	To           string         `json:"to"`
	TaskType     string         `json:"task_type"`
	TaskParams   map[string]any `json:"task_params"`
	ContextScope []string       `json:"context_scope"`
	Async        *bool          `json:"async,omitempty"`   // default true
	Timeout      int            `json:"timeout,omitempty"` // seconds to wait when async is false
	Ref          string         `json:"ref,omitempty"`     // git ref for worktree isolation
}

// TaskExecuteResult is aoi.task.execute's (and aoi.task.status's) result.
type TaskExecuteResult struct {
	TaskID  string          `json:"task_id"`
	Status  string          `json:"status"`
	Message string          `json:"message,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"`
	Error   string          `json:"error,omitempty"`
	// TaskType, CreatedAt and UpdatedAt are filled by aoi.task.status so
	// the requester sees what it asked for and when it last changed.
	TaskType  string    `json:"task_type,omitempty"`
	CreatedAt time.Time `json:"created_at,omitzero"`
	UpdatedAt time.Time `json:"updated_at,omitzero"`
}

// TaskRef names a task in aoi.task.status / aoi.task.cancel.
type TaskRef struct {
	From   string `json:"from"`
	TaskID string `json:"task_id"`
}

// PingParams / PingResult are the heartbeat.
type PingParams struct {
	From       string `json:"from"`
	AOIVersion string `json:"aoi_version"`
}

// PingResult is aoi.ping's result.
type PingResult struct {
	AgentID    string    `json:"agent_id"`
	Status     string    `json:"status"`
	AOIVersion string    `json:"aoi_version"`
	Time       time.Time `json:"time"`
}

// ContextSnapshot is seed 000's current-work snapshot.
type ContextSnapshot struct {
	Timestamp     time.Time      `json:"timestamp"`
	ActiveFiles   []string       `json:"active_files"`
	RecentChanges []FileChange   `json:"recent_changes"`
	RecentChat    []ChatLine     `json:"recent_chat"`
	ActiveErrors  []ActiveError  `json:"active_errors"`
	RecentTests   []TestOutcome  `json:"recent_tests"`
	FocusSummary  string         `json:"focus_summary"`
	Progress      *int           `json:"progress,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
}

// FileChange is one entry of ContextSnapshot.RecentChanges.
type FileChange struct {
	File         string `json:"file"`
	LinesAdded   int    `json:"lines_added"`
	LinesRemoved int    `json:"lines_removed"`
	Summary      string `json:"summary"`
}

// ChatLine is one entry of ContextSnapshot.RecentChat.
type ChatLine struct {
	Role      string    `json:"role"`
	Content   string    `json:"content"`
	Timestamp time.Time `json:"timestamp"`
}

// ActiveError is one entry of ContextSnapshot.ActiveErrors.
type ActiveError struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Message  string `json:"message"`
	Severity string `json:"severity"`
}

// TestOutcome is one entry of ContextSnapshot.RecentTests.
type TestOutcome struct {
	Name       string `json:"name"`
	Status     string `json:"status"`
	DurationMS int64  `json:"duration_ms"`
}

// MajorVersion returns the major part of a protocol version ("1.0" → "1").
func MajorVersion(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] == '.' {
			return v[:i]
		}
	}
	return v
}

// ValidEndpoint reports whether addr is HOST:PORT with a host and a port
// from 1 to 65535: an address a peer can be called on.
func ValidEndpoint(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

// ValidAgentID reports whether id has the shape of an agent id (the
// config schema's agentId): lower-case letters, digits, '.', '_' or '-',
// starting with a letter or digit, at most 63 characters. Anything else is
// refused without being echoed, so control characters or "../.." never reach
// advice shown to a person or a model. "owner" and "system" are the names
// the audit log gives the owner's and the store's own rows (seals,
// checkpoints): no agent may take them.
func ValidAgentID(id string) bool {
	if id == "" || len(id) > 63 || id == "." || id == ".." || id == "owner" || id == "system" {
		return false
	}
	for i := 0; i < len(id); i++ {
		ch := id[i]
		alnum := ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9'
		if !alnum && (i == 0 || ch != '.' && ch != '_' && ch != '-') {
			return false
		}
	}
	return true
}

// NewID returns prefix-<24 hex digits>, the ids aoi gives its queries,
// asks, tasks and messages: the time in milliseconds (12 digits), then 48
// random bits. Ids made later sort later, so a table keyed by them (queries,
// messages) grows at its end; with random ids every insert landed on a
// random page of the key's index, which on a 230k-row table made a query
// insert cost 29.5 µs instead of 13.6 µs (store microbenchmark, 64-row
// batches).
func NewID(prefix string) string {
	var b [12]byte
	ms := uint64(time.Now().UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	if _, err := rand.Read(b[6:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return prefix + "-" + hex.EncodeToString(b[:])
}

// MustJSON encodes one of aoi's own plain structs, which cannot fail.
func MustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("marshal %T: %v", v, err)) // only our own plain structs reach here
	}
	return b
}
