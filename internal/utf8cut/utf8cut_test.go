package utf8cut

import (
	"testing"
	"unicode/utf8"
)

func TestPrefixKeepsWholeCharacters(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"abc", 3, "abc"},
		{"abc", 2, "ab"},
		{"あいう", 4, "あ"}, // 3 bytes a character: the second would be split
		{"あいう", 6, "あい"},
		{"あいう", 2, ""},
		{"abc", 0, ""},
		{"abc", -1, ""},
	} {
		got := Prefix(c.in, c.n)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("Prefix(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestEllipsisSaysTheTextWasCut(t *testing.T) {
	if got := Ellipsis("あいう", 9); got != "あいう" {
		t.Errorf("a text that fits = %q", got)
	}
	if got := Ellipsis("あいう", 7); got != "あい…" {
		t.Errorf("a cut text = %q, want あい…", got)
	}
}
