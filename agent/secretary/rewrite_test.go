package secretary

import (
	"context"
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
