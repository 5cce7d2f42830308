// Package peerapi serves the aoi.* methods peers call: one file per method
// (discover.go, ping.go, notify.go, query.go, task.go) and the route table
// here. Like agent/task's Engine it gets what it needs as fields and holds
// no pointer back to the core; handlers return agent/errs kinds, which the
// core's peer edge maps to JSON-RPC errors.
package peerapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/utf8cut"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// API is the peer API. Set the fields, then register Routes.
type API struct {
	DB     *store.DB
	Peers  *peers.Registry
	Inbox  *inbox.Inbox
	Tasks  *task.Engine
	Config func() *config.Config // the current config (reloads apply)
	Policy func() *acl.Policy    // the current ACL policy
	Now    func() time.Time
	Log    *slog.Logger
	// Self is this agent's registry entry (status, endpoint, manifest) as
	// viewer may see it.
	Self func(viewer acl.Subject) wire.RegistryEntry
	// Decide asks the secretary about a received query; ok is false when
	// there is none (the query then waits for the owner).
	Decide func(ctx context.Context, caller rpc.Caller, p wire.QueryParams) (h Handling, ok bool, err error)
	// ResolveScope rewrites context_scope entries to the paths they really
	// lead to; escaped names an entry that leaves its repository.
	ResolveScope func(cfg *config.Config, scope []string) (resolved []string, escaped string)
	// Publish emits a front-end event (agent/events kinds).
	Publish func(kind, id, agent, summary string)
	// Wake makes the outbox look at its queue now.
	Wake func()

	earlier earlierQuestions // questions a restart's repeat may name
}

// Routes is the peer API's route table: every aoi.* method it serves and
// its handler. The core adds aoi.message (agent/messaging.go).
func (a *API) Routes() map[string]rpc.Handler {
	return map[string]rpc.Handler{
		wire.MethodDiscover:    a.handleDiscover,
		wire.MethodPing:        a.handlePing,
		wire.MethodQuery:       a.handleQuery,
		wire.MethodNotify:      a.handleNotify,
		wire.MethodTaskExecute: a.handleTaskExecute,
		wire.MethodTaskStatus:  a.handleTaskStatus,
		wire.MethodTaskCancel:  a.handleTaskCancel,
	}
}

// CheckFrom refuses a request whose `from` is not the authenticated caller:
// an impersonation attempt, audited as such.
func (a *API) CheckFrom(ctx context.Context, call *rpc.Call, from, to string) error {
	caller := call.Caller
	if caller.AgentID == "" || from != caller.AgentID {
		who := caller.AgentID
		if who == "" {
			who = caller.Key()
		}
		a.AuditRefusal(ctx, call, "impersonation", map[string]any{"claimed": utf8cut.Ellipsis(from, maxClaimBytes), "authenticated_as": who})
		return errs.Denied(
			fmt.Sprintf("request says it is from %q but the connection is authenticated as %q; an agent may only speak for itself", from, who),
			map[string]any{"claimed_from": from})
	}
	if to != "" && to != a.Config().Agent.ID {
		return errs.UnknownPeer(to, fmt.Sprintf("no agent %q is registered here", to))
	}
	return nil
}

// maxClaimBytes bounds what an audit row keeps of an id a caller claimed:
// an agent id is at most 63 bytes, and a peer's 60 KiB `from` was stored
// whole in the row of each refused call.
const maxClaimBytes = 64

// AuditRefusal writes a refused call's audit row and marks the call audited.
func (a *API) AuditRefusal(ctx context.Context, call *rpc.Call, kind string, detail map[string]any) {
	a.auditRefused(ctx, call, "PERMISSION_DENIED", kind, detail)
}

// auditRefused is AuditRefusal with the outcome the caller was sent.
func (a *API) auditRefused(ctx context.Context, call *rpc.Call, outcome, kind string, detail map[string]any) {
	detail["refused"] = kind
	err := a.DB.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit(CallerName(call.Caller), call.Method, outcome, detail)
		return err
	})
	if err != nil {
		a.Log.Error("audit refusal", "component", "audit", "err", err)
		return
	}
	call.MarkAudited()
}

// CallerName is how the audit log names a caller: its agent id, else its
// key.
func CallerName(c rpc.Caller) string {
	if c.AgentID != "" {
		return c.AgentID
	}
	return c.Key()
}

// IDString is a JSON-RPC id as text (a string id unquoted).
func IDString(raw json.RawMessage) string {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' {
		// The common id, a plain string: what strconv.Unquote gives for
		// it (no escape, no line break, valid UTF-8), in one copy where
		// the general path below makes two. Every call logs its id.
		if inner := raw[1 : n-1]; bytes.IndexByte(inner, '\\') < 0 && bytes.IndexByte(inner, '\n') < 0 && bytes.IndexByte(inner, '"') < 0 && utf8.Valid(inner) {
			return string(inner)
		}
	}
	s := strings.TrimSpace(string(raw))
	if strings.HasPrefix(s, `"`) {
		if u, err := strconv.Unquote(s); err == nil {
			return u
		}
	}
	return s
}
