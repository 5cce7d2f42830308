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
