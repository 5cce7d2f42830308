package task

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"path"
	"time"
)

// History limits: past either, the history is taken to hold a kept place
// (it is hidden), because a task must not wait on an unbounded walk and
// must not read a place it was not shown to be clean of.
const (
	historyScanTimeout = 30 * time.Second
	historyScanPaths   = 500_000
)

// errHistoryTooLarge ends a history scan past historyScanPaths.
var errHistoryTooLarge = errors.New("the history names too many paths to check")

// historyHolds reports whether any commit the worktree dir's repository
// can reach (every branch, tag, stash and reflog entry, merges included)
// adds, changes or deletes a path for which kept is true, for the path
// itself or a folder above it. A folder deleted from the checkout, or kept
// on another branch, is still readable through git show and git log -p.
// The scan stops at the first such path; one that fails, runs past
// historyScanTimeout or names more than historyScanPaths paths answers
// true (hide the history) and says why.
func historyHolds(ctx context.Context, dir string, kept func(rel string) bool) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, historyScanTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "-c", "core.hooksPath=/dev/null", "-c", "core.quotePath=false",
		"log", "--all", "--reflog", "--format=", "--name-only", "--no-renames", "--diff-merges=c", "-z")
	cmd.Env = gitEnv()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return true, err
	}
	if err := cmd.Start(); err != nil {
		return true, err
	}
	found, scanErr := scanPaths(out, kept, historyScanPaths)
	if found || scanErr != nil {
		cancel() // stop git rather than let it write the rest
	}
	waitErr := cmd.Wait()
	switch {
	case found:
		return true, nil
	case scanErr != nil:
		return true, scanErr
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return true, errors.New("the history took longer than " + historyScanTimeout.String() + " to check")
	case waitErr != nil:
		return true, waitErr
	}
	return false, nil
}

// scanPaths reads git's NUL-separated path list and reports whether kept
// holds for a path or one of its folders, checking each name once and at
// most limit names.
func scanPaths(r io.Reader, kept func(rel string) bool, limit int) (bool, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	sc.Split(splitNUL)
	seen := map[string]bool{}
	for sc.Scan() {
		for p := string(bytes.TrimLeft(sc.Bytes(), "\n")); p != "." && p != "/" && p != ""; p = path.Dir(p) {
			if seen[p] {
				break // this folder and those above it were checked
			}
			if len(seen) >= limit {
				return false, errHistoryTooLarge
			}
			seen[p] = true
			if kept(p) {
				return true, nil
			}
		}
	}
	return false, sc.Err()
}

// splitNUL is a bufio.SplitFunc for NUL-terminated records.
func splitNUL(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
