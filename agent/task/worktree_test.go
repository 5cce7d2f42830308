package task

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitT runs git in dir for test setup and fails the test on error.
func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	full := append([]string{"-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)
	out, err := exec.Command("git", full...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// newRepo makes a repository on branch main with one commit, a second
// branch "feature" and an owner who is mid-edit: a staged change, an
// unstaged change and an untracked file.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitT(t, dir, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(dir, "a.txt"), "committed\n")
	writeFile(t, filepath.Join(dir, "b.txt"), "committed\n")
	gitT(t, dir, "add", ".")
	gitT(t, dir, "commit", "-q", "-m", "first")
	gitT(t, dir, "branch", "feature")
	writeFile(t, filepath.Join(dir, "a.txt"), "owner's unstaged edit\n")
	writeFile(t, filepath.Join(dir, "b.txt"), "owner's staged edit\n")
	gitT(t, dir, "add", "b.txt")
	writeFile(t, filepath.Join(dir, "notes.txt"), "untracked\n")
	return dir
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

type ownerState struct{ status, branch, head, a string }

func snapshotOwner(t *testing.T, dir string) ownerState {
	b, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	return ownerState{
		status: gitT(t, dir, "status", "--porcelain"),
		branch: gitT(t, dir, "symbolic-ref", "HEAD"),
		head:   gitT(t, dir, "rev-parse", "HEAD"),
		a:      string(b),
	}
}

func TestWorktreeLeavesOwnerUntouched(t *testing.T) {
	repo := newRepo(t)
	base := filepath.Join(t.TempDir(), "worktrees")
	before := snapshotOwner(t, repo)
	if before.status == "" {
		t.Fatal("test setup: the owner should have uncommitted changes")
	}
	ctx := context.Background()

	path, err := AddWorktree(ctx, repo, base, "t1", "")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(base, "t1") {
		t.Fatalf("path = %s, want it under the base", path)
	}
	if got, _ := os.ReadFile(filepath.Join(path, "a.txt")); string(got) != "committed\n" {
		t.Fatalf("worktree has %q, want the committed content", got)
	}
	if _, err := os.Stat(filepath.Join(path, "notes.txt")); !os.IsNotExist(err) {
		t.Fatal("the owner's untracked file leaked into the worktree")
	}
	if b := gitT(t, path, "symbolic-ref", "HEAD"); b != "refs/heads/aoi/task-t1" {
		t.Fatalf("worktree branch = %s", b)
	}
	// The task scribbles in its worktree, even commits.
	writeFile(t, filepath.Join(path, "a.txt"), "task edit\n")
	writeFile(t, filepath.Join(path, "out.txt"), "build output\n")
	gitT(t, path, "commit", "-q", "-am", "task commit")

	if after := snapshotOwner(t, repo); after != before {
		t.Fatalf("owner's tree changed while the task ran:\nbefore %+v\nafter  %+v", before, after)
	}
	if err := RemoveWorktree(ctx, repo, path, WorktreeBranch("t1")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("worktree directory still exists")
	}
	if out := gitT(t, repo, "branch", "--list", "aoi/*"); out != "" {
		t.Fatalf("task branch left behind: %s", out)
	}
	if out := gitT(t, repo, "worktree", "list"); strings.Count(out, "\n") != 0 {
		t.Fatalf("worktree list still has the task: %s", out)
	}
	if after := snapshotOwner(t, repo); after != before {
		t.Fatalf("owner's tree changed by removal:\nbefore %+v\nafter  %+v", before, after)
	}
}

func TestWorktreeFromRef(t *testing.T) {
	repo := newRepo(t)
	base := t.TempDir()
	gitT(t, repo, "tag", "v1")
	feature := gitT(t, repo, "rev-parse", "feature")
	for _, ref := range []string{"feature", "v1", feature, feature[:10]} {
		id := "ref-" + strings.NewReplacer("/", "-").Replace(ref[:min(len(ref), 8)])
		path, err := AddWorktree(context.Background(), repo, base, id, ref)
		if err != nil {
			t.Fatalf("ref %s: %v", ref, err)
		}
		if got := gitT(t, path, "rev-parse", "HEAD"); got != feature {
			t.Fatalf("ref %s checked out %s, want %s", ref, got, feature)
		}
		if err := RemoveWorktree(context.Background(), repo, path, WorktreeBranch(id)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWorktreeRefusals(t *testing.T) {
	repo := newRepo(t)
	base := t.TempDir()
	ctx := context.Background()
	for _, ref := range []string{"nope", "-b", "--upload-pack=x", "a..b", "main;rm -rf /", "$(id)", "main\n", "HEAD~1"} {
		_, err := AddWorktree(ctx, repo, base, "bad", ref)
		var re *RefError
		if !errors.As(err, &re) {
			t.Errorf("ref %q: err = %v, want *RefError", ref, err)
		}
	}
	for _, id := range []string{"", "../x", "a/b", "-x", strings.Repeat("a", 65)} {
		if _, err := AddWorktree(ctx, repo, base, id, ""); err == nil {
			t.Errorf("task id %q accepted", id)
		}
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 0 {
		t.Fatalf("refused requests left %d entries in the worktrees dir", len(entries))
	}
	if _, err := AddWorktree(ctx, t.TempDir(), base, "x", ""); err == nil {
		t.Error("a non-git directory must be refused")
	}
	if err := RemoveWorktree(ctx, repo, repo, "main"); err == nil {
		t.Error("RemoveWorktree must refuse a branch aoi did not create")
	}
	if err := RemoveWorktree(ctx, repo, filepath.Join(base, "other"), WorktreeBranch("x")); err == nil {
		t.Error("RemoveWorktree must refuse a path that does not match the branch")
	}
	if _, err := AddWorktree(ctx, repo, base, "dup", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := AddWorktree(ctx, repo, base, "dup", ""); err == nil {
		t.Error("a second worktree for the same task must be refused")
	}
}

func TestIsGitRepo(t *testing.T) {
	if !IsGitRepo(newRepo(t)) {
		t.Error("a repository was not recognised")
	}
	if IsGitRepo(t.TempDir()) {
		t.Error("a plain directory was taken for a repository")
	}
}
