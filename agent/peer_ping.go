package agent

import (
	"context"

	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
)

// handlePing is the heartbeat: it marks the caller online.
func (c *Core) handlePing(ctx context.Context, call *rpc.Call) (any, error) {
	var p wire.PingParams
	if err := call.Bind(&p); err != nil {
		return nil, err
	}
	if err := c.checkFrom(ctx, call, p.From, ""); err != nil {
		return nil, err
	}
	if err := peers.CheckVersion(p.AOIVersion); err != nil {
		return nil, err
	}
	if err := c.peers.MarkSeen(ctx, p.From); err != nil {
		return nil, err
	}
	return wire.PingResult{AgentID: c.selfID(), Status: c.selfEntry().Status, AOIVersion: wire.ProtocolVersion, Time: c.now()}, nil
}
