package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/aoi-protocol/aoi/rpc"
)

// Control-socket methods for running aoi: retention, personal data and
// diagnostics. They are not part of Service (the TUI does not need them).
const (
	CtlPrune  = "ctl.prune"
	CtlExport = "ctl.export"
	CtlForget = "ctl.forget"
	CtlDoctor = "ctl.doctor"
)

// OpsService is what the ops control methods call; *Core implements it.
type OpsService interface {
	Prune(ctx context.Context, olderThan time.Duration) (PruneReport, error)
	Export(ctx context.Context, agentID string) (json.RawMessage, error)
	Forget(ctx context.Context, agentID string) (ForgetReport, error)
	Doctor(ctx context.Context) (DoctorReport, error)
}

var _ OpsService = (*Core)(nil)

type (
	// CtlPruneParams asks to prune records older than OlderThanSec seconds.
	CtlPruneParams struct {
		OlderThanSec int64 `json:"older_than_sec"`
	}
	// CtlAgentParams names the agent to export or forget.
	CtlAgentParams struct {
		AgentID string `json:"agent_id"`
	}
)

// registerOpsControl registers ctl.prune, ctl.export, ctl.forget and
// ctl.doctor on the control server.
func registerOpsControl(srv *rpc.Server, svc OpsService) {
	srv.Handle(CtlPrune, handle(func(ctx context.Context, p CtlPruneParams) (PruneReport, error) {
		return svc.Prune(ctx, time.Duration(p.OlderThanSec)*time.Second)
	}))
	srv.Handle(CtlExport, handle(func(ctx context.Context, p CtlAgentParams) (json.RawMessage, error) {
		return svc.Export(ctx, p.AgentID)
	}))
	srv.Handle(CtlForget, handle(func(ctx context.Context, p CtlAgentParams) (ForgetReport, error) {
		return svc.Forget(ctx, p.AgentID)
	}))
	srv.Handle(CtlDoctor, handleNone(svc.Doctor))
}
