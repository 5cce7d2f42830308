package agent

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"

	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/rpc"
)

// taskCallerRefused says why a task's process may not use the control
// socket.
const taskCallerRefused = "a task's command may not use aoi's control socket: it runs as you, but for the peer that asked for it " +
	"(approvals, trust and your messages are yours to decide); run aoi's commands yourself"

// refusedTaskLog bounds the log lines about tasks refused on the control
// socket: a script calling in a loop must not fill aoi.log.
var refusedTaskLog = rate.Sometimes{First: 3, Interval: time.Minute}

// identifyLocal is the control socket's Identify: the owner's user
// (rpc.UnixIdentify), and not a process a task's command started. The
// socket serves the owner's user, and a task's command runs as the owner
// (Landlock before ABI 9 does not refuse connecting to a named socket):
// the attack pass's task found aoi.sock in the data dir and called the
// control API through it.
func (c *Core) identifyLocal(r *http.Request) (rpc.Caller, error) {
	caller, err := rpc.UnixIdentify(r)
	if err != nil {
		return caller, err
	}
	if pid, err := strconv.Atoi(strings.TrimPrefix(caller.Addr, "pid:")); err == nil && task.StartedByTask(pid) {
		refusedTaskLog.Do(func() {
			c.log.Warn("control socket: refused a task's process", "component", "control", "pid", pid)
		})
		return caller, rpc.PermissionDenied(taskCallerRefused, nil)
	}
	return caller, nil
}
