package task

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The owner's global git config is as much a place to plant a command as
// the repository's: a task that writes ~/.gitconfig (or the XDG one) has it
// put back, and one it created is removed again.
func TestGitGuardPutsBackTheOwnersGlobalConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	global := filepath.Join(home, ".gitconfig")
	writeFile(t, global, "[user]\n\tname = owner\n")
	guard := new(gitGuard).acquire(context.Background(), "")
	writeFile(t, global, "[user]\n\tname = owner\n[core]\n\tfsmonitor = touch /tmp/x\n")
	os.MkdirAll(filepath.Join(home, ".config", "git"), 0o700)
	writeFile(t, filepath.Join(home, ".config", "git", "config"), "[core]\n\tpager = evil\n")
	changed, err := guard.restore()
	if err != nil || strings.Join(changed, "|") != "your git config (~/.config/git/config)|your ~/.gitconfig" {
		t.Fatalf("restore = %q, %v", changed, err)
	}
	if body, _ := os.ReadFile(global); string(body) != "[user]\n\tname = owner\n" {
		t.Errorf("~/.gitconfig after restore:\n%s", body)
	}
	if _, err := os.Stat(filepath.Join(home, ".config", "git", "config")); !os.IsNotExist(err) {
		t.Errorf("the XDG git config the task created is still there: %v", err)
	}
	if changed, err := new(gitGuard).acquire(context.Background(), "").restore(); len(changed) != 0 || err != nil {
		t.Errorf("a task that changed nothing: %q, %v", changed, err)
	}
}

// The hooks folder core.hooksPath names (not only .git/hooks) is guarded,
// and a hook's name the task chose is quoted before anyone reads it.
func TestGitGuardWatchesTheOwnersHooksPath(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	repo := newRepo(t)
	hooks := t.TempDir()
	writeFile(t, filepath.Join(hooks, "pre-commit"), "#!/bin/sh\nexit 0\n")
	gitT(t, repo, "config", "core.hooksPath", hooks)
	guard := new(gitGuard).acquire(context.Background(), repo)
	writeFile(t, filepath.Join(hooks, "pre-commit"), "#!/bin/sh\ncurl evil\n")
	writeFile(t, filepath.Join(hooks, "post-\x1b[2Jmerge"), "#!/bin/sh\n")
	changed, err := guard.restore()
	if err != nil || len(changed) != 2 || !strings.Contains(changed[0], `"post-\x1b[2Jmerge"`) || !strings.HasSuffix(changed[1], "/pre-commit") {
		t.Fatalf("restore = %q, %v", changed, err)
	}
	if body, _ := os.ReadFile(filepath.Join(hooks, "pre-commit")); string(body) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("pre-commit after restore: %q", body)
	}
	if entries, _ := os.ReadDir(hooks); len(entries) != 1 {
		t.Errorf("hooks after restore: %v", entries)
	}
}

// Two tasks at once: the second starts after the first planted a hook and
// an fsmonitor. Its baseline is the owner's, not the planted one, so
// neither task's end puts the plant back.
func TestGitGuardKeepsTheOwnersStateAcrossOverlappingTasks(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	repo := newRepo(t)
	config := filepath.Join(repo, ".git", "config")
	owners, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	var g gitGuard
	ctx := context.Background()
	first := g.acquire(ctx, repo)
	gitT(t, repo, "config", "core.fsmonitor", "touch planted")
	hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
	os.MkdirAll(filepath.Dir(hook), 0o700)
	writeFile(t, hook, "#!/bin/sh\ntouch planted\n")
	second := g.acquire(ctx, repo)
	if changed, _ := first.restore(); len(changed) != 2 {
		t.Errorf("the first task's end found %q; want the config and the hook", changed)
	}
	gitT(t, repo, "config", "core.fsmonitor", "touch again") // planted while the second runs
	if changed, _ := second.restore(); len(changed) != 1 || !strings.Contains(changed[0], ".git/config") {
		t.Errorf("the second task's end found %q; want the config", changed)
	}
	if now, _ := os.ReadFile(config); string(now) != string(owners) {
		t.Errorf(".git/config after both tasks:\n%s\nwant the owner's:\n%s", now, owners)
	}
	if _, err := os.Stat(hook); !os.IsNotExist(err) {
		t.Errorf("the planted hook is back: %v", err)
	}
	if len(g.files) != 0 || len(g.folders) != 0 {
		t.Errorf("the guard still holds %d files and %d folders with no task running", len(g.files), len(g.folders))
	}
}

// A task that swaps a guarded folder for a link must not have the restore
// delete or write through it: a hooks folder made a link to the home
// directory would have every file there removed as a "new hook", and a
// ~/.config/git made a link to ~/.ssh would have ~/.ssh/config removed as
// a git config the task created. Both are named, and nothing is touched.
func TestGitGuardDoesNotWorkThroughALinkTheTaskMade(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	precious := filepath.Join(home, "notes.txt")
	writeFile(t, precious, "keep me\n")
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	sshConfig := filepath.Join(home, ".ssh", "config")
	writeFile(t, sshConfig, "Host *\n")
	repo := newRepo(t)
	hooks := filepath.Join(repo, ".git", "hooks")
	os.MkdirAll(hooks, 0o700)
	lease := new(gitGuard).acquire(context.Background(), repo)

	if err := os.RemoveAll(hooks); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, hooks); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(home, ".config"), 0o700)
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, ".config", "git")); err != nil {
		t.Fatal(err)
	}
	changed, err := lease.restore()
	if err == nil || !strings.Contains(strings.Join(changed, "|"), ".git/hooks") {
		t.Errorf("restore = %q, %v; want the replaced hooks folder named, and an error", changed, err)
	}
	for _, f := range []string{precious, sshConfig} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s, behind a link the task made, was touched: %v", filepath.Base(f), err)
		}
	}
}
