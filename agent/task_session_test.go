package agent_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
)

// sessionProbe is what a hostile task tries with the owner's session: it
// writes one line per door it found open to $1. tmux is only run at a
// server a variable names (never at the default /tmp one, which may be a
// real person's).
const sessionProbe = `out="$1"
env | grep -E '^(DBUS_SESSION_BUS_ADDRESS|SSH_AUTH_SOCK|TMUX|TMUX_PANE|GPG_AGENT_INFO|DISPLAY|WAYLAND_DISPLAY)=' | sed 's/^/env /' >> "$out"
dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.ListNames >/dev/null 2>&1 && echo "reached the session bus" >> "$out"
busctl --user list >/dev/null 2>&1 && echo "reached the user bus by XDG_RUNTIME_DIR" >> "$out"
ssh-add -l >/dev/null 2>&1; [ $? -ne 2 ] && echo "reached the ssh agent" >> "$out"
[ -n "$TMUX" ] && tmux display -p x >/dev/null 2>&1 && echo "reached the owner's tmux" >> "$out"
if [ -n "$TMUX_TMPDIR" ]; then
	tmux -f /dev/null new-session -d -s task 'sleep 300'
	echo "tmux $(tmux display -p '#{socket_path} #{pid}')" >> "$out"
fi
echo "runtime $XDG_RUNTIME_DIR" >> "$out"
`

// ownerSession starts what a person's login session holds, privately for
// the test: a D-Bus session bus (its socket where XDG_RUNTIME_DIR says
// the user bus is), an ssh agent and a tmux server aoi runs inside, and
// points aoi's own environment at them as that session would.
func ownerSession(t *testing.T) {
	for _, tool := range []string{"dbus-daemon", "dbus-send", "busctl", "ssh-agent", "ssh-add", "tmux"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("no " + tool)
		}
	}
	dir, err := os.MkdirTemp("", "aoi-sess") // short: a socket path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bus := filepath.Join(dir, "bus")
	background(t, "dbus-daemon", "--session", "--nofork", "--address=unix:path="+bus)
	agentSock := filepath.Join(dir, "agent")
	background(t, "ssh-agent", "-D", "-a", agentSock)
	tmuxSock := filepath.Join(dir, "tmux")
	if out, err := exec.Command("tmux", "-S", tmuxSock, "-f", "/dev/null", "new-session", "-d", "-s", "owner", "sleep 600").CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", tmuxSock, "kill-server").Run() })
	for _, sock := range []string{bus, agentSock} {
		waitForFile(t, sock)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+bus)
	t.Setenv("XDG_RUNTIME_DIR", dir)
	t.Setenv("SSH_AUTH_SOCK", agentSock)
	t.Setenv("TMUX", tmuxSock+",1,0")
	t.Setenv("TMUX_PANE", "%0")
	t.Setenv("GPG_AGENT_INFO", filepath.Join(dir, "S.gpg-agent")+":0:1")
	t.Setenv("DISPLAY", ":99")
	t.Setenv("WAYLAND_DISPLAY", "wayland-99")
}

// background starts a daemon in the foreground for the test's length.
func background(t *testing.T, name string, args ...string) {
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
}

func waitForFile(t *testing.T, path string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Processes a task has started by someone else (`systemd-run --user`, a
// tmux server's new window) are not its descendants, so no reaper ends
// them: a task must not be handed the owner's session to ask with. With
// aoi run inside the owner's session (bus, ssh agent, tmux, display), a
// task, with a scratch home or the real one, finds none of it: no
// variable names it, the session bus and the user bus at XDG_RUNTIME_DIR
// do not answer, the ssh agent and the owner's tmux server cannot be
// reached. XDG_RUNTIME_DIR and TMUX_TMPDIR name a folder of the task's
// own, so a tmux server it starts at the default place is its own, and
// ends with it (the attack pass: without TMUX_TMPDIR, tmux's default
// server is the owner's /tmp/tmux-UID/default). An owner who hands a
// task type some of it (pass_env) gets exactly that.
func TestTaskGetsNoneOfTheOwnersSession(t *testing.T) {
	ownerSession(t)
	for name, change := range map[string]func(*config.TaskType){
		"scratch home": nil,
		"real home":    func(tt *config.TaskType) { tt.RealHome = true },
	} {
		t.Run(name, func(t *testing.T) {
			eng, done, seen := runScriptTask(t, sessionProbe, change)
			if done.State != agent.TaskCompleted {
				t.Fatalf("task %s %q; want completed", done.State, done.Error)
			}
			taskDir := filepath.Join(eng.Dir, "tasks", done.ID) + string(os.PathSeparator)
			var tmuxPid int
			for _, line := range strings.Split(strings.TrimSpace(seen), "\n") {
				kind, rest, _ := strings.Cut(line, " ")
				switch kind {
				case "runtime":
					if !strings.HasPrefix(rest, taskDir) {
						t.Errorf("the task's XDG_RUNTIME_DIR is %q; want a folder of its own in %s", rest, taskDir)
					}
				case "tmux":
					sock, pid, _ := strings.Cut(rest, " ")
					tmuxPid, _ = strconv.Atoi(pid)
					if !strings.HasPrefix(sock, taskDir) {
						t.Errorf("the task's own tmux server listens at %s; want its own folder", sock)
					}
				default:
					t.Errorf("the task got the owner's session: %s", line)
				}
			}
			if tmuxPid <= 0 {
				t.Fatalf("the task started no tmux server of its own (TMUX_TMPDIR unset?); it saw:\n%s", seen)
			}
			t.Cleanup(func() { _ = syscall.Kill(tmuxPid, syscall.SIGKILL) })
			if processRuns(tmuxPid) {
				t.Errorf("the tmux server the task started (%d) outlived the task", tmuxPid)
			}
		})
	}
	t.Run("pass_env", func(t *testing.T) {
		_, done, seen := runScriptTask(t, sessionProbe, func(tt *config.TaskType) {
			tt.PassEnv = []string{"SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "TMUX"}
		})
		if done.State != agent.TaskCompleted {
			t.Fatalf("task %s %q; want completed", done.State, done.Error)
		}
		for _, want := range []string{"reached the ssh agent", "reached the session bus", "reached the owner's tmux", "env SSH_AUTH_SOCK="} {
			if !strings.Contains(seen, want) {
				t.Errorf("with pass_env the task did not report %q; it saw:\n%s", want, seen)
			}
		}
		for _, not := range []string{"env TMUX_PANE=", "env DISPLAY=", "env GPG_AGENT_INFO="} {
			if strings.Contains(seen, not) {
				t.Errorf("pass_env handed over more than it names (%q):\n%s", not, seen)
			}
		}
	})
}
