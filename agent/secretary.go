package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// errNoMirror is returned until the context mirror is wired in.
var errNoMirror = errors.New("the context mirror is not enabled in this build")

// openSecretary starts the context mirror when the config enables it.
func (c *Core) openSecretary(ctx context.Context, cfg *config.Config) error { return nil }

// secretaryDecide asks the secretary for an answer and an interrupt
// decision; ok is false when there is no secretary.
func (c *Core) secretaryDecide(ctx context.Context, caller rpc.Caller, p wire.QueryParams) (handling, bool) {
	return handling{}, false
}

// redactOut removes secrets from text that leaves the machine.
func (c *Core) redactOut(s string) string { return s }

// Note records an owner note in the context mirror.
func (c *Core) Note(ctx context.Context, text string) error { return errNoMirror }

// ReportEvent records a coding-assistant event in the context mirror.
func (c *Core) ReportEvent(ctx context.Context, ev ReportedEvent) error { return errNoMirror }

// Snapshot returns the current context snapshot.
func (c *Core) Snapshot(ctx context.Context) (json.RawMessage, error) { return nil, errNoMirror }
