// Command aoi is the Agent Operational Interconnect: a terminal secretary
// that answers colleagues' agents from its owner's work. See README.md.
package main

import (
	"os"

	"github.com/aoi-protocol/aoi/agent/task"
)

func main() {
	task.ReapIfAsked()           // a task's reaper runs as one and exits here
	spareProc()                  // procs.go
	ctx, stop := signalContext() // signals.go: the one place signals are handled
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
