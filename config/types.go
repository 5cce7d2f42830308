// Package config holds aoi's configuration: the types mirroring
// config/aoi.example.json, locating the file, ${VAR} expansion, JSON-Schema
// validation against the embedded config/aoi.schema.json, semantic checks and
// defaults. Every problem is reported as an *Error naming the JSON path and
// the fix.
package config

import (
	"strings"
	"time"
)

// Config is one agent's whole configuration file.
type Config struct {
	Version   string              `json:"version"`
	Agent     Agent               `json:"agent"`
	Network   Network             `json:"network"`
	Peers     []Peer              `json:"peers,omitempty"`
	Contexts  []Context           `json:"contexts,omitempty"`
	ACL       ACL                 `json:"acl"`
	Limits    Limits              `json:"limits"`
	Tasks     map[string]TaskType `json:"tasks,omitempty"`
	Approvals Approvals           `json:"approvals"`
	Secretary Secretary           `json:"secretary"`
	Outbox    Outbox              `json:"outbox"`
	UI        UI                  `json:"ui"`
	Logging   Logging             `json:"logging"`
	Retention Retention           `json:"retention"`
	Metrics   Metrics             `json:"metrics"`
}

// Agent is this agent's identity.
type Agent struct {
	ID    string `json:"id"`
	Role  string `json:"role"`
	Owner string `json:"owner"`
}

// Network configures the peer server and discovery.
type Network struct {
	ListenAddr           string    `json:"listen_addr"`
	Tailscale            Tailscale `json:"tailscale"`
	DiscoveryIntervalSec int       `json:"discovery_interval_sec"`
	OfflineAfterSec      int       `json:"offline_after_sec"`
	// AssistantAwayAfterSec: once the coding assistant has polled
	// aoi_check_messages, this agent shows "away" to peers when it has not
	// polled for this long (0 = the default, 300).
	AssistantAwayAfterSec int   `json:"assistant_away_after_sec,omitempty"`
	MaxBodyBytes          int64 `json:"max_body_bytes"`
	// RefuseExpiredCerts refuses a pinned peer whose certificate has
	// expired (otherwise it is let in with a warning in doctor and Peers).
	RefuseExpiredCerts bool `json:"refuse_expired_certs,omitempty"`
	RequestTimeoutSec  int  `json:"request_timeout_sec"`
	// MaxOpenQuestionsPerPeer bounds the questions one peer may have
	// waiting for the owner at once (0 = the default, 100; -1 = no limit).
	MaxOpenQuestionsPerPeer int `json:"max_open_questions_per_peer,omitempty"`
	// MaxUnreadMessagesPerPeer bounds the messages one peer may have in
	// the assistant's inbox that neither the owner nor the assistant has
	// seen (0 = the default, 500; -1 = no limit).
	MaxUnreadMessagesPerPeer int `json:"max_unread_messages_per_peer,omitempty"`
}

// Tailscale configures tailnet mode (design §4).
type Tailscale struct {
	Enabled    bool   `json:"enabled"`
	AuthKey    string `json:"auth_key"`
	ControlURL string `json:"control_url"`
	Hostname   string `json:"hostname"`
	Tailnet    string `json:"tailnet"`
}

// Peer is a peer named in config: where to reach it and how to know it.
type Peer struct {
	AgentID     string `json:"agent_id"`
	Endpoint    string `json:"endpoint"`
	Fingerprint string `json:"fingerprint"`  // direct mode: SHA-256 of its certificate, 64 hex digits
	TailnetNode string `json:"tailnet_node"` // tailnet mode: the node this agent id is pinned to
	// Role is the role ACL rules match for this peer; a peer's own
	// announcement never sets it.
	Role string `json:"role,omitempty"`
}

// Context is a body of work this agent mirrors and answers about.
type Context struct {
	Type       string `json:"type"` // repository | folder | file | issue
	Identifier string `json:"identifier"`
	LocalPath  string `json:"local_path"`
}

// Permission levels, from least to most.
const (
	PermNone  = "none"
	PermRead  = "read"
	PermWrite = "write"
	PermAdmin = "admin"
)

// Scope types of an ACL rule.
const (
	ScopeRepository = "repository"
	ScopeFolder     = "folder"
	ScopeFile       = "file"
	ScopeIssue      = "issue"
	// ScopeMessages rules grant (write) or deny sending aoi.message to the
	// owner's assistant inbox; their scope_pattern is not consulted.
	ScopeMessages = "messages"
)

