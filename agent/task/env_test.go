package task

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestTaskEnvStopsGitAtTheWorktree: a worktree whose history was left out
// (no .git) inside a folder that is itself a repository, as a data dir
// under a home kept in git would be: git run with the task's environment
// finds no repository, where without it git would find the outer one.
func TestTaskEnvStopsGitAtTheWorktree(t *testing.T) {
	outer := t.TempDir()
	if out, err := exec.Command("git", "-C", outer, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	worktree := filepath.Join(outer, "worktrees", "t1")
	if err := os.MkdirAll(worktree, 0o700); err != nil {
		t.Fatal(err)
	}
	run := func(env []string) error {
		cmd := exec.Command("git", "rev-parse", "--show-toplevel")
		cmd.Dir, cmd.Env = worktree, env
		return cmd.Run()
	}
	if err := run(append(BaseEnv(), "AOI_TASK_ID=t1")); err != nil {
		t.Fatalf("without the ceiling git should find the outer repository: %v", err)
	}
	if err := run(taskEnv("t1", worktree)); err == nil {
		t.Fatal("with the task's environment git found the repository above the worktree")
	}
}
