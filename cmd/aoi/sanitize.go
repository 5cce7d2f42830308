package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/tui"
)

// sanitize makes peer-supplied text safe to print on a terminal, with the
// interface's sanitiser so every front end strips the same things (escape
// sequences including OSC 52, C1 controls, bidi overrides). keepNewlines
// keeps line breaks for multi-line text; otherwise the text stays on one
// table row.
func sanitize(s string, keepNewlines bool) string {
	if keepNewlines {
		return tui.SanitizeMultiline(s)
	}
	return tui.Sanitize(s)
}

// terminalSafeJSON rewrites the characters a terminal would act on or
// hide (C1 controls, DEL, bidi overrides, invisible format marks) as \u
// escapes in encoded JSON. json.Marshal escapes only C0 controls; these
// can appear only inside strings, where an escape decodes to the same
// value, so --json output stays exact and cannot drive the terminal.
func terminalSafeJSON(b []byte) []byte {
	if isPrintableText(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == '\n' || r == '\t' || strconv.IsPrint(r) || (r == utf8.RuneError && size == 1) {
			out = append(out, b[i:i+size]...)
		} else {
			for _, u := range utf16.Encode([]rune{r}) {
				out = fmt.Appendf(out, `\u%04x`, u)
			}
		}
		i += size
	}
	return out
}

// escapeHidden writes the characters a terminal would act on or hide as
// visible escapes (\x1b, \u202e), for exports that are plain text (CSV);
// newlines stay, as CSV quotes them.
func escapeHidden(s string) string {
	if isPrintableText([]byte(s)) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || strconv.IsPrint(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// isPrintableText reports whether b holds only printable characters,
// newlines and tabs (the common case, checked without allocating).
func isPrintableText(b []byte) bool {
	for i := 0; i < len(b); {
		if c := b[i]; c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if !strconv.IsPrint(r) {
			return false
		}
		i += size
	}
	return true
}

// safeJSONWriter passes encoded JSON on through terminalSafeJSON.
type safeJSONWriter struct{ w io.Writer }

func (s safeJSONWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(terminalSafeJSON(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