// ACL is the access-control configuration (seed 000 §4, design §5).
type ACL struct {
	DefaultPermission string `json:"default_permission"`
	Rules             []Rule `json:"rules,omitempty"`
	AuditMode         bool   `json:"audit_mode"` // log denials but allow
}

// Rule is one access rule. Every subject field that is set must match the
// caller; "*" in AgentID matches everyone.
type Rule struct {
	ID           string         `json:"id"`
	AgentID      string         `json:"agent_id,omitempty"`
	AgentRole    string         `json:"agent_role,omitempty"`
	TailnetUser  string         `json:"tailnet_user,omitempty"`
	TailnetTag   string         `json:"tailnet_tag,omitempty"`
	ScopeType    string         `json:"scope_type"`
	ScopePattern string         `json:"scope_pattern"`
	Permission   string         `json:"permission"`
	ExpiresAt    *time.Time     `json:"expires_at,omitempty"`
	Metadata     map[string]any `json:"metadata,omitempty"`
}

// Limits bound what peers may ask of this agent.
type Limits struct {
	RatePerSec float64 `json:"rate_per_sec"`
	Burst      int     `json:"burst"`
	// BodyBytesPerSec bounds the request bytes a caller may send a second
	// (a body up to network.max_body_bytes always fits the bucket): every
	// body is redacted before anything reads it, at a cost per byte.
	BodyBytesPerSec    float64 `json:"body_bytes_per_sec"`
	MaxConcurrentTasks int     `json:"max_concurrent_tasks"`
	// DailyCallsPerPeer bounds the calls one peer may make per UTC day:
	// each is an audit row, kept until retention ends (0: the default,
	// negative: no limit; see DailyCallsLimit).
	DailyCallsPerPeer int `json:"daily_calls_per_peer,omitempty"`
}

// Isolation and output values of a task type.
const (
	IsolationNone     = "none"
	IsolationWorktree = "worktree"
	OutputGoTestJSON  = "go-test-json"
	OutputJUnit       = "junit"
)

// TaskType is a task a peer may request (design §7). Exactly one of Command
// and MCPTool is set; Command's {{placeholders}} are filled from Params.
type TaskType struct {
	Command    []string         `json:"command,omitempty"`
	MCPTool    string           `json:"mcp_tool,omitempty"`
	Server     string           `json:"server,omitempty"`
	Arguments  map[string]any   `json:"arguments,omitempty"`
	Context    string           `json:"context,omitempty"`
	Params     map[string]Param `json:"params,omitempty"`
	TimeoutSec int              `json:"timeout_sec"`
	Isolation  string           `json:"isolation"`
	// AllowRef lets a peer ask for a worktree task at a ref of its
	// choosing. The command then runs that ref's code (its tests, its
	// Makefile) as the owner, with everything the owner can open, so it
	// is off unless the owner turns it on for a task type.
	AllowRef bool `json:"allow_ref,omitempty"`
	// RealHome runs the command with the owner's HOME and XDG folders,
	// which it may then write. Without it a task gets a scratch home of
	// its own, removed when it ends, so what it writes to ~/.bashrc or
	// ~/.config stays out of the owner's. Only the owner's config sets it.
	RealHome bool `json:"real_home,omitempty"`
	// Unconfined runs the command without its Landlock confinement (it
	// then writes wherever the owner can and may signal aoi), for a tool
	// that must write outside its worktree, task folder and the peer's
	// caches. Only the owner's config sets it; command tasks only.
	Unconfined bool `json:"unconfined,omitempty"`
	// Writable names further folders (absolute paths) a confined command
	// may write beneath: a tool's own cache or output folder, without
	// turning the confinement off. Only the owner's config sets it.
	Writable []string `json:"writable,omitempty"`
	// PassEnv names variables of aoi's own environment the command gets
	// as they are (SSH_AUTH_SOCK for a task that fetches over ssh). A
	// task otherwise gets a short fixed list (PATH, LANG, Go's settings),
	// never the owner's session sockets: its agent, bus or tmux server
	// would run what the task asks outside it. Only the owner's config
	// sets it; names aoi sets for a task itself are refused (TaskSetsEnv).
	PassEnv  []string `json:"pass_env,omitempty"`
	Output   string   `json:"output,omitempty"`
	Approval Approval `json:"approval"`
}

