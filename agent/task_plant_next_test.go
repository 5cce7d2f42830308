package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// A peer knows the ids of its tasks, and a running task can write aoi's
// data dir: the attack pass's first task, with a second queued behind it,
// put a link where the second's output file would be (to an owner's file)
// and left; aoi opened the output through it and the second task's output
// overwrote the owner's file. A link in place of the whole task folder
// had aoi make the scratch home, the runtime folder and the output file
// wherever it led, and remove them there. aoi now makes a task's folder
// and output file afresh, never through a link.
func TestTaskCannotPlantLinksForTheNextTask(t *testing.T) {
	victimDir := t.TempDir()
	victim := filepath.Join(victimDir, "notes.txt")
	if err := os.WriteFile(victim, []byte("the owner's notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runDir := filepath.Join(victimDir, "run")
	if err := os.MkdirAll(runDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, "keep"), []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	ids := filepath.Join(t.TempDir(), "next-ids")
	// The planter waits for the ids of the tasks queued behind it; for the
	// first it links the output file, for the second the whole folder.
	plant := `while [ ! -s "$1" ]; do sleep 0.05; done
set -- $(cat "$1")
tasks="$HOME/../.."
mkdir -p "$tasks/$1" && ln -s ` + victim + ` "$tasks/$1/output.log"
ln -s ` + victimDir + ` "$tasks/$2"
`
	repo := gitRepo(t)
	request, eng := planterAndQueue(t, repo, plant, ids)
	planter := request("plant")
	first, second := request("echo"), request("echo")
	time.Sleep(200 * time.Millisecond) // both queued behind the planter
	if err := os.WriteFile(ids, []byte(first+" "+second+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{planter, first, second} {
		if done := taskEnded(t, eng, id); done.State != agent.TaskCompleted && id != planter {
			t.Errorf("task %s %s %q; want completed", id, done.State, done.Error)
		}
	}
	if body, _ := os.ReadFile(victim); string(body) != "the owner's notes\n" {
		t.Errorf("the owner's file reads %q: a task's output was written through a planted link", body)
	}
	entries, _ := os.ReadDir(victimDir)
	if len(entries) != 2 {
		t.Errorf("the owner's folder holds %v; want only notes.txt and run (aoi made or removed the task's folders there)", entries)
	}
	if _, err := os.Stat(filepath.Join(runDir, "keep")); err != nil {
		t.Errorf("the owner's run folder lost its file: %v", err)
	}
}

// The same plant at the next task's worktree path: a link there to a
// worktree of the owner's own (of the same repository) had the next task
// fail at "already exists", and aoi's clean-up then ran `git worktree
// remove --force` on the link, which git follows: the owner's worktree,
// with its uncommitted work, was removed. The link is now removed as a
// link, and the next task gets its worktree.
func TestTaskCannotPlantALinkForTheNextWorktree(t *testing.T) {
	repo := gitRepo(t)
	hotfix := filepath.Join(t.TempDir(), "hotfix")
	if out, err := exec.Command("git", "-C", repo, "worktree", "add", "-q", "-b", "hotfix", hotfix).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	work := filepath.Join(hotfix, "unsaved.go")
	if err := os.WriteFile(work, []byte("package hotfix\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ids := filepath.Join(t.TempDir(), "next-id")
	plant := `while [ ! -s "$1" ]; do sleep 0.05; done
ln -s ` + hotfix + ` "$HOME/../../../worktrees/$(cat "$1")"
`
	request, eng := planterAndQueue(t, repo, plant, ids)
	planter := request("plant")
	next := request("echo")
	time.Sleep(200 * time.Millisecond) // queued behind the planter
	if err := os.WriteFile(ids, []byte(next+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	taskEnded(t, eng, planter)
	if done := taskEnded(t, eng, next); done.State != agent.TaskCompleted {
		t.Errorf("the next task %s %q; want completed in a worktree of its own", done.State, done.Error)
	}
	if _, err := os.Stat(work); err != nil {
		t.Errorf("the owner's worktree lost its uncommitted work: %v", err)
	}
}

// planterAndQueue starts eng-suzuki, which runs one task at a time, with
// the task types "plant" (sh -c plant, $1 the file the test writes the
// next tasks' ids to) and "echo", trusted by pm-tanaka; request asks for a
// task of a type as pm-tanaka and returns its id.
func planterAndQueue(t *testing.T, repo, plant, ids string) (request func(taskType string) string, eng *testAgent) {
	t.Helper()
	eng = newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Limits.MaxConcurrentTasks = 1
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{
			// Unconfined: Landlock would refuse the links; this is aoi's
			// own defence beneath it, for a type the owner opts out.
			"plant": {Command: []string{"sh", "-c", plant, "sh", ids}, Context: "acme/webapp",
				Isolation: "worktree", TimeoutSec: 30, Approval: config.Approval{Required: false}, Unconfined: true},
			"echo": {Command: []string{"echo", "the peer's words"}, Context: "acme/webapp",
				Isolation: "worktree", TimeoutSec: 30, Approval: config.Approval{Required: false}},
		}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	if _, err := pm.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	return func(taskType string) string {
		var res wire.TaskExecuteResult
		if err := rawClient(t, pm, eng).Call(ctx, wire.MethodTaskExecute, wire.TaskExecuteParams{From: "pm-tanaka", To: "eng-suzuki",
			TaskType: taskType}, &res); err != nil {
			t.Fatal(err)
		}
		return res.TaskID
	}, eng
}
