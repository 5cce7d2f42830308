package store

import (
	"context"
	"testing"
	"time"
)

// A name spelled like an inflected form of the asked word (Windows for
// window) counts as a match inside a longer word when the search says so:
// a newer Windows commit no longer outranks an older one about a window.
func TestSearchContextTellsANameFromTheWord(t *testing.T) {
	db := openContextDB(t)
	h := func(n int) time.Time { return ctxTestNow.Add(-time.Duration(n) * time.Hour) }
	insertEvents(t, db,
		ContextEvent{Source: "git", Kind: "commit", Key: "os", Title: "Fix path handling on Windows", Body: "files: src/windows.rs (+10 -2)", TS: h(1)},
		ContextEvent{Source: "git", Kind: "commit", Key: "ci", Title: "Bump CI runners", Body: "runs-on: windows-latest\nfiles: .github/workflows/ci.yml (+1 -1)", TS: h(2)},
		ContextEvent{Source: "git", Kind: "commit", Key: "slide", Title: "Count requests over a sliding window", Body: "files: src/limiter.rs (+40 -0)", TS: h(90)},
		ContextEvent{Source: "git", Kind: "commit", Key: "ja", Title: "ウィンドウの位置を保存する", Body: "files: src/ui.rs (+5 -0)", TS: h(30)},
	)
	search := func(c ContextConcept) []string {
		t.Helper()
		hits, err := db.SearchContext(context.Background(), ContextSearch{Concepts: []ContextConcept{c}})
		if err != nil {
			t.Fatal(err)
		}
		return hitKeys(hits)
	}
	window := ContextConcept{Forms: []string{"window", "ウィンドウ"}, Weights: []float64{1, 0.5}}
	// Without names the newest match of "window" leads: the Windows fix.
	if got := search(window); len(got) == 0 || got[0] != "os" {
		t.Fatalf("window without names = %v, want the Windows commit first (the case it fixes)", got)
	}
	window.Names = []Name{{Word: "Windows", Lower: true}}
	got := search(window)
	if len(got) != 4 || got[0] != "slide" {
		t.Errorf("window with the name Windows = %v, want slide first and all four found", got)
	}
	// The Japanese form still finds the Japanese commit, ahead of both
	// Windows commits.
	if pos(got, "ja") > pos(got, "os") || pos(got, "ja") > pos(got, "ci") {
		t.Errorf("window with names = %v, want ja before os and ci", got)
	}
	// Asking for the name as written finds it as before.
	if got := search(ContextConcept{Forms: []string{"windows"}}); len(got) != 2 || got[0] != "os" {
		t.Errorf("windows = %v, want [os ci]", got)
	}
}

func pos(keys []string, k string) int {
	for i, x := range keys {
		if x == k {
			return i
		}
	}
	return len(keys)
}

func TestNameOnly(t *testing.T) {
	names := []Name{{Word: "Windows", Lower: true}, {Word: "Actions"}}
	for _, c := range []struct {
		text, term string
		want       bool
	}{
		{"Fix the Windows build", "window", true},
		{"Windows: quote paths", "window", true},
		{"target x86_64-pc-windows-msvc", "window", true},
		{"#[cfg(windows)]", "window", true},
		{"Use a sliding window", "window", false},
		{"Close all windows on exit", "window", false}, // the plural of the word
		{"Windows and the window title", "window", false},
		{"Update GitHub Actions", "action", true},
		{"bump actions/checkout", "action", false}, // Actions is a name only capitalised
		{"Add undo action", "action", false},
		{"nothing here", "window", false},
		{"ウィンドウ", "ウィンドウ", false},
	} {
		if got := NameOnly(c.text, c.term, names); got != c.want {
			t.Errorf("NameOnly(%q, %q) = %v, want %v", c.text, c.term, got, c.want)
		}
	}
	if NameOnly("Fix the Windows build", "window", nil) {
		t.Error("NameOnly without names = true, want false")
	}
}
