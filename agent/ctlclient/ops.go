package ctlclient

import (
	"context"
	"encoding/json"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

var _ agent.OpsService = (*Client)(nil)

// opsTimeout bounds the long maintenance calls (pruning or compacting a
// large database).
const opsTimeout = 30 * time.Minute

// Prune implements agent.OpsService.
func (c *Client) Prune(ctx context.Context, req agent.PruneRequest) (rep agent.PruneReport, err error) {
	err = c.call(ctx, opsTimeout, agent.CtlPrune, req, &rep)
	return rep, err
}

// Export implements agent.OpsService.
func (c *Client) Export(ctx context.Context, req agent.AgentRequest) (data json.RawMessage, err error) {
	err = c.call(ctx, opsTimeout, agent.CtlExport, req, &data)
	return data, err
}

// Forget implements agent.OpsService.
func (c *Client) Forget(ctx context.Context, req agent.AgentRequest) (rep agent.ForgetReport, err error) {
	err = c.call(ctx, opsTimeout, agent.CtlForget, req, &rep)
	return rep, err
}

// Doctor implements agent.OpsService.
func (c *Client) Doctor(ctx context.Context) (rep agent.DoctorReport, err error) {
	err = c.call(ctx, callTimeout, agent.CtlDoctor, nil, &rep)
	return rep, err
}
