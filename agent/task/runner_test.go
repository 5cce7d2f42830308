package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func fastRunner(n int) *Runner {
	return NewRunner(n, RunnerOptions{KillGrace: 300 * time.Millisecond, HeartbeatEvery: 50 * time.Millisecond, IODelay: 200 * time.Millisecond})
}

func TestRunnerExitCodeAndOutput(t *testing.T) {
	r := fastRunner(2)
	out := filepath.Join(t.TempDir(), "out.log")
	res := r.Run(context.Background(), Job{ID: "a", Argv: []string{"sh", "-c", "echo hello; echo oops >&2; exit 3"}, OutputPath: out})
	if res.Err != nil || res.ExitCode != 3 {
		t.Fatalf("result = %+v, want exit 3 and no error", res)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "hello\noops\n" || res.OutputTail != "hello\noops\n" {
		t.Fatalf("output file %q, tail %q", data, res.OutputTail)
	}
}

func TestRunnerNeverUsesAShell(t *testing.T) {
	res := fastRunner(1).Run(context.Background(), Job{ID: "a", Argv: []string{"echo", "$(id); touch x"}, Dir: t.TempDir()})
	if res.Err != nil || strings.TrimSpace(res.OutputTail) != "$(id); touch x" {
		t.Fatalf("argv was interpreted: %+v", res)
	}
}

func TestRunnerStartFailure(t *testing.T) {
	res := fastRunner(1).Run(context.Background(), Job{ID: "a", Argv: []string{"/nonexistent/aoi-no-such-binary"}})
	if res.Err == nil || res.ExitCode != -1 {
		t.Fatalf("result = %+v, want a start error", res)
	}
	if res := fastRunner(1).Run(context.Background(), Job{ID: "b"}); res.Err == nil {
		t.Fatal("an empty argv must be refused")
	}
}

func TestRunnerDefaultEnvDropsSecrets(t *testing.T) {
	t.Setenv("AOI_TEST_SECRET", "hunter2")
	res := fastRunner(1).Run(context.Background(), Job{ID: "a", Argv: []string{"sh", "-c", "echo ${AOI_TEST_SECRET:-unset}; echo $PATH"}})
	lines := strings.Split(strings.TrimSpace(res.OutputTail), "\n")
	if res.Err != nil || lines[0] != "unset" || lines[1] == "" {
		t.Fatalf("env leaked or PATH missing: %+v", res)
	}
}

func TestRunnerHeartbeat(t *testing.T) {
	var beats atomic.Int32
	res := fastRunner(1).Run(context.Background(), Job{ID: "a", Argv: []string{"sleep", "0.4"},
		Heartbeat: func(time.Time) { beats.Add(1) }})
	if res.Err != nil || beats.Load() < 3 {
		t.Fatalf("beats = %d, result %+v; want >= 3 heartbeats in 0.4s at 50ms", beats.Load(), res)
	}
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the ")" closing the command name.
	i := strings.LastIndexByte(string(stat), ')')
	return i < 0 || !strings.HasPrefix(string(stat[i+1:]), " Z")
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still alive after its task ended", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startGrandchild runs a shell that backgrounds a sleep (the grandchild),
// writes its pid to a file and waits; it returns the pid once written.
func startGrandchild(t *testing.T, r *Runner, id, script string, timeout time.Duration) (int, <-chan Result) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	done := make(chan Result, 1)
	go func() {
		done <- r.Run(context.Background(), Job{ID: id, Timeout: timeout,
			Argv: []string{"sh", "-c", script + "sleep 30 & echo $! > \"$1\"; wait", "sh", pidFile}})
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(pidFile)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			if !alive(pid) {
				t.Fatalf("grandchild %d died early", pid)
			}
			return pid, done
		}
		if time.Now().After(deadline) {
			t.Fatal("the task never started its grandchild")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestRunnerCancelKillsProcessGroup(t *testing.T) {
	r := fastRunner(1)
	pid, done := startGrandchild(t, r, "job", "", 0)
	if !r.Cancel("job") {
		t.Fatal("Cancel did not find the running job")
	}
	select {
	case res := <-done:
		if !res.Canceled || !errors.Is(res.Err, ErrCanceled) || res.ExitCode != -1 {
			t.Fatalf("result = %+v, want canceled", res)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after Cancel")
	}
	waitGone(t, pid)
	if r.Cancel("job") {
		t.Fatal("a finished job must be forgotten")
	}
}

// A cancel that comes before Run has registered its job finds nothing to
// stop: the job then ran to its end (an engine test saw a 60 s task run
// through its cancel). Run asks the job's Canceled once it is registered,
// and does not start a canceled one.
func TestRunnerDoesNotStartAJobCanceledBeforeItRegistered(t *testing.T) {
	r := fastRunner(1)
	marker := filepath.Join(t.TempDir(), "ran")
	if r.Cancel("early") {
		t.Fatal("Cancel found a job that was never started")
	}
	res := r.Run(context.Background(), Job{ID: "early", Argv: []string{"touch", marker}, Timeout: 30 * time.Second,
		Canceled: func() bool { return true }})
	if !res.Canceled || !errors.Is(res.Err, ErrCanceled) {
		t.Fatalf("result = %+v, want canceled", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the canceled job's command ran")
	}
	res = r.Run(context.Background(), Job{ID: "early", Argv: []string{"touch", marker}, Timeout: 30 * time.Second,
		Canceled: func() bool { return false }})
	if res.Canceled || res.ExitCode != 0 {
		t.Fatalf("a job not canceled: %+v, want it run", res)
	}
}

func TestRunnerCancelEscalatesToSIGKILL(t *testing.T) {
	r := fastRunner(1)
	pid, done := startGrandchild(t, r, "stubborn", "trap '' TERM; ", 0)
	start := time.Now()
	r.Cancel("stubborn")
	res := <-done
	if !res.Canceled || time.Since(start) < 250*time.Millisecond {
		t.Fatalf("result = %+v after %s; want canceled only after the grace period", res, time.Since(start))
	}
	waitGone(t, pid)
}

func TestRunnerTimeout(t *testing.T) {
	r := fastRunner(1)
	pid, done := startGrandchild(t, r, "slow", "", 300*time.Millisecond)
	res := <-done
	if !res.TimedOut || res.Err == nil || res.ExitCode != -1 || res.Duration > 3*time.Second {
		t.Fatalf("result = %+v, want a timeout around 300ms", res)
	}
	if !strings.Contains(res.Err.Error(), "timeout_sec") {
		t.Fatalf("timeout error %q should say how to fix it", res.Err)
	}
	waitGone(t, pid)
}

func TestRunnerContextCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res := fastRunner(1).Run(ctx, Job{ID: "a", Argv: []string{"sleep", "30"}})
	if !res.Canceled || res.Duration > 3*time.Second {
		t.Fatalf("result = %+v, want canceled by the context", res)
	}
}

func TestRunnerOutputCap(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.log")
	r := NewRunner(1, RunnerOptions{TailBytes: 64})
	res := r.Run(context.Background(), Job{ID: "a", Argv: []string{"seq", "1", "50000"}, OutputPath: out, MaxOutputBytes: 4096})
	if res.Err != nil || res.ExitCode != 0 {
		t.Fatalf("result = %+v", res)
	}
	data, _ := os.ReadFile(out)
	if len(data) > 4096+100 || !strings.Contains(string(data), "output truncated after 4096 bytes") {
		t.Fatalf("output file is %d bytes, want ≤ cap + marker, ending with the marker", len(data))
	}
	if !res.OutputTruncated || res.OutputBytes != 288894 {
		t.Fatalf("truncated=%v bytes=%d; want true and the full 288894 bytes counted", res.OutputTruncated, res.OutputBytes)
	}
	if len(res.OutputTail) != 64 || !strings.HasSuffix(res.OutputTail, "49999\n50000\n") {
		t.Fatalf("tail %q must be the last 64 bytes", res.OutputTail)
	}
}

func TestRunnerConcurrencyLimit(t *testing.T) {
	const limit, jobs = 3, 20
	r := fastRunner(limit)
	dir := t.TempDir()
	var wg sync.WaitGroup
	results := make([]Result, jobs)
	for i := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each job marks itself present, counts who else is, then leaves.
			script := `mkdir "$1/$2"; ls "$1" | wc -l; sleep 0.15; rmdir "$1/$2"`
			results[i] = r.Run(context.Background(), Job{ID: fmt.Sprint("j", i), Argv: []string{"sh", "-c", script, "sh", dir, fmt.Sprint(i)}})
		}()
	}
	wg.Wait()
	maxSeen := 0
	for i, res := range results {
		n, err := strconv.Atoi(strings.TrimSpace(res.OutputTail))
		if res.Err != nil || res.ExitCode != 0 || err != nil {
			t.Fatalf("job %d: %+v", i, res)
		}
		maxSeen = max(maxSeen, n)
	}
	if maxSeen > limit || maxSeen < 2 {
		t.Fatalf("max jobs running together = %d, want 2..%d", maxSeen, limit)
	}
	t.Logf("max concurrently running: %d (limit %d)", maxSeen, limit)
}

func TestRunnerCancelWhileQueued(t *testing.T) {
	r := fastRunner(1)
	_, first := startGrandchild(t, r, "first", "", 0)
	queued := make(chan Result, 1)
	go func() { queued <- r.Run(context.Background(), Job{ID: "second", Argv: []string{"true"}}) }()
	deadline := time.Now().Add(2 * time.Second)
	for !r.Cancel("second") {
		if time.Now().After(deadline) {
			t.Fatal("queued job never registered")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if res := <-queued; !res.Canceled || res.Duration != 0 {
		t.Fatalf("queued job result %+v, want canceled before it ran", res)
	}
	if r.Run(context.Background(), Job{ID: "first", Argv: []string{"true"}}).Err == nil {
		t.Fatal("a duplicate job id must be refused")
	}
	r.Cancel("first")
	<-first
}
