package agent

import (
	"context"

	"github.com/aoi-protocol/aoi/config"
)

// extensions are the optional engines the core drives: the secretary (context
// mirror and answers) and the task engine. Each is wired in its own file
// (secretary.go, tasks.go) through these hooks, so core.go stays small.
type extensions struct {
	starters []func(ctx context.Context)
	closers  []func()
	reloads  []func(*config.Config)
}

// openExtensions builds the engines the config enables.
func (c *Core) openExtensions(ctx context.Context, cfg *config.Config) error {
	for _, open := range []func(context.Context, *config.Config) error{c.openSecretary, c.openTasks} {
		if err := open(ctx, cfg); err != nil {
			return err
		}
	}
	return nil
}

func (e *extensions) onStart(f func(ctx context.Context)) { e.starters = append(e.starters, f) }
func (e *extensions) onClose(f func())                    { e.closers = append(e.closers, f) }
func (e *extensions) onReload(f func(cfg *config.Config)) { e.reloads = append(e.reloads, f) }

func (e *extensions) start(ctx context.Context, run func(func(context.Context))) {
	for _, f := range e.starters {
		run(f)
	}
}

func (e *extensions) close() {
	for _, f := range e.closers {
		f()
	}
}

func (e *extensions) reload(cfg *config.Config) {
	for _, f := range e.reloads {
		f(cfg)
	}
}
