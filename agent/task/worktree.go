package task

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// BranchPrefix starts every branch aoi creates for a task worktree.
const BranchPrefix = "aoi/task-"

// taskIDPattern is what a task id may look like when it names a directory
// and a branch.
var taskIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// WorktreeBranch is the branch a task's worktree is created on.
func WorktreeBranch(taskID string) string { return BranchPrefix + taskID }

// WorktreePath is where a task's worktree lives: <base>/<task id>. base is
// fixed by aoi (<data dir>/worktrees), never taken from the wire.
func WorktreePath(base, taskID string) string { return filepath.Join(base, taskID) }

// IsGitRepo reports whether dir is inside a git working tree.
func IsGitRepo(dir string) bool {
	out, err := git(context.Background(), dir, "rev-parse", "--is-inside-work-tree")
	return err == nil && strings.TrimSpace(out) == "true"
}

// AddWorktree creates a fresh worktree of repoDir at WorktreePath(base,
// taskID) on a new branch WorktreeBranch(taskID), checked out at ref (HEAD
// when empty). The owner's working tree, index and current branch are not
// touched. ref must name an existing commit and be a well-formed ref name or
// commit id.
func AddWorktree(ctx context.Context, repoDir, base, taskID, ref string) (string, error) {
	if !taskIDPattern.MatchString(taskID) {
		return "", fmt.Errorf("task id %q cannot name a worktree", taskID)
	}
	commit, err := resolveRef(ctx, repoDir, ref)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", fmt.Errorf("create the worktrees directory: %w", err)
	}
	path := WorktreePath(base, taskID)
	if err := dropLink(path); err != nil {
		return "", err
	}
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("worktree %s already exists; remove it with `git worktree remove --force %s`", path, path)
	}
	if _, err := git(ctx, repoDir, "worktree", "add", "--quiet", "-b", WorktreeBranch(taskID), path, commit); err != nil {
		return "", fmt.Errorf("create worktree for task %s: %w", taskID, err)
	}
	return path, nil
}

// resolveRef checks a requested ref and returns the commit it names.
func resolveRef(ctx context.Context, repoDir, ref string) (string, error) {
	if ref == "" {
		ref = "HEAD"
	}
	if !safeRef(ctx, repoDir, ref) {
		return "", &RefError{Ref: ref, Reason: "is not a valid git ref name"}
	}
	out, err := git(ctx, repoDir, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return "", &RefError{Ref: ref, Reason: "does not name a commit in the repository"}
	}
	return strings.TrimSpace(out), nil
}

var commitIDPattern = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

func safeRef(ctx context.Context, repoDir, ref string) bool {
	if ref == "HEAD" || commitIDPattern.MatchString(ref) {
		return true
	}
	if strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n\r") || len(ref) > 200 {
		return false
	}
	_, err := git(ctx, repoDir, "check-ref-format", "--allow-onelevel", ref)
	return err == nil
}

// RefError says why a requested ref was refused.
type RefError struct {
	Ref, Reason string
}

func (e *RefError) Error() string {
	return fmt.Sprintf("ref %q %s; ask for an existing branch, tag or commit", e.Ref, e.Reason)
}

// RemoveWorktree deletes a task worktree, its branch and any stale worktree
// bookkeeping. It only acts on paths and branches aoi created (branch
// WorktreeBranch(id), path ending in the same id).
func RemoveWorktree(ctx context.Context, repoDir, path, branch string) error {
	id, ok := strings.CutPrefix(branch, BranchPrefix)
	if !ok || !taskIDPattern.MatchString(id) || filepath.Base(path) != id {
		return fmt.Errorf("refusing to remove %s (branch %s): not a worktree aoi created", path, branch)
	}
	// The task ran as the owner in a worktree sharing the repository's
	// .git: a FIFO it left in the worktree's bookkeeping (its gitdir file)
	// had `git worktree remove` and `prune` block for ever, and the task
	// with them. Such entries go first, and git gets a deadline.
	ctx, cancel := context.WithTimeout(ctx, removeWorktreeTimeout)
	defer cancel()
	if common := repoGitDir(ctx, repoDir); common != "" {
		dropSpecialFiles(filepath.Join(common, "worktrees", id))
	}
	var errs []error
	if isLink(path) {
		// Put there by a task (see dropLink): git would remove the
		// worktree it leads to, one of the owner's own perhaps.
		if err := dropLink(path); err != nil {
			errs = append(errs, err)
		}
	} else if _, err := git(ctx, repoDir, "worktree", "remove", "--force", path); err != nil {
		// Half-created or already unregistered: the directory is ours.
		if rmErr := os.RemoveAll(path); rmErr != nil {
			errs = append(errs, err, rmErr)
		}
	}
	if _, err := git(ctx, repoDir, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	if _, err := git(ctx, repoDir, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		if _, err := git(ctx, repoDir, "branch", "-D", branch); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// dropLink removes a link at path. A running task can write the data dir,
// and its peer knows the ids of its tasks queued behind it: a link it put
// at the next one's worktree path, to a worktree of the owner's, had that
// task fail and aoi's clean-up run `git worktree remove --force` on it,
// which removed the owner's worktree, uncommitted work and all.
func dropLink(path string) error {
	if !isLink(path) {
		return nil
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove the link a task put at %s: %w", path, err)
	}
	return nil
}

func isLink(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode()&fs.ModeSymlink != 0
}

// removeWorktreeTimeout bounds RemoveWorktree's git commands together.
const removeWorktreeTimeout = 5 * time.Minute

// dropSpecialFiles removes what is neither a regular file nor a folder
// (a FIFO, a socket, a link) directly in dir, git's bookkeeping of one
// task worktree: git would block opening a FIFO, or follow a link.
func dropSpecialFiles(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, ent := range entries {
		if t := ent.Type(); t&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeSymlink|fs.ModeDevice|fs.ModeCharDevice) != 0 {
			_ = os.Remove(filepath.Join(dir, ent.Name()))
		}
	}
}

// git runs one git command in dir with hooks disabled (a peer's task must
// not trigger the owner's hooks) and returns its stdout.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	full := append([]string{"-C", dir, "-c", "core.hooksPath=/dev/null"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = gitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 500 {
			msg = msg[:500]
		}
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, msg)
	}
	return stdout.String(), nil
}

// gitEnv is aoi's environment minus variables that would point git at
// another repository, and with prompts off.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_TERMINAL_PROMPT=0")
}
