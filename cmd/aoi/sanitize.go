package main

import (
	"strings"
	"unicode/utf8"
)

// sanitize makes peer-supplied text safe to print on a terminal: escape
// sequences (CSI, OSC — including OSC 52 clipboard writes — DCS, SOS, PM,
// APC and two-byte ESC sequences) are removed, other C0/C1 controls and
// bidirectional overrides are dropped, and invalid UTF-8 becomes U+FFFD.
// Newlines and tabs survive only when keepNewlines is set; otherwise they
// become spaces so a value stays on its table row.
func sanitize(s string, keepNewlines bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
		case r == 0x1b:
			i += escapeLen(s[i:])
			continue
		case r == 0x9b || r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f:
			// 8-bit CSI, OSC, DCS, SOS, PM, APC introducers.
			i += size + stringBodyLen(s[i+size:], r == 0x9b)
			continue
		case r == '\n' || r == '\t':
			if keepNewlines {
				b.WriteRune(r)
			} else {
				b.WriteByte(' ')
			}
		case r == '\r':
			// dropped: a bare CR would let text overwrite the line.
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			// other controls are dropped.
		case isBidiControl(r):
			// dropped: they reorder what the reader sees.
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// escapeLen returns how many bytes of s (which starts with ESC) form one
// escape sequence.
func escapeLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		return 2 + stringBodyLen(s[2:], true)
	case ']', 'P', 'X', '^', '_':
		return 2 + stringBodyLen(s[2:], false)
	default:
		// ESC plus intermediates (0x20–0x2f) plus one final byte.
		n := 1
		for n < len(s) && s[n] >= 0x20 && s[n] <= 0x2f {
			n++
		}
		if n < len(s) {
			n++
		}
		return n
	}
}

// stringBodyLen measures the body of a control sequence after its
// introducer. A CSI ends at its final byte (0x40–0x7e); the string
// sequences (OSC, DCS, …) end at BEL, ST (ESC \) or 8-bit ST. An
// unterminated sequence swallows the rest of the text, which is what a
// terminal would do too.
func stringBodyLen(s string, csi bool) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if csi {
			if c >= 0x40 && c <= 0x7e {
				return i + 1
			}
			if c < 0x20 || c > 0x3f {
				return i // malformed: stop before the stray byte
			}
			continue
		}
		switch {
		case c == 0x07:
			return i + 1
		case c == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case c == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c: // U+009C ST
			return i + 2
		}
	}
	return len(s)
}

// isBidiControl reports the Unicode bidirectional embedding, override and
// isolate controls ("Trojan Source").
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}
