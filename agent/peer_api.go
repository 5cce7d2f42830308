package agent

import (
	"context"
	"fmt"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// peerRoutes is the peer API: every aoi.* method and its handler.
func (c *Core) peerRoutes() map[string]rpc.Handler {
	return map[string]rpc.Handler{
		wire.MethodDiscover:    c.handleDiscover,
		wire.MethodPing:        c.handlePing,
		wire.MethodQuery:       c.handleQuery,
		wire.MethodNotify:      c.handleNotify,
		wire.MethodMessage:     c.handleMessage,
		wire.MethodTaskExecute: c.handleTaskExecute,
		wire.MethodTaskStatus:  c.handleTaskStatus,
		wire.MethodTaskCancel:  c.handleTaskCancel,
	}
}

// registerPeerHandlers installs the peer API on the peer server, each
// handler behind the edge that turns domain errors into JSON-RPC errors.
func (c *Core) registerPeerHandlers(s *rpc.Server) {
	for method, h := range c.peerRoutes() {
		s.Handle(method, peerEdge(h))
	}
}

// checkFrom refuses a request whose `from` is not the authenticated caller:
// an impersonation attempt, audited as such.
func (c *Core) checkFrom(ctx context.Context, call *rpc.Call, from, to string) error {
	caller := call.Caller
	if caller.AgentID == "" || from != caller.AgentID {
		who := caller.AgentID
		if who == "" {
			who = caller.Key()
		}
		c.auditRefusal(ctx, call, "impersonation", map[string]any{"claimed": from, "authenticated_as": who})
		return errs.Denied(
			fmt.Sprintf("request says it is from %q but the connection is authenticated as %q; an agent may only speak for itself", from, who),
			map[string]any{"claimed_from": from})
	}
	if to != "" && to != c.selfID() {
		return errs.UnknownPeer(to, fmt.Sprintf("no agent %q is registered here", to))
	}
	return nil
}

// auditRefusal writes a refused call's audit row and marks the call audited.
func (c *Core) auditRefusal(ctx context.Context, call *rpc.Call, kind string, detail map[string]any) {
	detail["refused"] = kind
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit(callerName(call.Caller), call.Method, "PERMISSION_DENIED", detail)
		return err
	})
	if err != nil {
		c.log.Error("audit refusal", "component", "audit", "err", err)
		return
	}
	call.MarkAudited()
}

func callerName(c rpc.Caller) string {
	if c.AgentID != "" {
		return c.AgentID
	}
	return c.Key()
}
