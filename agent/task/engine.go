package task

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/store"
)

// Event kinds the engine publishes; equal to agent.Event* (the core asserts
// it).
const (
	EventApprovalRequested = "approval.requested"
	EventApprovalDecided   = "approval.decided"
	EventApprovalExpired   = "approval.expired"
	EventTaskState         = "task.state"
	EventTaskHeartbeat     = "task.heartbeat"
)

// Notify events sent to the requester (equal to wire.EventTask*).
const (
	NotifyCompleted = "task.completed"
	NotifyFailed    = "task.failed"
)

// CodeApprovalDenied is the AOI error code for a rejected or expired
// approval (design §3).
const CodeApprovalDenied = -32007

// Bounds on a task's output.
const (
	MaxOutputFileBytes = 10 << 20 // output.log on disk
	MaxNotifyTail      = 4 << 10  // redacted tail sent to the requester
)

// Engine runs the task lifecycle for the core: submit, approve/reject,
// expiry, running in isolation, results, restart recovery. The core fills
// the hooks; nil hooks do nothing (Audit nil appends to the store's chain).
type Engine struct {
	Store   *store.DB
	Runner  *Runner
	DataDir string                // worktrees/ and tasks/ live under it
	Config  func() *config.Config // the current config (reloads apply to new runs)

	// Notify sends an aoi.notify to the requester (durably, via the outbox);
	// relatedID is the original request id.
	Notify func(ctx context.Context, requester, event, relatedID string, data any) error
	// Redact scrubs text before it leaves the machine.
	Redact func(string) string
	// Publish emits a front-end event (agent.Event kinds above).
	Publish func(kind, id, agent, summary string)
	// Audit appends an audit row inside the transaction that made the change.
	Audit func(tx *store.Tx, agent, method, result string, detail any) error
	Log   *slog.Logger
	// FolderDenies says why a folder rule keeps requester from scope (a
	// context id and a path in it), or "" when none does. The run checks
	// each path parameter again where it really leads in the task's own
	// directory: at another ref a committed symlink may lead elsewhere
	// than in the checkout the request was judged against. Nil: no check.
	FolderDenies func(requester, scope string) string
	// Kept returns, for requester, whether a folder rule keeps them from
	// a place (a context id and a path in it) itself, not only from
	// something under it: what leaveOut removes from a task's worktree.
	// Nil: no check.
	Kept func(requester string) func(place string) bool
	// Trusted reports whether requester is still a trusted peer; a request
	// from one the owner stopped trusting is canceled, not approved. Nil:
	// every requester is.
	Trusted func(requester string) bool
	// MCP runs an mcp_tool task's tool on the work AI's MCP server; the
	// tool and its arguments come from config, params are the resolved
	// values. nil refuses mcp_tool tasks.
	MCP func(ctx context.Context, tool string, arguments map[string]any, params map[string]string) (text string, isError bool, err error)
	// Tick is how often the loop looks for expired approvals, tasks to run
	// and owed notifies (default 1s).
	Tick time.Duration
	// Clock is what the loop waits Tick on (nil: the wall clock; tests
	// pass a backoff.Fake and advance it instead of sleeping).
	Clock backoff.Clock

	mu      sync.Mutex
	busy    map[string]bool // task ids owned by a goroutine (running or notifying)
	cancels map[string]bool // task ids someone asked to cancel
	active  int             // runTask goroutines, at most Runner.Limit()
	wake    chan struct{}
	wg      sync.WaitGroup
	// gitGuard keeps the owner's git configuration as it was before the
	// running tasks started (gitguard.go).
	gitGuard gitGuard
}

// Request is a peer's aoi.task.execute after ACL checks.
type Request struct {
	RequestID   string // JSON-RPC id, echoed as related_query_id in the result
	From        string // requesting agent id
	FromRole    string
	TaskType    string
	Params      map[string]any
	Ref         string // git ref for worktree tasks ("" = HEAD)
	MatchedRule string // the ACL rule that allowed the request
	// Repeats is how far back a task From asked with the same RequestID,
	// type, params and ref is this request again (a retry, the outbox
	// sending it again after a restart emptied the peer server's replay
	// cache), answered with that task instead of a second one. Zero: no
	// request is a repeat.
	Repeats time.Duration
}

