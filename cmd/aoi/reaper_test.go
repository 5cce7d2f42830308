package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/task"
)

// The aoi binary serves as a task's reaper (main calls task.ReapIfAsked
// first): started as the runner starts it, it runs the command in a group
// of its own, says which on fd 3, and once the command has ended kills
// what it left behind, even a process in a session of its own with an
// empty environment.
func TestAOIBinaryServesAsATasksReaper(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("child subreapers are Linux's")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	pidFile := filepath.Join(t.TempDir(), "escapee.pid")
	script := `setsid env -i /bin/sh -c 'echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 120' "$1" </dev/null >/dev/null 2>&1 &
while [ ! -s "$1" ]; do sleep 0.02; done; exit 4`
	cmd := exec.Command(buildAOI(t), "--", "sh", "-c", script, "sh", pidFile)
	cmd.Env = append(os.Environ(), "AOI_TASK_REAPER=pgid-on-fd3")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.ExtraFiles = []*os.File{pw}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	line, _ := bufio.NewReader(pr).ReadString('\n')
	if pgid, err := strconv.Atoi(strings.TrimSpace(line)); err != nil || pgid <= 0 || pgid == cmd.Process.Pid {
		t.Errorf("the reaper reported %q; want the command's own process group", line)
	}
	err = cmd.Wait()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 4 {
		t.Errorf("reaper ended with %v; want the command's exit status 4", err)
	}
	raw, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if pid <= 0 {
		t.Fatalf("the command started no escapee (%q)", raw)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	deadline := time.Now().Add(3 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process %d outlived the command its reaper ran", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The aoi binary also serves as a task's Go cache program (GOCACHEPROG,
// see agent/task/gocache.go): started as the go command starts it, it
// says which commands it knows before anything else of aoi's runs, and
// answers until told to close.
func TestAOIBinaryServesAsATasksGoCache(t *testing.T) {
	owners, peers := t.TempDir(), t.TempDir()
	cmd := exec.Command(buildAOI(t), "aoi-task-go-cache", owners, peers)
	cmd.Stdin = strings.NewReader(`{"ID":1,"Command":"get","ActionID":"qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqo="}` + "\n" + `{"ID":2,"Command":"close"}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("aoi as a go cache program: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"KnownCommands":["get","put","close"]`) ||
		!strings.Contains(lines[1], `"ID":1,"Miss":true`) || !strings.Contains(lines[2], `"ID":2`) {
		t.Errorf("aoi as a go cache program answered:\n%s", out)
	}
}

// The aoi binary serves as the step that confines a task's command (main
// calls task.ReapIfAsked first): started as a reaper starts it, it
// restricts itself to the folders it is given and execs the command, which
// writes there and nowhere else.
func TestAOIBinaryConfinesATasksCommand(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Landlock is Linux's")
	}
	if task.LandlockABI() == 0 {
		t.Skip("the kernel offers no Landlock (ABI 0)")
	}
	own, other := t.TempDir(), t.TempDir()
	script := `echo x > "$1/ok" && ! echo x 2>/dev/null > "$2/no"`
	out, err := exec.Command(buildAOI(t), "aoi-task-confine", "--write", own, "--", "/bin/sh", "sh", "-c", script, "sh", own, other).CombinedOutput()
	if err != nil {
		t.Fatalf("the confined command failed: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(own, "ok")); err != nil {
		t.Errorf("the confined command could not write its own folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, "no")); err == nil {
		t.Error("the confined command wrote outside its folder")
	}
}
