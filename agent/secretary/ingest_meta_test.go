package secretary

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/store"
)

// TestACommitOfLongPathsIsIndexed: a commit touching forty files with long
// paths (a UI kit's deep component folders) made an event meta over the
// store's 8 KB, and the store refused the whole batch: the poll failed on
// every try and the repository's history was never indexed. Now the meta
// lists the files that fit and counts the rest.
func TestACommitOfLongPathsIsIndexed(t *testing.T) {
	dir := t.TempDir()
	r := &repoBuilder{t: t, dir: dir, when: testNow.Add(-48 * time.Hour)}
	r.git("init", "-q", "-b", "main")
	r.commit("first: add the readme", time.Hour, "README.md", "hello\n")
	deep := strings.Repeat("ComponentsWithAVeryLongFolderName/", 6)
	var files []string
	for i := range 40 {
		files = append(files, fmt.Sprintf("src/%sWidget%02dStateMachineImplementation.vue", deep, i), "<template/>\n")
	}
	r.commit("refactor: move the widgets", time.Hour, files...)

	sec, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(dir, filepath.Join(t.TempDir(), "none")))
	if err := sec.PollNow(context.Background()); err != nil {
		t.Fatalf("poll: %v", err)
	}
	evs, err := db.RecentContext(context.Background(), store.ContextRecent{Kinds: []string{"commit"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || !strings.Contains(evs[0].Meta, `"files_more":`) {
		t.Fatalf("indexed %d commits (want 2)", len(evs))
	}
}
