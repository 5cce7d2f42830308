package agent

import (
	"context"
	"errors"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/rpc"
)

// peerEdge runs a peer handler and maps its domain errors to JSON-RPC.
func peerEdge(h rpc.Handler) rpc.Handler {
	return func(ctx context.Context, call *rpc.Call) (any, error) {
		res, err := h(ctx, call)
		if err != nil {
			return nil, toPeerRPC(err)
		}
		return res, nil
	}
}

// toPeerRPC is the one place a domain error becomes the JSON-RPC error a
// peer sees (design §3): denied → PERMISSION_DENIED with the error's data,
// invalid and not found → INVALID_PARAMS, an agent that is not this one →
// AGENT_NOT_FOUND. An *rpc.Error passes as is; anything else stays an
// internal error whose text the server does not leak.
func toPeerRPC(err error) error {
	var re *rpc.Error
	if errors.As(err, &re) {
		return re
	}
	var de *errs.Error
	if !errors.As(err, &de) {
		return err
	}
	switch de.Kind {
	case errs.ErrDenied:
		return rpc.PermissionDenied(de.Msg, de.Data)
	case errs.ErrInvalid, errs.ErrNotFound, errs.ErrConflict:
		return rpc.InvalidParams("%s", de.Msg)
	case errs.ErrUnknownPeer:
		return rpc.AgentNotFound(errs.Agent(de))
	}
	return err
}

// authenticateEdge is the peer server's Authenticate hook: authenticate
// with its refusals mapped like a handler's.
func (c *Core) authenticateEdge(ctx context.Context, caller rpc.Caller) (rpc.Caller, error) {
	caller, err := c.peers.Authenticate(ctx, caller)
	if err != nil {
		return caller, toPeerRPC(err)
	}
	return caller, nil
}

// ProtocolErrorCode reports whether code is one of JSON-RPC's own (parse
// error … internal error), whose standard message is protocol words: a
// front end shows such an error's reason alone (rpc.ProtocolCode, for
// front ends that do not speak JSON-RPC themselves).
func ProtocolErrorCode(code int) bool { return rpc.ProtocolCode(code) }
