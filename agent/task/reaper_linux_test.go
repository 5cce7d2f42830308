package task

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// escapeeScript starts a process that leaves both of the runner's nets
// (setsid: a session and group of its own; env -i: no AOI_TASK_ID), writes
// its pid to $1 and waits until that is written; then it runs tail.
const escapeeScript = `setsid env -i /bin/sh -c 'echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 120' "$1" </dev/null >/dev/null 2>&1 &
while [ ! -s "$1" ]; do sleep 0.02; done
`

// runEscapee runs escapeeScript then tail under r and returns the result
// and the escaped process's pid (killed at cleanup in any case).
func runEscapee(t *testing.T, r *Runner, tail string, timeout time.Duration) (Result, int) {
	t.Helper()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	pidFile := filepath.Join(t.TempDir(), "escapee.pid")
	res := r.Run(context.Background(), Job{ID: "escape", Timeout: timeout,
		Argv: []string{"sh", "-c", escapeeScript + tail, "sh", pidFile}, Env: taskEnv("escape", "")})
	raw, err := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil || pid <= 0 {
		t.Fatalf("the task did not start its escapee (%v, %q): %+v", err, raw, res)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return res, pid
}

// A process that took a session of its own and cleared its environment
// outlived its task (the attack pass: neither the process group kill nor
// the AOI_TASK_ID sweep reaches it). Under the reaper it is an orphan of
// the reaper's, and goes when the command ends: on completion, and on a
// timeout whose command ignores SIGTERM.
func TestReaperKillsWhatLeftTheGroupAndTheEnvironment(t *testing.T) {
	if !reaperReady.Load() {
		t.Skip("no reaper here")
	}
	r := fastRunner(1)
	res, pid := runEscapee(t, r, "echo done; exit 3\n", 0)
	if res.Err != nil || res.ExitCode != 3 || !strings.Contains(res.OutputTail, "done") {
		t.Fatalf("result = %+v; want exit 3 with the command's output", res)
	}
	waitGone(t, pid)

	res, pid = runEscapee(t, r, "trap '' TERM; sleep 60\n", 300*time.Millisecond)
	if !res.TimedOut {
		t.Fatalf("result = %+v; want timed out", res)
	}
	waitGone(t, pid)

	res = r.Run(context.Background(), Job{ID: "killed", Argv: []string{"sh", "-c", "kill -9 $$"}})
	if res.Err != nil || res.ExitCode != -1 {
		t.Fatalf("a command killed by a signal: %+v; want exit -1 as without a reaper", res)
	}
}

// Without the reaper the escapee survives its task: what the test above
// relies on the reaper for.
func TestWithoutReaperTheEscapeeOutlivesItsTask(t *testing.T) {
	r := NewRunner(1, RunnerOptions{KillGrace: 300 * time.Millisecond, NoReaper: true})
	_, pid := runEscapee(t, r, "exit 0\n", 0)
	time.Sleep(200 * time.Millisecond)
	if !alive(pid) {
		t.Fatal("the escapee died without the reaper; the reaper test proves nothing")
	}
}
