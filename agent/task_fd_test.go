package agent_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// A descriptor aoi inherited open (from the shell, make's jobserver or a
// service manager that started it; aoi's own are close-on-exec) passed to
// every task: the attack pass's task found aoi's inherited file among its
// own descriptors and wrote to it. The reaper now closes every inherited
// descriptor past stderr before it starts the command.
func TestTaskDoesNotInheritAoisOpenFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the reaper is Linux only")
	}
	inherited := filepath.Join(t.TempDir(), "aoi-inherited.log")
	f, err := os.Create(inherited)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// As a parent that does not set close-on-exec hands it to aoi.
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_SETFD, 0); errno != 0 {
		t.Fatal(errno)
	}
	script := `for fd in /proc/$$/fd/*; do
	n=${fd##*/}
	[ "$n" -gt 2 ] || continue
	target=$(readlink "$fd")
	echo "$target" >> "$1"
	case "$target" in *aoi-inherited*) echo pwned >> "$fd";; esac
done
`
	_, done, seen := runScriptTask(t, script, nil)
	if done.State != agent.TaskCompleted {
		t.Fatalf("task %s %q; want completed", done.State, done.Error)
	}
	if strings.Contains(seen, inherited) {
		t.Errorf("the task holds aoi's inherited file %s among its descriptors:\n%s", inherited, seen)
	}
	if body, _ := os.ReadFile(inherited); len(body) != 0 {
		t.Errorf("the task wrote %q to aoi's inherited file", body)
	}
}
