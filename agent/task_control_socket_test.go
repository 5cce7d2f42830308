package agent_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/config"
)

// ctlFromTaskScript finds aoi's control socket above the task's home (in
// the data dir, as an attacker would: its default place is no secret)
// and calls ctl.status through it from a new session with an empty
// environment, writing the HTTP response to $1.
const ctlFromTaskScript = `out="$1"
d="$HOME"; while [ "$d" != / ] && [ ! -S "$d/aoi.sock" ]; do d=$(dirname "$d"); done
[ -S "$d/aoi.sock" ] || { echo "no socket found" > "$out"; exit 0; }
# Out of its group and session, and without AOI_TASK_ID, as an escapee.
env -i $(command -v setsid) /usr/bin/python3 - "$d/aoi.sock" "$out" <<'PY'
` + ctlStatusPy + `PY
`

// ctlStatusPy sends ctl.status to the control socket at argv[1] and
// writes the HTTP response (or why it could not connect) to argv[2].
const ctlStatusPy = `import socket, sys
body = b'{"jsonrpc":"2.0","id":1,"method":"ctl.status","params":{}}'
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
try:
    s.connect(sys.argv[1])
    s.sendall(b"POST /aoi/v1/rpc HTTP/1.1\r\nHost: aoi\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    got = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
except OSError as e:
    got = ("connect failed: %s" % e).encode()
open(sys.argv[2], "wb").write(got)
`

// A task's command runs as the owner, and Landlock (before ABI 9) does
// not refuse connecting to a named unix socket: the attack pass's task
// found aoi.sock in the data dir and called the control API through it,
// which serves the owner's user, so a peer's test script could approve
// its own pending tasks, trust a peer or read the owner's messages. The
// control socket now refuses a process started under a task's reaper
// (every process of a task, however it left its group or environment),
// confined or not; the owner's own CLI still gets in.
func TestTaskCannotUseTheControlSocket(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3 to speak to the socket from a task")
	}
	for name, unconfined := range map[string]bool{"confined": false, "unconfined": true} {
		t.Run(name, func(t *testing.T) {
			eng, done, seen := runScriptTask(t, ctlFromTaskScript, func(tt *config.TaskType) {
				tt.Unconfined = unconfined
			})
			if done.State != agent.TaskCompleted {
				t.Fatalf("task %s %q; want completed", done.State, done.Error)
			}
			if strings.Contains(seen, `"result"`) || !strings.Contains(seen, "a task's command") {
				t.Fatalf("the task's ctl.status through the control socket got:\n%s\nwant it refused as a task's", seen)
			}
			c, err := ctlclient.Dial(eng.Dir)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Status(context.Background()); err != nil {
				t.Fatalf("the owner's own control call: %v", err)
			}
		})
	}
}
