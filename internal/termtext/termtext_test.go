package termtext

import (
	"strings"
	"testing"
	"unicode"
)

// TestVisibleIsWhatAReaderSees: joiners, variation selectors, carriage
// returns, invisible format marks and escape sequences are dropped, so
// text split by any of them reads whole; HasHidden finds each of them.
func TestVisibleIsWhatAReaderSees(t *testing.T) {
	for _, sep := range []string{"\u200d", "\u200c", "\u034f", "\ufe0f", "\r", "\u200b", "\u00ad", "\x1b[0m", "\u009b31m",
		"\u180b", "\u180f", "\u17b4", "\u115f", "\u1160", "\u3164", "\uffa0", "\u2065", "\ufff0", "\U000e0080", "\U000e0041", "\u200d\u180b"} {
		split := "ghp_u8jz" + sep + "Pde0IgxL"
		if got := Visible(split); got != "ghp_u8jzPde0IgxL" {
			t.Errorf("%q: Visible = %q", sep, got)
		}
		if !HasHidden([]byte(split)) {
			t.Errorf("%q: HasHidden = false", sep)
		}
	}
	for _, plain := range []string{"how is auth going?", "認証の進捗は？\nつぎ", "a\tb"} {
		if HasHidden([]byte(plain)) {
			t.Errorf("%q: HasHidden = true", plain)
		}
	}
}

// TestQuoteRedactsBeforeItCuts: a secret across the cut is redacted whole
// (cut first, its start would stay, no longer recognisable); the quote is
// one line and at most n characters.
func TestQuoteRedactsBeforeItCuts(t *testing.T) {
	// A stand-in for a redactor: a long block it shrinks, and a secret.
	redact := func(s string) string {
		s = strings.ReplaceAll(s, strings.Repeat("P", 20000), "[KEY]")
		return strings.ReplaceAll(s, "SECRETSECRET", "[REDACTED]")
	}
	got := Quote("no "+strings.Repeat("P", 20000)+" SECRET\u200dSECRET\nnext line", 300, redact)
	if got != "no [KEY] [REDACTED] next line" {
		t.Errorf("Quote = %q", got)
	}
	if got := Quote(strings.Repeat("x", 500), 300, nil); len([]rune(got)) != 301 || !strings.HasSuffix(got, "…") {
		t.Errorf("a long quote is %d characters", len([]rune(got)))
	}
}

// TestFastPathsSkipNothingHidden: the ranges invisible and HasHidden pass
// without a table lookup hold none of the characters they look for, in
// this Go's Unicode tables.
func TestFastPathsSkipNothingHidden(t *testing.T) {
	ignorable := func(r rune) bool {
		return unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
			r == '\u200c' || r == '\u200d'
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		cjk := r > '\u3164' && r < '\ufe00'
		if (r < '\u034f' || cjk) && ignorable(r) {
			t.Errorf("invisible skips %U", r)
		}
		if cjk && unicode.Is(unicode.Cf, r) {
			t.Errorf("HasHidden skips %U", r)
		}
	}
}

// TestKeptWholeMeansUnchanged: wherever keptWhole lets sanitize return its
// input at once, the rune-by-rune rewrite would have given the same text,
// for every rune on both kinds of view.
func TestKeptWholeMeansUnchanged(t *testing.T) {
	rewrite := func(s string, multiline bool) string {
		return sanitize("\x00"+s, multiline)[len("␀"):] // a control forces the rewrite
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		s := "a" + string(r) + "日"
		for _, multiline := range []bool{false, true} {
			if keptWhole(s, multiline) && rewrite(s, multiline) != s {
				t.Errorf("%U (multiline %v): kept whole, but the rewrite gives %q", r, multiline, rewrite(s, multiline))
			}
		}
	}
	for _, s := range []string{"認証機能の進捗は？ how is auth going?", "line\nbreak", "bad \xff byte"} {
		if got, want := sanitize(s, false), rewrite(s, false); got != want {
			t.Errorf("sanitize(%q) = %q, the rewrite gives %q", s, got, want)
		}
	}
	if !keptWhole("認証機能の進捗は？ how is auth going?", false) {
		t.Error("a plain Japanese question is not kept whole: it takes the slow path")
	}
}
