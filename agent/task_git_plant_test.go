package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// A peer's branch whose test script plants commands in the repository its
// worktree shares: `git config core.fsmonitor` writes the owner's
// .git/config, and a hook dropped in .git/hooks runs at the owner's next
// checkout (the attack pass: both stayed after the task and ran as the
// owner). The task fails naming what it changed, everything is put back,
// and the owner's git status runs nothing of the peer's.
func TestPeersTaskCannotPlantCommandsInTheOwnersGit(t *testing.T) {
	repo := gitRepo(t)
	ran := filepath.Join(t.TempDir(), "ran")
	script := "git config core.fsmonitor 'touch " + ran + "'\n" +
		"hooks=\"$(git rev-parse --git-common-dir)/hooks\"; mkdir -p \"$hooks\"\n" +
		"printf '#!/bin/sh\\ntouch " + ran + "\\n' > \"$hooks/post-checkout\"; chmod +x \"$hooks/post-checkout\"\n" +
		"printf '#!/bin/sh\\ntouch " + ran + "\\n' > \"$hooks/$(printf 'pre-\\033]0;x\\007commit')\"\n" +
		"echo 1 passed\n"
	commitOnBranch(t, repo, "pm/feature", "test.sh", script)
	before, err := os.ReadFile(filepath.Join(repo, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		// Unconfined: a confined command cannot write the repository's
		// git folder at all (TestConfinedTaskWritesOnlyItsOwnFolders);
		// the guard is what a task type the owner leaves unconfined has.
		c.Tasks = map[string]config.TaskType{"run_tests": {
			Command: []string{"sh", "test.sh"}, Context: "acme/webapp", AllowRef: true,
			Isolation: "worktree", TimeoutSec: 30, Approval: config.Approval{Required: false},
			Unconfined: true,
		}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	if _, err := pm.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	// aoi's own asker sends no ref: a peer's own client can.
	var res wire.TaskExecuteResult
	if err := rawClient(t, pm, eng).Call(ctx, wire.MethodTaskExecute, wire.TaskExecuteParams{From: "pm-tanaka", To: "eng-suzuki",
		TaskType: "run_tests", Ref: "pm/feature"}, &res); err != nil {
		t.Fatal(err)
	}
	done := taskEnded(t, eng, res.TaskID)
	if done.State != agent.TaskFailed || !strings.Contains(done.Error, ".git/config") || !strings.Contains(done.Error, "post-checkout") {
		t.Fatalf("task %s %q; want it failed naming .git/config and the hook", done.State, done.Error)
	}
	if strings.Contains(done.Error, "\x1b") || strings.Contains(done.Error, "\a") {
		t.Errorf("the hook's name reached the error raw: %q", done.Error)
	}
	after, err := os.ReadFile(filepath.Join(repo, ".git", "config"))
	if err != nil || string(after) != string(before) {
		t.Fatalf("the owner's .git/config after the task (%v):\n%s\nwant as before:\n%s", err, after, before)
	}
	hooks, _ := os.ReadDir(filepath.Join(repo, ".git", "hooks"))
	for _, h := range hooks {
		if !strings.HasSuffix(h.Name(), ".sample") {
			t.Errorf("hook %q left in the owner's repository", h.Name())
		}
	}
	for _, args := range [][]string{{"status"}, {"checkout", "-q", "-b", "next"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the owner's git ran the peer's command")
	}
}

// commitOnBranch commits one file on a new branch of repo, leaving the
// owner's checkout where it was.
func commitOnBranch(t *testing.T, repo, branch, name, body string) {
	t.Helper()
	run := func(args ...string) {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("checkout", "-q", "-b", branch)
	if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", name)
	run("commit", "-q", "-m", "add "+name)
	run("checkout", "-q", "main")
}
