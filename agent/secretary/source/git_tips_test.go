package source

import (
	"slices"
	"testing"
)

// TestBranchSwitchesIndexEachCommitOnce: switching to a branch indexes its
// own commits; switching back, or merging it, indexes none of them again.
// The range after the head cursor held the other branch's commits again
// (back on main: main's own; the merge: the side branch's).
func TestBranchSwitchesIndexEachCommitOnce(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	repo := Repo{Ctx: "acme/branches", Path: dir}
	cur := mapCursors{}
	var titles []string
	poll := func() { titles = append(titles, pollUntilQuiet(t, Git{}, repo, cur, 3)...) }
	commitNumbered(t, dir, 0, 10)
	commitNumbered(t, dir, 1, 10)
	poll()
	gitIn(t, dir, "checkout", "-q", "-b", "side", "HEAD~1")
	commitNumbered(t, dir, 2, 10)
	poll()
	gitIn(t, dir, "checkout", "-q", "main")
	poll()
	gitIn(t, dir, "merge", "-q", "--no-edit", "side")
	poll()
	gitIn(t, dir, "checkout", "-q", "side")
	poll()
	commitNumbered(t, dir, 3, 10)
	poll()
	want := []string{"change 0", "change 1", "change 2", "Merge branch 'side'", "change 3"}
	if !slices.Equal(titles, want) {
		t.Fatalf("indexed %q, want %q", titles, want)
	}
}
