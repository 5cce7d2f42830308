package secretary

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/aoi-protocol/aoi/store"
)

// TestAWindowIsNotWindows: the index lower-cases commit text, so "window"
// met every commit about the Windows port (and its build targets), newer
// ones first. A question asking about a window in lower case, in English
// or Japanese, is answered by the commit about a window; one naming
// Windows still by the Windows commits.
func TestAWindowIsNotWindows(t *testing.T) {
	dir := t.TempDir()
	_, sha, step := historyRepo(t, dir)
	step("limiter: make the window size configurable", "limiter.go")
	step("Raise the stack size on Windows", "main.rs")
	step("ci: build x86_64-pc-windows-msvc binaries with a larger stack size", "ci.yml")
	step("Quote paths on Windows", "path.rs")

	s, _ := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(dir, filepath.Join(t.TempDir(), "none")))
	ctx := context.Background()
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{
		"what happened to the window size?":           sha["limiter: make the window size configurable"],
		"ウィンドウサイズは変えられるようになった?":                       sha["limiter: make the window size configurable"],
		"what happened to the stack size on Windows?": sha["Raise the stack size on Windows"],
		"Windows のスタックサイズは上がった?":                      sha["Raise the stack size on Windows"],
		"Windows のパスのクォートは直った?":                       sha["Quote paths on Windows"],
	} {
		a, err := s.Answer(ctx, Question{Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if got := refsOf(a, "commit"); len(got) == 0 || got[0] != want {
			t.Errorf("%q: commits %q, want %s first", q, got, want)
		}
	}
	// The Windows commit does not cover a lower-case window, so it alone
	// cannot make an answer about windows look sure; asked about Windows,
	// it covers the whole question.
	hit := store.ContextHit{Kind: "commit", Title: "Quote paths on Windows", Body: "files: path.rs (+1 -0)"}
	if c := coverage(hit, parseQuery("did the window paths get quoted?")); c >= 1 {
		t.Errorf("coverage of a window question by a Windows commit = %v, want below 1", c)
	}
	if c := coverage(hit, parseQuery("did the Windows paths get quoted?")); c != 1 {
		t.Errorf("coverage of a Windows question by a Windows commit = %v, want 1", c)
	}
}
