package secretary

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHistoryProgress: after the first poll a long history reports the
// newest commits indexed out of all those inside the retention window;
// once the walk has read the rest it reports done, every commit indexed.
func TestHistoryProgress(t *testing.T) {
	dir := t.TempDir()
	r := &repoBuilder{t: t, dir: dir, when: testNow}
	r.git("init", "-q", "-b", "main")
	var s strings.Builder
	const n = 320 // one an hour, all inside the 30-day window
	for i := 0; i < n; i++ {
		when := testNow.Add(-time.Duration(n-i) * time.Hour)
		msg := fmt.Sprintf("change %d", i)
		fmt.Fprintf(&s, "commit refs/heads/main\ncommitter T <t@example.com> %d +0000\ndata %d\n%s\nM 644 inline f%03d.go\ndata 2\nx\n\n", when.Unix(), len(msg), msg, i)
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = strings.NewReader(s.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	r.git("checkout", "-q", "main")

	sec, _ := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(dir, filepath.Join(t.TempDir(), "none")))
	ctx := context.Background()
	h, err := sec.History(ctx)
	if err != nil || len(h) != 1 || h[0].Indexed != 0 || h[0].Total != n || h[0].Done {
		t.Fatalf("before the first poll: %+v, %v", h, err)
	}
	if err := sec.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	h, err = sec.History(ctx)
	if err != nil || h[0].Context != "acme/webapp" || h[0].Indexed != 200 || h[0].Total != n || h[0].Done {
		t.Fatalf("after the first poll: %+v, %v", h, err)
	}
	for i := 0; i < 3; i++ {
		if err := sec.PollNow(ctx); err != nil {
			t.Fatal(err)
		}
	}
	h, err = sec.History(ctx)
	if err != nil || !h[0].Done || h[0].Indexed != n || h[0].Total != n {
		t.Fatalf("after the walk: %+v, %v", h, err)
	}
	// A new commit counts once it is indexed, the same day (the walk's
	// status still said the old count).
	if err := os.WriteFile(filepath.Join(dir, "new.go"), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.git("add", "new.go")
	r.git("commit", "-q", "-m", "one more")
	if err := sec.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	if h, err = sec.History(ctx); err != nil || h[0].Total != n+1 || h[0].Indexed != n+1 {
		t.Fatalf("after one more commit: %+v, %v; want %d", h, err, n+1)
	}
}

// TestHistoryProgressSaysWhyAPollFailed: a repository git cannot read (here
// a folder that is no repository) shows why in the progress, and the
// reason goes away once the repository can be read.
func TestHistoryProgressSaysWhyAPollFailed(t *testing.T) {
	dir := t.TempDir()
	sec, _ := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(dir, filepath.Join(t.TempDir(), "none")))
	ctx := context.Background()
	if err := sec.PollNow(ctx); err == nil {
		t.Fatal("polling a folder that is no git repository succeeded")
	}
	h, err := sec.History(ctx)
	if err != nil || len(h) != 1 || h[0].Error == "" || h[0].Done {
		t.Fatalf("after a failed poll: %+v, %v", h, err)
	}
	r := &repoBuilder{t: t, dir: dir, when: testNow}
	r.git("init", "-q", "-b", "main")
	r.commit("first change", time.Minute, "a.go", "package a\n")
	if err := sec.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	if h, err = sec.History(ctx); err != nil || h[0].Error != "" {
		t.Fatalf("after a good poll: %+v, %v", h, err)
	}
}
