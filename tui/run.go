package tui

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/themes"
)

// Run shows the interface on the terminal until the owner quits or ctx ends,
// and returns after the terminal is restored. A cancelled ctx is not an
// error. Run installs no signal handler: end ctx to stop it.
func Run(ctx context.Context, svc Service, opts Options) error {
	if opts.Palette == nil && !opts.NoColor {
		if _, err := themes.Pick(opts.Theme, true); err != nil {
			return err
		}
	}
	if opts.KeyMap != nil {
		if err := opts.KeyMap.Validate(); err != nil {
			return err
		}
	}
	m := New(svc, opts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // stops the event subscription
	m.ctx = ctx
	// The caller owns the process's signals (cmd/aoi ends ctx on SIGINT,
	// SIGTERM and SIGHUP). Bubble Tea's own handler would race it for the
	// same signals and can block forever sending to a stopped event loop.
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithoutSignalHandler())
	_, err := p.Run()
	if err != nil && errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// WithContext sets the context the model's service calls and event
// subscription run under; use it when driving the model without Run.
func (m *Model) WithContext(ctx context.Context) *Model {
	m.ctx = ctx
	return m
}
