package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/keymap"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/themes"
	"github.com/aoi-protocol/aoi/tui"
)

// runInterface is `aoi` with no command: attach the interface to the aoi
// already running for the data dir, or start the core in this process
// (creating an identity and config on first run) and show the interface.
func (a *app) runInterface(ctx context.Context) error {
	ctx, stop := endOnHangup(ctx) // the terminal is gone: shut down cleanly
	defer stop()
	dir := a.dataDir()
	if c, err := ctlclient.Dial(dir); err == nil {
		defer c.Close()
		err := answers(ctx, c)
		if err == nil {
			return a.runTUI(ctx, c, nil)
		}
		var gone *ctlclient.NoDaemonError
		if !errors.As(err, &gone) {
			sock := agent.SocketPath(dir)
			pid := rpc.SocketPID(sock)
			return fmt.Errorf("the aoi on %s (pid %s) accepts connections but did not answer within %v; it may be stuck shutting down: stop it (kill %s) and run aoi again",
				sock, pid, attachTimeout, pid)
		}
		// It was shutting down and is gone now: start our own core.
	}
	first, err := a.ensureInit(dir)
	if err != nil {
		return err
	}
	core, err := a.openCore(ctx, dir, serveFlags{})
	if err != nil {
		return err
	}
	defer core.Close()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() {
		err := core.Serve(ctx)
		cancel() // a core that stops (say, the port is taken) ends the interface
		served <- err
	}()
	tuiErr := a.runTUI(ctx, core, first)
	cancel()
	serveErr := <-served
	if errors.Is(serveErr, context.Canceled) {
		serveErr = nil
	}
	return errors.Join(serveErr, tuiErr)
}

// attachTimeout bounds the check that a running aoi answers before the
// interface attaches to it.
const attachTimeout = 5 * time.Second

// answers checks that the aoi behind c serves requests, not only accepts
// connections: one that is shutting down or wedged is not attached to.
func answers(ctx context.Context, c *ctlclient.Client) error {
	ctx, cancel := context.WithTimeout(ctx, attachTimeout)
	defer cancel()
	_, err := c.Status(ctx)
	return err
}

// runTUI shows the interface on svc until the owner quits or ctx ends;
// first, when set, opens it on the first-run dialog. svc is the core
// itself when it runs in this process: quitting then stops the agent.
func (a *app) runTUI(ctx context.Context, svc tui.Service, first *tui.FirstRun) error {
	opts, err := a.loadTUIOptions()
	if err != nil {
		return err
	}
	_, opts.StopsAgent = svc.(*agent.Core)
	opts.FirstRun = first
	opts.Reload = a.loadTUIOptions // a config reload re-reads theme and keys too
	return tui.Run(ctx, svc, opts)
}

// loadTUIOptions reads the interface's settings from the config.
func (a *app) loadTUIOptions() (tui.Options, error) {
	cfg, err := config.Load(a.corePath(a.dataDir()))
	if err != nil {
		return tui.Options{}, err
	}
	return tuiOptions(cfg.UI, os.Getenv)
}

// tuiOptions turns the config's ui section into interface options: key
// overrides, a built-in theme name or a theme file, bell, OSC 9, NO_COLOR.
func tuiOptions(ui config.UI, getenv func(string) string) (tui.Options, error) {
	km, err := keymap.Default().Apply(ui.Keys)
	if err != nil {
		return tui.Options{}, err
	}
	opts := tui.Options{KeyMap: &km, Theme: ui.Theme, Bell: ui.Bell, OSC9: ui.OSC9,
		NoColor: themes.NoColor(getenv), DarkBackground: true}
	if strings.HasSuffix(strings.ToLower(ui.Theme), ".json") {
		p, err := themes.LoadFile(ui.Theme)
		if err != nil {
			return tui.Options{}, fmt.Errorf("ui.theme: %w", err)
		}
		opts.Palette, opts.Theme = &p, ""
	}
	return opts, nil
}
