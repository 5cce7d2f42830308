package source

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

func revParse(t *testing.T, dir, rev string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "rev-parse", rev).Output()
	if err != nil {
		t.Fatalf("rev-parse %s: %v", rev, err)
	}
	return strings.TrimSpace(string(out))
}

// pollOnce polls once, applies the cursors and returns the commits added
// (their titles) and removed (their keys).
func pollOnce(t *testing.T, repo Repo, cur mapCursors) (added, removed []string) {
	t.Helper()
	b, err := Git{}.Poll(context.Background(), repo, cur)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range b.Events {
		added = append(added, ev.Title)
	}
	for _, ev := range b.Removed {
		if ev.Kind != "commit" || ev.Ctx != repo.Ctx {
			t.Fatalf("removed %+v, want commits of %s", ev, repo.Ctx)
		}
		removed = append(removed, ev.Key)
	}
	cur.apply(b)
	return added, removed
}

// TestRewrittenCommitsLeaveTheMirror: an amend, a reset and a branch
// deleted unmerged take commits out of every branch; the mirror removes
// them (answers pointing at them would name commits nobody can look up)
// and indexes what replaced them, each once. They stayed, next to their
// rewritten copies.
func TestRewrittenCommitsLeaveTheMirror(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	repo := Repo{Ctx: "acme/rewrite", Path: dir}
	cur := mapCursors{}
	check := func(step string, wantAdded, wantRemoved []string) {
		t.Helper()
		added, removed := pollOnce(t, repo, cur)
		slices.Sort(removed)
		slices.Sort(wantRemoved)
		if !slices.Equal(added, wantAdded) || !slices.Equal(removed, wantRemoved) {
			t.Fatalf("%s: added %q, removed %q; want %q and %q", step, added, removed, wantAdded, wantRemoved)
		}
		if added, removed := pollOnce(t, repo, cur); len(added)+len(removed) != 0 {
			t.Fatalf("%s, polled again: added %q, removed %q", step, added, removed)
		}
	}
	for i := range 3 {
		commitNumbered(t, dir, i, 10)
	}
	check("first poll", []string{"change 0", "change 1", "change 2"}, nil)

	old := revParse(t, dir, "HEAD")
	gitIn(t, dir, "commit", "-q", "--amend", "-m", "change 2, reworded")
	check("amend", []string{"change 2, reworded"}, []string{old})

	reworded := revParse(t, dir, "HEAD")
	gitIn(t, dir, "reset", "-q", "--hard", "HEAD~1")
	check("reset", nil, []string{reworded})

	gitIn(t, dir, "checkout", "-q", "-b", "experiment")
	commitNumbered(t, dir, 3, 10)
	check("a branch", []string{"change 3"}, nil)
	experiment := revParse(t, dir, "HEAD")
	gitIn(t, dir, "checkout", "-q", "main")
	commitNumbered(t, dir, 4, 10)
	check("back on main", []string{"change 4"}, nil)
	gitIn(t, dir, "branch", "-q", "-D", "experiment")
	commitNumbered(t, dir, 5, 10)
	check("experiment deleted", []string{"change 5"}, []string{experiment})

	// Back to a rewritten commit (it is still in the reflog): indexed again.
	gitIn(t, dir, "reset", "-q", "--hard", reworded)
	check("reset back", []string{"change 2, reworded"}, []string{revParse(t, dir, "ORIG_HEAD"), revParse(t, dir, "ORIG_HEAD~1")})
}

// TestHistoryRewrittenWholeStopsTheWalk: a history replaced whole (a
// filter-repo, an orphan branch renamed over main) while the history walk
// is under way: the new history is indexed, the old leaves the mirror, and
// the walk, which started in the old one, stops instead of indexing more
// of it.
func TestHistoryRewrittenWholeStopsTheWalk(t *testing.T) {
	dir := t.TempDir()
	fastImport(t, dir, 250, time.Now()) // the first poll indexes 200 of 252
	repo := Repo{Ctx: "acme/rewritten", Path: dir}
	cur := mapCursors{}
	if added, _ := pollOnce(t, repo, cur); len(added) != maxInitialCommits {
		t.Fatalf("first poll indexed %d commits, want %d", len(added), maxInitialCommits)
	}
	gitIn(t, dir, "checkout", "-q", "--orphan", "fresh")
	gitIn(t, dir, "rm", "-q", "-r", "--cached", ".")
	for i := range 3 {
		commitNumbered(t, dir, i, 10)
	}
	gitIn(t, dir, "branch", "-q", "-D", "main", "side")
	gitIn(t, dir, "branch", "-q", "-m", "main")
	added, removed := pollOnce(t, repo, cur)
	if !slices.Equal(added, []string{"change 0", "change 1", "change 2"}) || len(removed) != 252 {
		t.Fatalf("after the rewrite: added %q and removed %d; want the 3 new commits and the 252 old ones", added, len(removed))
	}
	if added, removed := pollOnce(t, repo, cur); len(added)+len(removed) != 0 {
		t.Fatalf("the poll after: added %q (earlier: the walk went on in the old history), removed %d", added, len(removed))
	}
}

// TestBrokenRefDoesNotStopThePoll: a ref naming a missing object (left by
// a crash) fails git's --all; the poll still indexes new commits.
func TestBrokenRefDoesNotStopThePoll(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	repo := Repo{Ctx: "acme/broken", Path: dir}
	cur := mapCursors{}
	commitNumbered(t, dir, 0, 10)
	pollOnce(t, repo, cur)
	writeIn(t, dir, ".git/refs/heads/broken", strings.Repeat("1", 40)+"\n")
	commitNumbered(t, dir, 1, 10)
	if added, _ := pollOnce(t, repo, cur); !slices.Equal(added, []string{"change 1"}) {
		t.Fatalf("added %q, want change 1", added)
	}
}
