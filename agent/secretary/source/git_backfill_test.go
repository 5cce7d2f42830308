package source

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// fastImport builds a linear history of n commits, one a day ending today,
// each adding its own file, then a side branch merged into main.
func fastImport(t *testing.T, dir string, n int, now time.Time) {
	t.Helper()
	gitIn(t, dir, "init", "-q", "-b", "main")
	var s strings.Builder
	mark := 0
	commit := func(branch, msg, file string, when time.Time, from string, merge string) {
		mark++
		fmt.Fprintf(&s, "commit refs/heads/%s\nmark :%d\ncommitter T <t@example.com> %d +0000\ndata %d\n%s\n", branch, mark, when.Unix(), len(msg), msg)
		if from != "" {
			fmt.Fprintf(&s, "from %s\n", from)
		}
		if merge != "" {
			fmt.Fprintf(&s, "merge %s\n", merge)
		}
		body := "content of " + file + "\n"
		fmt.Fprintf(&s, "M 644 inline %s\ndata %d\n%s\n", file, len(body), body)
	}
	for i := 0; i < n; i++ {
		commit("main", fmt.Sprintf("change %d", i), fmt.Sprintf("f%03d.go", i), now.Add(-time.Duration(n-i)*24*time.Hour), "", "")
	}
	main := mark
	commit("side", "side work on the exporter", "export/csv.go", now.Add(-2*time.Hour), fmt.Sprintf(":%d", main), "")
	commit("main", "Merge branch 'side'", "export/csv.go", now.Add(-time.Hour), fmt.Sprintf(":%d", main), fmt.Sprintf(":%d", mark))
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = strings.NewReader(s.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	gitIn(t, dir, "checkout", "-q", "main")
}

// TestGitIndexesWholeHistoryWithinRetention: the first poll indexes the
// newest commits, later polls walk back through the rest of the retention
// window without repeating a commit, then stop; merges carry the files
// their first-parent diff touched.
func TestGitIndexesWholeHistoryWithinRetention(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	fastImport(t, dir, 500, now) // 500 daily commits, then a merged side branch
	repo := Repo{Ctx: "acme/big", Path: dir}
	cur := mapCursors{}
	g := Git{Since: now.Add(-400 * 24 * time.Hour)}

	seen := map[string]int{}
	var mergeFiles []string
	var last time.Time // the time of the previous event, in storing order
	for poll := 0; poll < 10; poll++ {
		b, err := g.Poll(context.Background(), repo, cur)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range b.Events {
			// The first poll stores the newest commits oldest first; the
			// backfill then goes on back in time, newest first, each
			// event Earlier (stored below every id).
			if ev.Earlier != (poll > 0) || poll > 0 && ev.TS.After(last) {
				t.Fatalf("poll %d: event %s at %v (earlier %v) after one at %v", poll, ev.Key, ev.TS, ev.Earlier, last)
			}
			last = ev.TS
			seen[ev.Key]++
			if strings.HasPrefix(ev.Title, "Merge branch") {
				files, _ := ev.Meta["files"].([]FileStat)
				for _, f := range files {
					mergeFiles = append(mergeFiles, f.Path)
				}
			}
		}
		cur.apply(b)
		if _, p, _ := ParseBackfill(cur[CursorBackfill(repo.Ctx)]); p.Done {
			break
		}
	}
	if _, p, _ := ParseBackfill(cur[CursorBackfill(repo.Ctx)]); !p.Done {
		t.Fatalf("history walk not done after 10 polls: cursor %q", cur[CursorBackfill(repo.Ctx)])
	}
	// Inside 400 days: the newest 399 or 400 daily commits, the side commit and the merge.
	if len(seen) < 400 || len(seen) > 402 {
		t.Fatalf("indexed %d distinct commits, want the ~401 inside the window", len(seen))
	}
	for sha, n := range seen {
		if n != 1 {
			t.Fatalf("commit %s indexed %d times", sha, n)
		}
	}
	if !containsStr(mergeFiles, "export/csv.go") {
		t.Fatalf("merge indexed with files %v, want the side branch's export/csv.go (first-parent diff)", mergeFiles)
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestGitWalkGoesPastACommitLargerThanTheCap: a commit whose patch alone is
// over maxLogBytes (a big merge, a vendored dependency) is indexed and the
// history walk goes on to the commits before it, instead of ending there.
func TestGitWalkGoesPastACommitLargerThanTheCap(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	gitIn(t, dir, "init", "-q", "-b", "main")
	var s strings.Builder
	add := func(i int, msg, file, body string) {
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter T <t@example.com> %d +0000\ndata %d\n%s\n", i+1, now.Add(-time.Duration(10-i)*time.Hour).Unix(), len(msg), msg)
		if i > 0 {
			fmt.Fprintf(&s, "from :%d\n", i)
		}
		fmt.Fprintf(&s, "M 644 inline %s\ndata %d\n%s\n", file, len(body), body)
	}
	for i := 0; i < 4; i++ {
		add(i, fmt.Sprintf("older change %d", i), fmt.Sprintf("old%d.go", i), "package old\n")
	}
	var big strings.Builder
	for big.Len() <= maxLogBytes {
		fmt.Fprintf(&big, "generated line %d of the vendored library\n", big.Len())
	}
	add(4, "Vendor the big library", "vendor/big.txt", big.String())
	for i := 5; i < 8; i++ {
		add(i, fmt.Sprintf("newer change %d", i), fmt.Sprintf("new%d.go", i), "package newer\n")
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = strings.NewReader(s.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	gitIn(t, dir, "checkout", "-q", "main")

	repo := Repo{Ctx: "acme/vendored", Path: dir}
	cur := mapCursors{}
	g := Git{Since: now.Add(-30 * 24 * time.Hour)}
	titles := map[string]bool{}
	for poll := 0; poll < 6; poll++ {
		b, err := g.Poll(context.Background(), repo, cur)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range b.Events {
			if ev.Kind == "commit" {
				titles[ev.Title] = true
			}
		}
		cur.apply(b)
	}
	for _, want := range []string{"newer change 7", "Vendor the big library", "older change 0"} {
		if !titles[want] {
			t.Fatalf("commit %q not indexed; indexed %v", want, titles)
		}
	}
	if len(titles) != 8 {
		t.Fatalf("indexed %d commits, want all 8: %v", len(titles), titles)
	}
}
