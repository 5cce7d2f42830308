package main

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestTableAlignsWideText: a Japanese cell (two terminal cells a
// character) keeps the columns after it under their headers, and cell cuts
// by terminal cells, not runes.
func TestTableAlignsWideText(t *testing.T) {
	var b strings.Builder
	table(&b, []string{"FROM", "ABOUT", "RECEIVED"}, [][]string{
		{"pm-tanaka", "“認証機能の進捗とブロック要因は？”", "10:02:11"},
		{"qa-ito", "“is the auth work done?”", "10:03:40"},
	})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	col := func(line, word string) int { return ansi.StringWidth(line[:strings.Index(line, word)]) }
	want := col(lines[0], "RECEIVED")
	for _, l := range lines[1:] {
		if got := col(l, "10:0"); got != want {
			t.Errorf("RECEIVED starts at cell %d under a header at %d:\n%s", got, want, b.String())
		}
	}
	if got := cell("認証機能の進捗とブロック要因", 10); ansi.StringWidth(got) > 10 || !strings.HasSuffix(got, "…") {
		t.Errorf("cell cut to 10 cells = %q (%d cells)", got, ansi.StringWidth(got))
	}
}
