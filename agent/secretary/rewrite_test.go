package secretary

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/store"
)

// TestAmendedCommitLeavesTheMirror: after an amend the mirror holds the
// amended commit only, not the one it replaced (whose SHA no branch has).
func TestAmendedCommitLeavesTheMirror(t *testing.T) {
	r := &repoBuilder{t: t, dir: t.TempDir(), when: testNow.Add(-2 * time.Hour)}
	r.git("init", "-q", "-b", "main")
	r.write("cache.go", "package cache\n")
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "cache: add an LRU")
	r.write("cache.go", "package cache\n\n// Size is the LRU's size.\nconst Size = 128\n")
	r.git("commit", "-q", "-am", "cache: size it")
	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(r.dir, filepath.Join(t.TempDir(), "none")))
	ctx := context.Background()
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	old := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	r.when = r.when.Add(time.Hour)
	r.git("commit", "-q", "--amend", "-m", "cache: size the LRU at 128")
	amended := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	evs, err := db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"commit"}})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range evs {
		keys = append(keys, e.Key)
	}
	if len(keys) != 2 || !slices.Contains(keys, amended) || slices.Contains(keys, old) {
		t.Fatalf("commits in the mirror %q; want the first and the amended %s, not %s", keys, amended, old)
	}
}

// TestRewriteCollectedIndexesNoCommitTwice: when every commit the mirror
// knew as a tip is gone (amended, then the reflog expired and collected,
// or the checkout cloned again), the newest commits are indexed afresh;
// those the mirror already holds are not indexed a second time, and those
// the repository no longer has leave the mirror.
func TestRewriteCollectedIndexesNoCommitTwice(t *testing.T) {
	r := &repoBuilder{t: t, dir: t.TempDir(), when: testNow.Add(-5 * time.Hour)}
	r.git("init", "-q", "-b", "main")
	for i := range 4 {
		r.commit(fmt.Sprintf("step %d", i), time.Minute, fmt.Sprintf("f%d.go", i), "package f\n")
	}
	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(r.dir, filepath.Join(t.TempDir(), "none")))
	ctx := context.Background()
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	r.git("commit", "-q", "--amend", "-m", "step 3, reworded")
	r.git("reflog", "expire", "--expire=now", "--all")
	r.git("gc", "-q", "--prune=now")
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	evs, err := db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"commit"}})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range evs {
		count[e.Title]++
	}
	for _, title := range []string{"step 0", "step 1", "step 2", "step 3, reworded"} {
		if count[title] != 1 {
			t.Fatalf("commit %q stored %d times; all: %v", title, count[title], count)
		}
	}
	if count["step 3"] != 0 {
		t.Fatalf("the amended-away commit, collected since, is still in the mirror: %v", count)
	}
}

// TestBigPushIsIndexedWholeAcrossARestart: a push of more commits than a
// poll reads (500) is indexed over two polls with a restart between them
// (a new secretary over the same database), every commit once.
func TestBigPushIsIndexedWholeAcrossARestart(t *testing.T) {
	r := &repoBuilder{t: t, dir: t.TempDir(), when: testNow.Add(-48 * time.Hour)}
	r.git("init", "-q", "-b", "main")
	r.commit("initial import", time.Minute, "README.md", "hello\n")
	dbPath := filepath.Join(t.TempDir(), "aoi.db")
	cfg := testConfig(r.dir, filepath.Join(t.TempDir(), "none"))
	s, db := newTestSecretary(t, dbPath, cfg)
	ctx := context.Background()
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	var imp strings.Builder
	for i := range 600 {
		msg := fmt.Sprintf("vendored change %d", i)
		fmt.Fprintf(&imp, "commit refs/heads/main\ncommitter T <t@example.com> %d +0000\ndata %d\n%s\n", r.when.Add(time.Duration(i)*time.Minute).Unix(), len(msg), msg)
		if i == 0 {
			imp.WriteString("from refs/heads/main^0\n")
		}
		body := fmt.Sprintf("package v%d\n", i)
		fmt.Fprintf(&imp, "M 644 inline vendor/v%03d.go\ndata %d\n%s\n", i, len(body), body)
	}
	cmd := exec.Command("git", "-C", r.dir, "fast-import", "--quiet")
	cmd.Stdin = strings.NewReader(imp.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	r.git("reset", "-q", "--hard", "main")
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	s2, err := New(db, cfg, s.redactor(), Options{Now: s.now})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s2.PollNow(ctx); err != nil {
			t.Fatal(err)
		}
	}
	evs, err := db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"commit"}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range evs {
		count[e.Title]++
	}
	if len(evs) != 601 || len(count) != 601 {
		t.Fatalf("%d commit events, %d distinct; want the 601 commits once each", len(evs), len(count))
	}
}
