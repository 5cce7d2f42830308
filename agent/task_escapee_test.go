package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// A task's command that starts a process in a session of its own
// (setsid, as a daemonising test helper or a peer's ref does) left the
// task's process group: killing the group at the end missed it, and it
// ran on as the owner after the task had completed, timed out or been
// cancelled (the attack pass: a setsid'd sleep outlived its task). Every
// process still carrying the task's AOI_TASK_ID goes with the task.
func TestTaskProcessThatLeftItsGroupEndsWithTheTask(t *testing.T) {
	escapeeEndsWithItsTask(t, "setsid sh")
}

// One that also cleared its environment (`env -i`: no AOI_TASK_ID) got
// past both nets (the attack pass); the task's reaper, whose orphan it
// becomes, kills it when the command ends.
func TestTaskProcessThatLeftItsGroupAndEnvironmentEndsWithTheTask(t *testing.T) {
	escapeeEndsWithItsTask(t, "setsid env -i /bin/sh")
}

// escapeeEndsWithItsTask runs a task whose command starts a sleep through
// escape (a shell run by way of an escape; `-c` follows) and checks the sleep is gone once the task
// completed.
func escapeeEndsWithItsTask(t *testing.T, escape string) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	pidFile := filepath.Join(t.TempDir(), "escapee.pid")
	repo := gitRepo(t)
	// The daemon writes its own pid: setsid may fork before it execs.
	script := escape + " -c 'echo $$ > " + pidFile + ".tmp; mv " + pidFile + ".tmp " + pidFile + "; exec sleep 120' </dev/null >/dev/null 2>&1 &\n" +
		"while [ ! -s " + pidFile + " ]; do sleep 0.05; done\necho started\n"
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{"serve": {
			Command: []string{"sh", "-c", script}, Context: "acme/webapp",
			Isolation: "worktree", TimeoutSec: 30, Approval: config.Approval{Required: false},
			Writable: []string{filepath.Dir(pidFile)},
		}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	if _, err := pm.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "serve"})
	if err != nil {
		t.Fatal(err)
	}
	msg := waitMessage(t, pm, ticket.RequestID)
	if msg.Event != wire.EventTaskCompleted {
		t.Fatalf("notify %s %s, want task.completed", msg.Event, msg.Data)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the task did not start its process: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		t.Fatalf("pid file %q", raw)
	}
	t.Cleanup(func() { _ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run() })
	deadline := time.Now().Add(3 * time.Second)
	for processRuns(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d, started by task %s in a session of its own, still runs after the task completed", pid, ticket.TaskID)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// processRuns reports whether pid is a live process (a zombie is not:
// it waits only for its parent to read its status).
func processRuns(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}