func (e *Engine) init() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.busy == nil {
		e.busy = map[string]bool{}
		e.cancels = map[string]bool{}
		e.wake = make(chan struct{}, 1)
	}
}

func (e *Engine) log() *slog.Logger {
	if e.Log != nil {
		return e.Log
	}
	return slog.Default()
}

func (e *Engine) publish(kind, id, agent, summary string) {
	if e.Publish != nil {
		e.Publish(kind, id, agent, summary)
	}
}

func (e *Engine) redact(s string) string {
	if e.Redact != nil {
		return e.Redact(s)
	}
	return s
}

func (e *Engine) audit(tx *store.Tx, agent, method, result string, detail any) error {
	if e.Audit != nil {
		return e.Audit(tx, agent, method, result, detail)
	}
	_, err := tx.AppendAudit(agent, method, result, detail)
	return err
}

// poke wakes the loop without blocking.
func (e *Engine) poke() {
	e.init()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// claim marks a task as owned by the caller; false if someone else has it.
func (e *Engine) claim(id string) bool {
	e.init()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.busy[id] {
		return false
	}
	e.busy[id] = true
	return true
}

func (e *Engine) release(id string) {
	e.mu.Lock()
	delete(e.busy, id)
	e.mu.Unlock()
}

// requestCancel records a cancel request and stops the job if it is in the
// runner (waiting or running).
func (e *Engine) requestCancel(id string) {
	e.init()
	e.mu.Lock()
	e.cancels[id] = true
	e.mu.Unlock()
	e.Runner.Cancel(id)
}

// cancelRequested reports (and with clear, forgets) a cancel request.
func (e *Engine) cancelRequested(id string, clear bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.cancels[id]
	if clear {
		delete(e.cancels, id)
	}
	return c
}

func (e *Engine) worktreeBase() string { return filepath.Join(e.DataDir, "worktrees") }
func (e *Engine) taskDir(id string) string {
	return filepath.Join(e.DataDir, "tasks", id)
}

// peerCaches is the folder of requester's build caches (see
// peerCacheVars), kept between its tasks. Agent ids are checked where
// they enter; one that could still name another folder shares "_".
func (e *Engine) peerCaches(requester string) string {
	if requester == "" || strings.ContainsAny(requester, `/\`) || strings.Trim(requester, ".") == "" {
		requester = "_"
	}
	return filepath.Join(e.DataDir, "task-caches", requester)
}

// newID returns a short random id with a one-letter prefix.
func newID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand failed: %v", err)) // the OS is broken
	}
	return hex.EncodeToString(b[:])
}

// repoDir is the local path of the task type's context.
func repoDir(cfg *config.Config, tt config.TaskType) string {
	for _, c := range cfg.Contexts {
		if c.Identifier == tt.Context {
			return c.LocalPath
		}
	}
	return ""
}

// NotFoundError names an unknown task or approval. ForPeer marks one a
// peer asked about: its advice is the requester's, not this owner's
// `aoi tasks`.
type NotFoundError struct {
	Kind, ID string
	ForPeer  bool
}

func (e *NotFoundError) Error() string {
	if e.ForPeer {
		return fmt.Sprintf("%s %s not found among the tasks you asked this agent for; use the task id `aoi task` printed", e.Kind, e.ID)
	}
	return fmt.Sprintf("%s %s not found; list them with `aoi %ss`", e.Kind, e.ID, e.Kind)
}

// DomainError maps the engine's errors to domain kinds with the same text
// (the core's peer edge turns them into JSON-RPC errors a requester can
// act on, the control edge into data.kind): unknown task type, bad params or ref
// → ErrInvalid, unknown task or approval → ErrNotFound; errs kinds the
// engine returns itself (ErrConflict) pass as they are.
func DomainError(err error) error {
	var pe *ParamError
	var ue *UnknownTaskTypeError
	var re *RefError
	var nf *NotFoundError
	switch {
	case errors.As(err, &pe), errors.As(err, &ue), errors.As(err, &re):
		return errs.Invalid("%s", err.Error())
	case errors.As(err, &nf):
		return errs.NotFound("%s", err.Error())
	}
	return err
}
