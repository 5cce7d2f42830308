package task

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/config"
)

// The task's output file lies in its directory, which the command can
// find ($HOME is a folder beside it; a worktree's task directory is named
// by AOI_TASK_ID) and write: a command that replaced output.log with a
// FIFO had the engine block for ever opening it to count the tests, the
// task stuck in_progress and its slot held; one that linked it to a large
// file of the owner's had it read without bound. The file is now opened
// without following links or waiting, and read only if it is a regular
// file, at most as much as a task may write.
func TestTaskThatReplacesItsOutputFileWithAFIFOStillEnds(t *testing.T) {
	if _, err := exec.LookPath("mkfifo"); err != nil {
		t.Fatal("this test needs mkfifo")
	}
	script := `echo '{"Action":"pass","Test":"TestX"}'
out="$HOME/../output.log"
[ -f "$out" ] || { echo "no output.log beside HOME" >&2; exit 9; }
rm -f "$out" && mkfifo "$out"
`
	tt := config.TaskType{Command: []string{"sh", "-c", script}, Isolation: "none", TimeoutSec: 30,
		Output: "go-test-json", Approval: config.Approval{Required: false}}
	h := newHarness(t, map[string]config.TaskType{"fifo": tt})
	ctx := context.Background()
	task, err := h.e.Submit(ctx, Request{RequestID: "req-fifo", From: "pm-tanaka", FromRole: "pm", TaskType: "fifo"})
	if err != nil {
		t.Fatal(err)
	}
	var n sentNotify
	select {
	case n = <-h.notes:
	case <-time.After(30 * time.Second):
		// Let the engine go (a writer ends its reader's open) so the
		// test can stop it, then fail.
		if w, err := os.OpenFile(filepath.Join(h.dataDir, "tasks", task.ID, "output.log"), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("the task never ended: the engine is blocked opening the FIFO the task left as its output")
	}
	if n.Data.TaskID != task.ID || n.Data.Status != StateCompleted {
		t.Fatalf("notify = %+v; want the task completed", n)
	}
	if n.Data.Output != nil {
		t.Errorf("counts %+v read from a FIFO the task put in place of its output", n.Data.Output)
	}
}

// A worktree shares its repository's .git, and git keeps the worktree's
// bookkeeping there (.git/worktrees/ID): a command that replaced its gitdir
// file with a FIFO had `git worktree remove` and `git worktree prune`
// block for ever when the task ended, so the task never finished, and the
// owner's own `git worktree prune` blocked as well. Such files are removed
// before git runs.
func TestTaskThatLeavesAFIFOInItsWorktreeBookkeepingStillEnds(t *testing.T) {
	script := `gd="$(git rev-parse --git-dir)"
case "$gd" in */worktrees/*) ;; *) echo "not a worktree: $gd" >&2; exit 9;; esac
rm -f "$gd/gitdir" && mkfifo "$gd/gitdir"
`
	tt := config.TaskType{Command: []string{"sh", "-c", script}, Context: "acme/webapp", Isolation: "worktree", TimeoutSec: 30,
		Approval: config.Approval{Required: false}}
	h := newHarness(t, map[string]config.TaskType{"fifo": tt})
	ctx := context.Background()
	task, err := h.e.Submit(ctx, Request{RequestID: "req-fifo", From: "pm-tanaka", FromRole: "pm", TaskType: "fifo"})
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(h.repo, ".git", "worktrees", task.ID, "gitdir")
	var n sentNotify
	select {
	case n = <-h.notes:
	case <-time.After(30 * time.Second):
		// Let git go (a writer ends its reader's open), a few times.
		for range 5 {
			if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatal("the task never ended: removing its worktree blocked on the FIFO it left")
	}
	if n.Data.TaskID != task.ID || n.Data.Status != StateCompleted {
		t.Fatalf("notify = %+v; want the task completed", n)
	}
	if _, err := os.Lstat(fifo); !os.IsNotExist(err) {
		t.Errorf("the FIFO is still in the owner's .git: %v", err)
	}
	cmd := exec.Command("git", "-C", h.repo, "worktree", "prune")
	if out, err := runWithin(cmd, 20*time.Second); err != nil {
		t.Fatalf("the owner's git worktree prune: %v\n%s", err, out)
	}
}

// runWithin runs cmd, killing it after d.
func runWithin(cmd *exec.Cmd, d time.Duration) ([]byte, error) {
	timer := time.AfterFunc(d, func() {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
	})
	defer timer.Stop()
	return cmd.CombinedOutput()
}
