package task

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Where Landlock cannot scope signals (before ABI 6, or an unconfined
// type) a command can kill its reaper; what it left, in a session of its
// own and without the reaper's mark in its environment, is re-parented to
// aoi (a child subreaper while reaped commands run), and the walk up its
// ancestry ended at aoi: the control socket took its calls until the
// runner's sweep. Such an adopted process, aoi's child in another session,
// now counts as a task's; a child aoi started in its own session does not.
func TestAProcessAdoptedFromAKilledReaperIsStillATasks(t *testing.T) {
	if err := adoptOrphans(); err != nil {
		t.Fatalf("cannot become a child subreaper: %v", err)
	}
	defer unadopt()
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The reaper's stand-in leaves a process in a new session with an
	// empty environment, and ends, as a killed reaper would.
	script := `env -i "$(command -v setsid)" sh -c 'echo $$ > "$1"; exec sleep 30' sh "$1" </dev/null >/dev/null 2>&1 &`
	if out, err := exec.Command("sh", "-c", script, "sh", pidFile).CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	orphan := waitAdopted(t, pidFile)
	defer func() {
		_ = syscall.Kill(orphan, syscall.SIGKILL)
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(orphan, &ws, 0, nil)
	}()
	if !StartedByTask(orphan) {
		t.Errorf("process %d, adopted in a session of its own, does not count as a task's", orphan)
	}
	own := exec.Command("sleep", "30")
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { own.Process.Kill(); own.Wait() }()
	if StartedByTask(own.Process.Pid) {
		t.Errorf("aoi's own child %d in aoi's session counts as a task's", own.Process.Pid)
	}
}

// waitAdopted reads the pid the orphan wrote and waits until it is this
// process's child.
func waitAdopted(t *testing.T, pidFile string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		raw, _ := os.ReadFile(pidFile)
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err == nil && readStat("/proc/"+strconv.Itoa(pid)+"/stat").ppid == os.Getpid() {
			return pid
		}
	}
	t.Fatal("the orphan was never adopted by this process")
	return 0
}
