package agent_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
)

// A command that stops its reaper (kill -STOP $PPID) kept the task, and
// what it left running in a session of its own, alive until the task's
// timeout: the stopped reaper never ended, so the runner's wait did not
// either, and only the timeout's kill (after its grace) woke it. The
// runner now looks at the reaper's state while the task runs and ends
// the task as soon as it finds it stopped, failing it for that, with what
// the command left killed; a command that stops its reaper and exits at
// once is ended the same way.
func TestTaskThatStopsItsReaperEndsAtOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the reaper is Linux only")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	escapee := `setsid env -i /bin/sh -c 'echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 120' "$1" </dev/null >/dev/null 2>&1 &
while [ ! -s "$1" ]; do sleep 0.02; done
`
	for name, script := range map[string]string{
		"stops it and runs on": "kill -STOP $PPID\n" + escapee + "sleep 120\n",
		"stops it and exits":   escapee + "kill -STOP $PPID\nexit 0\n",
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			// Unconfined: a confined command cannot signal its reaper at
			// all (TestConfinedTaskCannotSignalOutOfItsDomain); this is
			// what a task type the owner leaves unconfined still has.
			eng, done, pidText := runScriptTask(t, script, func(tt *config.TaskType) { tt.TimeoutSec, tt.Unconfined = 60, true })
			took := time.Since(start)
			pid, _ := strconv.Atoi(strings.TrimSpace(pidText))
			if pid <= 0 {
				t.Fatalf("the command started no escapee (%q); task %s %q", pidText, done.State, done.Error)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			if done.State != agent.TaskFailed || !strings.Contains(done.Error, "reaper was stopped") {
				t.Errorf("task %s %q; want failed for stopping its reaper", done.State, done.Error)
			}
			if took > 15*time.Second {
				t.Errorf("the task took %s to end after stopping its reaper (timeout 60 s); want it ended at once", took)
			}
			if processRuns(pid) {
				t.Errorf("process %d, left by the command that stopped its reaper, still runs after the task ended", pid)
			}
			if _, err := os.Stat(filepath.Join(eng.Dir, "tasks", done.ID, "home")); !os.IsNotExist(err) {
				t.Errorf("the task's scratch home is still there (%v)", err)
			}
		})
	}
}