// TaskSetsEnv reports whether aoi sets the variable name for a task's
// command itself, so that pass_env may not name it: the scratch home and
// the peer's own caches (use real_home for the owner's), git's ceiling,
// the task's private temporary folder, aoi's own marks.
func TaskSetsEnv(name string) bool {
	switch name {
	case "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
		"GOCACHE", "GOCACHEPROG", "GOPATH", "GOMODCACHE", "GOBIN", "CARGO_HOME", "GIT_CEILING_DIRECTORIES", "TMPDIR":
		return true
	}
	return strings.HasPrefix(name, "AOI_")
}

// Param is a declared task parameter.
type Param struct {
	Description string   `json:"description,omitempty"`
	Default     string   `json:"default,omitempty"`
	Pattern     string   `json:"pattern,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	Required    bool     `json:"required,omitempty"`
	// Type "path" makes the value a path inside the task's directory (its
	// worktree): relative, resolved with its symlinks, never outside it.
	Type string `json:"type,omitempty"`
}

// ParamTypePath is Param.Type for a path confined to the task's directory.
const ParamTypePath = "path"

// Approvals configures the approval inbox.
type Approvals struct {
	ExpirySec           int  `json:"expiry_sec"`
	KeepFailedWorktrees bool `json:"keep_failed_worktrees"`
}

// Secretary configures the context mirror, interrupt controller and answering.
type Secretary struct {
	WorkAI           WorkAI           `json:"work_ai"`
	InterruptControl InterruptControl `json:"interrupt_control"`
	ContextMirroring ContextMirroring `json:"context_mirroring"`
	Redaction        Redaction        `json:"redaction"`
	LLM              LLM              `json:"llm"`
}

// WorkAI names the owner's coding assistant.
type WorkAI struct {
	Type           string `json:"type"`
	MCPEndpoint    string `json:"mcp_endpoint"` // "stdio:<command>" or an http(s) URL
	TranscriptsDir string `json:"transcripts_dir"`
}

// InterruptControl configures when queries may interrupt the owner.
type InterruptControl struct {
	Enabled              bool    `json:"enabled"`
	FocusModeHours       [2]int  `json:"focus_mode_hours"` // [start, end) local hours, 0–24
	AutoRespondThreshold float64 `json:"auto_respond_threshold"`
}

// ContextMirroring configures the context mirror and index.
type ContextMirroring struct {
	Enabled          bool `json:"enabled"`
	IndexIntervalSec int  `json:"index_interval_sec"`
	RetentionDays    int  `json:"retention_days"`
	// TestOutputs are globs, relative to each repository, of the files
	// whose failing tests are blockers (go test -json, JUnit XML, logs
	// with FAIL lines), read even when git ignores them. Empty: files the
	// working tree adds, changes or ignores whose name or folder says
	// test, junit or spec.
	TestOutputs []string `json:"test_outputs,omitempty"`
}

// Redaction adds owner-defined secret patterns to the built-in detector.
type Redaction struct {
	Patterns []RedactionPattern `json:"patterns,omitempty"`
}

// RedactionPattern is one extra secret pattern (Go RE2 syntax).
type RedactionPattern struct {
	ID    string `json:"id"`
	Regex string `json:"regex"`
}

// LLM configures the optional OpenAI-compatible summariser.
type LLM struct {
	Enabled   bool   `json:"enabled"`
	Endpoint  string `json:"endpoint"`
	Model     string `json:"model"`
	APIKey    string `json:"api_key"`
	MaxTokens int    `json:"max_tokens"`
}

// Outbox configures retries of outgoing messages to offline peers.
type Outbox struct {
	InitialBackoffMS int `json:"initial_backoff_ms"`
	MaxBackoffMS     int `json:"max_backoff_ms"`
	ExpirySec        int `json:"expiry_sec"`
}

// UI configures the terminal interface.
type UI struct {
	Theme string            `json:"theme"`
	Bell  bool              `json:"bell"`
	OSC9  bool              `json:"osc9"`
	Keys  map[string]string `json:"keys,omitempty"` // action → key, validated by keymap
}

// Logging configures the log file in the data dir.
type Logging struct {
	Level      string `json:"level"`
	MaxSizeMB  int    `json:"max_size_mb"`
	MaxBackups int    `json:"max_backups"`
}

// Retention configures pruning of old records.
type Retention struct {
	AuditDays int  `json:"audit_days"`
	TasksDays int  `json:"tasks_days"`
	AutoPrune bool `json:"auto_prune"`
}

// Metrics configures the opt-in Prometheus endpoint ("" = off).
type Metrics struct {
	ListenAddr string `json:"listen_addr"`
}
