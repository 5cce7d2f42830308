// Package termtext makes text from elsewhere (a peer, a repository) safe to
// show on a terminal. The interface, the CLI and the asker (which redacts
// a peer's answer as it will be shown, so that a secret split by an
// escape sequence or an invisible mark is seen whole) share it.
package termtext

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tabWidth is how many spaces a tab from a peer becomes.
const tabWidth = 4

// Sanitize makes peer-supplied text safe to print on one line: every escape
// sequence (CSI, OSC including OSC 52 clipboard writes, DCS, APC, PM, SOS,
// and two-byte ESC sequences) and every C1 control is removed, carriage
// returns are dropped, tabs and newlines become spaces, other C0 controls
// are shown as control pictures (␀…␟, ␡), and bidi overrides, isolates and
// invisible format characters that could spoof the display are removed.
func Sanitize(s string) string {
	return sanitize(s, false)
}

// QuoteHidden shows a value that must be read exactly, such as an argument
// an approval will run: when it holds anything Sanitize would hide or drop
// (controls, escapes, bidi overrides, invisible marks: none of them
// printable), it is quoted with those written as escapes (\u202e, \x1b),
// so what the owner sees maps one to one to what runs. Other values are
// returned as they are.
func QuoteHidden(s string) string {
	for _, r := range s {
		if !strconv.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}

// SanitizeMultiline is Sanitize for views that show several lines: newlines
// are kept, everything else is treated as in Sanitize.
func SanitizeMultiline(s string) string {
	return sanitize(s, true)
}

func sanitize(s string, multiline bool) string {
	if IsPlain(s) || keptWhole(s, multiline) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			i = skipEscape(s, i+1)
			continue
		case r >= 0x80 && r <= 0x9f:
			i = skipC1(s, r, i+size)
			continue
		case r == '\n' || r == '\u2028' || r == '\u2029':
			if multiline {
				b.WriteByte('\n')
			} else {
				b.WriteByte(' ')
			}
		case r == '\t':
			b.WriteString(strings.Repeat(" ", tabWidth))
		case r == '\r':
			// dropped: a bare CR would move the cursor back over our frame
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('\u2421')
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case spoofing(r):
			// dropped
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// keptWhole reports whether sanitize keeps every rune of s as it is, as
// it does for most text with letters beyond ASCII (a question in
// Japanese): then s is returned without a copy built rune by rune.
func keptWhole(s string, multiline bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && !(multiline && c == '\n')) || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r > '\u3164' && r < '\ufe00' {
			continue // kana, kanji, hangul syllables: all kept
		}
		if r == utf8.RuneError && size == 1 || r <= 0x9f || r == '\u2028' || r == '\u2029' || spoofing(r) {
			return false
		}
	}
	return true
}

// HasHidden reports whether b holds anything that does not show: an
// escape sequence's ESC, a carriage return, a C1 control, an invisible
// format mark, a joiner or a variation selector. Text split by one of
// them reads joined up on a screen, so a redactor must look at it as
// Visible makes it too.
func HasHidden(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c == 0x1b || c == '\r' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if r > '\u3164' && r < '\ufe00' {
			continue // kana, kanji, hangul syllables: nothing hidden there
		}
		if r >= 0x80 && r <= 0x9f || spoofing(r) || invisible(r) {
			return true
		}
	}
	return false
}

// Visible is the text a reader sees of s, on one line: Sanitize, less the
// characters Sanitize keeps for the scripts and emoji that need them but
// that show nothing themselves (joiners, variation selectors). It is what
// a redactor must look at: a secret split by any hidden character reads
// whole on a screen.
func Visible(s string) string { return dropInvisible(Sanitize(s)) }

// VisibleMultiline is Visible keeping newlines.
func VisibleMultiline(s string) string { return dropInvisible(SanitizeMultiline(s)) }

// Quote is another party's text as a notice or a note quotes it: on one
// line as a reader sees it (Visible, so a secret split by a hidden
// character is seen whole), passed through redact (nil: none), then cut
// to at most n characters. Redacted whole before the cut: a cut first
// could leave the part of a secret the redactor no longer recognises.
func Quote(s string, n int, redact func(string) string) string {
	s = Visible(s)
	if redact != nil {
		s = redact(s)
	}
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n]) + "…"
	}
	return s
}

func dropInvisible(s string) string {
	if IsPlain(s) || !strings.ContainsFunc(s, invisible) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, s)
}

// invisible reports the default-ignorable characters Sanitize keeps:
// the joiners (U+200C, U+200D), the variation selectors (Mongolian ones
// included) and the rest Unicode lists as ignorable (the combining
// grapheme joiner, Hangul fillers, Khmer inherent vowels, unassigned
// ignorables). They show nothing, so text split by one reads whole.
func invisible(r rune) bool {
	if r < '\u034f' || r > '\u3164' && r < '\ufe00' {
		return false // none lies there: Latin, kana, kanji and hangul syllables pass at once
	}
	return r == '\u200c' || r == '\u200d' || unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// IsPlain reports whether s is printable ASCII only, the common case.
func IsPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// spoofing reports invisible format characters that reorder or hide text:
// bidi embeddings, overrides and isolates, marks, zero-width spaces, the BOM,
// and the rest of Unicode category Cf except the joiners emoji and some
// scripts need.
func spoofing(r rune) bool {
	if r == '\u200c' || r == '\u200d' {
		return false
	}
	return unicode.Is(unicode.Cf, r)
}

// skipEscape returns the index after the escape sequence whose ESC was just
// before i. An unterminated string sequence swallows the rest of the text.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', '_', '^', 'X':
		return skipString(s, i+1)
	}
	// nF sequences: intermediates 0x20–0x2F, then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipC1 handles a C1 control given as a Unicode code point: the 8-bit
// forms of CSI, OSC, DCS, SOS, PM and APC start sequences; the others are
// single controls.
func skipC1(s string, r rune, i int) int {
	switch r {
	case 0x9b:
		return skipCSI(s, i)
	case 0x9d, 0x90, 0x98, 0x9e, 0x9f:
		return skipString(s, i)
	}
	return i
}

// skipCSI skips parameter and intermediate bytes up to the final byte.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		i++
		if c >= 0x40 && c <= 0x7e {
			return i
		}
		if c >= 0x80 {
			return i - 1 // not part of the sequence: keep the character
		}
		if c < 0x20 || c == 0x7f {
			return i // a control inside CSI aborts it; drop both
		}
	}
	return i
}

// skipString skips a control string (OSC, DCS, SOS, PM, APC) up to its
// terminator: BEL, ESC \ or the 8-bit ST (U+009C).
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
		i++
	}
	return i
}
