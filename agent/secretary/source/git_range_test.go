package source

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// commitNumbered commits a file of about size bytes whose message is
// "change <i>".
func commitNumbered(t *testing.T, dir string, i, size int) {
	t.Helper()
	var body strings.Builder
	for body.Len() < size {
		fmt.Fprintf(&body, "line %d of change %d\n", body.Len(), i)
	}
	writeIn(t, dir, fmt.Sprintf("f%03d.txt", i), body.String())
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", fmt.Sprintf("change %d", i))
}

// pollUntilQuiet polls g until a poll adds no commit (at most maxPolls
// times), applying each batch's cursors as the store would, and returns
// the commit events' titles in storing order.
func pollUntilQuiet(t *testing.T, g Git, repo Repo, cur mapCursors, maxPolls int) []string {
	t.Helper()
	var titles []string
	for range maxPolls {
		b, err := g.Poll(context.Background(), repo, cur)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ev := range b.Events {
			if ev.Kind == "commit" {
				titles = append(titles, ev.Title)
				n++
			}
		}
		cur.apply(b)
		if n == 0 {
			return titles
		}
	}
	t.Fatalf("still indexing commits after %d polls", maxPolls)
	return nil
}

// wantChanges checks that titles are "change from" … "change to-1", each
// once, in history's order.
func wantChanges(t *testing.T, titles []string, from, to int) {
	t.Helper()
	var want []string
	for i := from; i < to; i++ {
		want = append(want, fmt.Sprintf("change %d", i))
	}
	if strings.Join(titles, ",") != strings.Join(want, ",") {
		t.Fatalf("indexed %d commits %q,\nwant %d: %q", len(titles), titles, len(want), want)
	}
}

// TestPollPagesARangeOverTheByteCap: a push whose log output together is
// over the poll's byte cap (a big merge, a rebase, a vendored import) is
// indexed whole, a page per poll, oldest first. The head cursor moved to
// HEAD after the first page, and the older commits of the range were lost
// for good. A commit over the cap by itself is indexed cut, and the range
// goes on past it.
func TestPollPagesARangeOverTheByteCap(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	repo := Repo{Ctx: "acme/pushed", Path: dir}
	g := Git{logBytes: 8 << 10}
	cur := mapCursors{}
	for i := range 2 {
		commitNumbered(t, dir, i, 200)
	}
	wantChanges(t, pollUntilQuiet(t, g, repo, cur, 3), 0, 2)
	for i := 2; i < 32; i++ {
		size := 1 << 10 // 30 KB in all: about four pages
		if i == 17 {
			size = 20 << 10 // over the cap by itself: indexed cut at it
		}
		commitNumbered(t, dir, i, size)
	}
	wantChanges(t, pollUntilQuiet(t, g, repo, cur, 12), 2, 32)
	if cur[CursorHead(repo.Ctx)] == "" {
		t.Fatal("head cursor unset after the range was indexed")
	}
}

// TestPollPagesARangeOverTheCommitCap: a push of more commits than one poll
// reads is indexed whole too, and a restart between pages (a new Git over
// the stored cursors) resumes where the last page ended, pushes made in
// the meantime following.
func TestPollPagesARangeOverTheCommitCap(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	repo := Repo{Ctx: "acme/pushed", Path: dir}
	cur := mapCursors{}
	commitNumbered(t, dir, 0, 10)
	wantChanges(t, pollUntilQuiet(t, Git{pageCommits: 4}, repo, cur, 3), 0, 1)
	for i := 1; i < 11; i++ {
		commitNumbered(t, dir, i, 10)
	}
	b, err := Git{pageCommits: 4}.Poll(context.Background(), repo, cur)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, ev := range b.Events {
		titles = append(titles, ev.Title)
	}
	wantChanges(t, titles, 1, 5)
	cur.apply(b)
	for i := 11; i < 14; i++ {
		commitNumbered(t, dir, i, 10) // pushed while the range is paged
	}
	wantChanges(t, pollUntilQuiet(t, Git{pageCommits: 4}, repo, cur, 8), 5, 14)
}
