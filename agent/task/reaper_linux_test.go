package task

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// The attack the reaper alone left open: the command kills its reaper
// (`kill -9 $PPID`, it runs as the same user), then leaves a process in a
// session of its own with an empty environment (no process group, no
// AOI_TASK_ID) and exits. Its orphans come to aoi (a child subreaper while
// reaped commands run), which sees the reaper did not say it swept, kills
// them, and fails the task saying so. Nothing of the task may survive its
// end: not the escapee, not the command.
func TestTaskThatKillsItsReaperLeavesNothingRunning(t *testing.T) {
	if !reaperReady.Load() {
		t.Fatal("this test binary's TestMain calls ReapIfAsked; the reaper must be ready on Linux")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "escapee.pid")
	cmdPidFile := filepath.Join(dir, "command.pid")
	// The command says its own pid, kills its reaper, waits until that is
	// gone (its parent changes), starts the escapee, and ends when the
	// escapee said its pid; a second variant keeps the command running.
	script := `echo $$ > "$2"
reaper=$PPID
kill -9 $reaper
while [ "$(cut -d' ' -f4 /proc/$$/stat)" = "$reaper" ]; do sleep 0.01; done
` + escapeeScript + `$3
`
	for _, tail := range []string{"exit 0", "exec sleep 120"} {
		_ = os.Remove(pidFile)
		r := fastRunner(1)
		res := r.Run(context.Background(), Job{ID: "kill-reaper", Timeout: time.Minute,
			Argv: []string{"sh", "-c", script, "sh", pidFile, cmdPidFile, tail}, Env: taskEnv("kill-reaper", "")})
		pids := map[string]string{"the escapee": pidFile, "the command": cmdPidFile}
		for name, file := range pids {
			raw, err := os.ReadFile(file)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
			if err != nil || pid <= 0 {
				t.Fatalf("%s: %s wrote no pid (%v, %q): %+v", tail, name, err, raw, res)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			waitGone(t, pid)
		}
		if !res.ReaperKilled || res.Err == nil || !strings.Contains(res.Err.Error(), "reaper was killed") {
			t.Errorf("%s: result = %+v; want the task failed for killing its reaper", tail, res)
		}
		if len(res.Swept) == 0 {
			t.Errorf("%s: the runner swept nothing; the escapee went by some other net", tail)
		}
	}
}

// A command that stops its reaper (SIGSTOP) instead of killing it: the
// reaper never ends, so neither did the runner's wait, and a timeout or a
// cancel hung with it (killing the command's group leaves the reaper,
// which has a group of its own); later the task lasted until its timeout.
// The runner now finds the reaper stopped while the command runs, kills
// it with the command's group at once and sweeps what the command left,
// failing the task for it, long before the timeout (the escapee keeps
// stopping it in one case). (Stopped before it could say which group the
// command runs in, the reaper's own group is all the runner knows: it is
// killed, and the runner sweeps what the command left.)
func TestTaskThatStopsItsReaperStillEnds(t *testing.T) {
	// The second escapee stops the reaper again and again, from a session
	// of its own (for some seconds, should the test die): the reaper may
	// sweep between two stops, or be killed.
	stopper := `setsid env -i /bin/sh -c 'echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; i=0; while [ $i -lt 1000 ]; do kill -STOP '$PPID'; sleep 0.005; i=$((i+1)); done' "$1" </dev/null >/dev/null 2>&1 &
while [ ! -s "$1" ]; do sleep 0.02; done
`
	for name, escapee := range map[string]string{"stopped once": escapeeScript, "stopped again and again": stopper} {
		pidFile := filepath.Join(t.TempDir(), "escapee.pid")
		script := "kill -STOP $PPID\n" + escapee + "trap '' TERM; sleep 120\n"
		done := make(chan Result, 1)
		go func() {
			done <- fastRunner(1).Run(context.Background(), Job{ID: "stop-reaper", Timeout: time.Minute,
				Argv: []string{"sh", "-c", script, "sh", pidFile}, Env: taskEnv("stop-reaper", "")})
		}()
		var res Result
		select {
		case res = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the task whose command stopped its reaper did not end (its timeout is a minute)", name)
		}
		if !res.ReaperStopped || !res.ReaperKilled || res.TimedOut || res.Err == nil || !strings.Contains(res.Err.Error(), "reaper was stopped") {
			t.Errorf("%s: result = %+v; want failed at once for stopping its reaper", name, res)
		}
		raw, _ := os.ReadFile(pidFile)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
		if pid <= 0 {
			t.Fatalf("%s: the command started no escapee (%q): %+v", name, raw, res)
		}
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		waitGone(t, pid)
	}
}

// The runner's sweep after a killed reaper takes aoi's children of other
// sessions for the task's: a child aoi started before the task that took
// a session of its own (an MCP server calling setsid) is none of the
// task's. It is neither killed nor reaped: its own Wait still reads how it
// ended, even when it ended, unwaited, while the task ran.
func TestSweepAfterAKilledReaperLeavesOlderChildrenAlone(t *testing.T) {
	older := exec.Command("sleep", "60")
	older.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := older.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = older.Process.Kill() })
	time.Sleep(1100 * time.Millisecond) // start times count in 10 ms ticks, and the window a second early
	dir := t.TempDir()
	pidFile, goFile := filepath.Join(dir, "escapee.pid"), filepath.Join(dir, "go")
	script := `kill -9 $PPID
` + escapeeScript + `while [ ! -e "$2" ]; do sleep 0.02; done
`
	done := make(chan Result, 1)
	go func() {
		done <- fastRunner(1).Run(context.Background(), Job{ID: "older", Timeout: time.Minute,
			Argv: []string{"sh", "-c", script, "sh", pidFile, goFile}, Env: taskEnv("older", "")})
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if raw, _ := os.ReadFile(pidFile); len(strings.TrimSpace(string(raw))) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the task started no escapee")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The older child ends while the task runs, and nobody waits for it yet.
	if err := older.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var res Result
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the task did not end")
	}
	raw, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	waitGone(t, pid)
	if !res.ReaperKilled || slices.Contains(res.Swept, older.Process.Pid) {
		t.Errorf("result = %+v; want the reaper killed and the sweep without the older child %d", res, older.Process.Pid)
	}
	err := older.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the older child's Wait: %v; want it killed by SIGKILL, as it was (not reaped by the sweep)", err)
	}
}
