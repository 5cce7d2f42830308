package peerapi

import (
	"context"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
)

// handlePing is the heartbeat: it marks the caller online.
func (a *API) handlePing(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.PingParams
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := a.CheckFrom(ctx, call, p.From, ""); err != nil {
		return nil, err
	}
	if err := peers.CheckVersion(p.AOIVersion); err != nil {
		return nil, err
	}
	if err := a.Peers.MarkSeen(ctx, p.From); err != nil {
		return nil, err
	}
	return wire.PingResult{AgentID: a.Config().Agent.ID, Status: a.Self(acl.Subject{}).Status, AOIVersion: wire.ProtocolVersion, Time: a.Now()}, nil
}
