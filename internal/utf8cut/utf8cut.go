// Package utf8cut shortens text to a number of bytes without splitting a
// character: the bounds aoi puts on what it stores, logs and sends are in
// bytes, and half a character would make the text invalid UTF-8.
package utf8cut

import "unicode/utf8"

// Prefix is s cut to at most n bytes, on a character boundary.
func Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Ellipsis is Prefix with "…" after it when s was cut (so a cut text says
// so); s itself when it fits.
func Ellipsis(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + "…"
}
