package task

import (
	"os"
	"sync/atomic"
)

// A task's command may leave processes that escape both of the runner's
// nets: a new session (setsid) leaves its process group, and `env -i`
// drops the AOI_TASK_ID that killLeftovers looks for. On Linux the runner
// therefore starts each command under a reaper: this same binary,
// re-executed, marked a child subreaper (PR_SET_CHILD_SUBREAPER) so every
// orphan among the command's descendants becomes its child instead of
// init's, whatever session or environment it took. When the command has
// ended, the reaper kills its descendants, generation by generation, until
// none is left, and exits with the command's status.

// reaperEnv marks a process started to be a task's reaper. Its value is
// unlikely to be set by accident.
const (
	reaperEnv   = "AOI_TASK_REAPER"
	reaperValue = "pgid-on-fd3"
)

// TaskServerMark is set in the environment of the processes aoi starts to
// serve peers' tasks outside the runner: the work AI's stdio MCP server,
// whose tools mcp_tool tasks call with a peer's parameters. It runs as the
// owner, unconfined and under no reaper, so StartedByTask finds it (and
// everything it starts that keeps it in its ancestry or its environment)
// by this mark, and the control socket refuses them as a task's command.
const TaskServerMark = taskServerEnv + "=" + taskServerValue

const (
	taskServerEnv   = "AOI_TASK_SERVER"
	taskServerValue = "serves-peers-tasks"
)

// reaperEndLine is what a reaper writes on fd 3, after the command's
// group id, once it has swept what the command left.
const reaperEndLine = "swept"

// reaperReady is set once this binary has called ReapIfAsked: only then
// can a runner re-execute it as a reaper (a binary that never looks at
// reaperEnv would just run again).
var reaperReady atomic.Bool

// ReapIfAsked must be called first in main (and in a TestMain of tests
// that run tasks): a process started as a task's reaper runs as one and
// exits here; any other marks the binary able to serve as one, so the
// Runners it makes use it.
//
// It also serves as a task's Go cache program (see gocache.go) and as the
// step that confines a task's command (see landlock.go) when started as
// one.
func ReapIfAsked() {
	serveGoCacheIfAsked()
	confineIfAsked()
	if os.Getenv(reaperEnv) == reaperValue {
		os.Exit(reaperMain(os.Args[1:]))
	}
	reaperReady.Store(reaperSupported)
}
