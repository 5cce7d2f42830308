package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/aoi-protocol/aoi/agent"
)

// Signals are owned here and nowhere else (tui.Run installs no handler):
//   - SIGINT and SIGTERM end every command through its context; a second
//     one ends the process at once, in case a shutdown is stuck.
//   - SIGHUP ends the interface cleanly (its terminal is gone) and makes
//     `aoi serve` reload its config. Other commands keep the default: die.

// signalContext is main's context: cancelled by the first SIGINT or
// SIGTERM, after which the default action (exit) is restored.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal kills: a hung shutdown is never a trap
	}()
	return ctx, stop
}

// endOnHangup returns ctx, also cancelled when the terminal hangs up.
func endOnHangup(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, syscall.SIGHUP)
}

// reloadOnHangup catches SIGHUP for `aoi serve` from now on and, until ctx
// ends, reloads the core's config on each one (the core's OnReload says
// what happened). The returned stop releases the handler.
func reloadOnHangup(ctx context.Context) (start func(svc agent.AdminService), stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(ctx)
	start = func(svc agent.AdminService) {
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-hup:
					_, _ = svc.Reload(ctx) // the core's OnReload reports the outcome
				}
			}
		}()
	}
	stop = func() {
		signal.Stop(hup)
		cancel()
	}
	return start, stop
}
