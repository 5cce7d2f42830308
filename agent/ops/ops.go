// Package ops is running aoi for real: retention (Prune, automatic daily
// pruning) and personal data (Export and Forget of one agent's records).
// Like agent/task's Engine it takes its dependencies as fields and holds
// no pointer back to the core.
package ops

import (
	"log/slog"
	"time"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/store"
)

// Ops holds what retention and personal-data requests need.
type Ops struct {
	DB  *store.DB
	Log *slog.Logger
	Now func() time.Time
	// Clock is what AutoPrune waits on (nil: the wall clock).
	Clock      backoff.Clock
	Config     func() *config.Config // the current config (reloads apply)
	DataDir    string                // tasks/<id> output directories live under it
	ConfigPath string                // named in Forget's warnings
	Self       func() string         // this agent's id
	// Forgotten drops what the core caches about a forgotten agent
	// (authenticated callers, peer clients), before the database is
	// compacted.
	Forgotten func(agentID string)
	// Publish emits a front-end event (agent/events kinds).
	Publish func(kind, id, agent, summary string)
}
