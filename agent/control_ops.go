package agent

import (
	"context"
	"encoding/json"
	"time"

	"github.com/aoi-protocol/aoi/agent/control"
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

// OpsService is what the ops control methods call; *Core implements it in
// process and ctlclient.Client over the socket.
type OpsService interface {
	// Prune removes audit rows, context events, finished tasks and sent
	// messages older than req.OlderThan. Errors: ErrInvalid (not positive).
	Prune(ctx context.Context, req PruneRequest) (PruneReport, error)
	// Export returns, as JSON, every stored row that names the agent.
	// Errors: ErrInvalid (malformed id, aoi's own records).
	Export(ctx context.Context, req AgentRequest) (json.RawMessage, error)
	// Forget deletes everything stored about the agent, keeping the audit
	// chain verifiable. Errors: ErrInvalid (as Export, or this agent).
	Forget(ctx context.Context, req AgentRequest) (ForgetReport, error)
	// Doctor checks this agent's setup. Errors: none of the kinds.
	Doctor(ctx context.Context) (DoctorReport, error)
}

var _ OpsService = (*Core)(nil)

// PruneRequest asks to prune records older than OlderThan. On the control
// socket it is {"older_than_sec": N}, whole seconds.
type PruneRequest struct {
	OlderThan time.Duration
}

type pruneWire struct {
	OlderThanSec int64 `json:"older_than_sec"`
}

// MarshalJSON writes the ctl.prune params.
func (r PruneRequest) MarshalJSON() ([]byte, error) {
	return json.Marshal(pruneWire{OlderThanSec: int64(r.OlderThan / time.Second)})
}

// UnmarshalJSON reads the ctl.prune params.
func (r *PruneRequest) UnmarshalJSON(b []byte) error {
	var w pruneWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	r.OlderThan = time.Duration(w.OlderThanSec) * time.Second
	return nil
}

// AgentRequest names the agent to export or forget.
type AgentRequest struct {
	AgentID string `json:"agent_id"`
}

// registerOpsControl registers ctl.prune, ctl.export, ctl.forget and
// ctl.doctor on the control server, each straight to its OpsService method.
func registerOpsControl(srv *rpc.Server, svc OpsService) {
	srv.Handle(CtlPrune, control.Handle(svc.Prune))
	srv.Handle(CtlExport, control.Handle(svc.Export))
	srv.Handle(CtlForget, control.Handle(svc.Forget))
	srv.Handle(CtlDoctor, control.HandleNone(svc.Doctor))
}
