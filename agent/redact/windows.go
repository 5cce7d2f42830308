package redact

import (
	"strings"
	"unicode/utf8"
)

// A long text is redacted a window at a time. The rules' cost grows
// faster than the text on long runs of letters and digits (a base64 blob
// in a transcript, a peer's body of random characters): 16 KiB took about
// 5 ms, 400 KiB 5 s, a mebibyte would have taken half a minute of a core
// (BenchmarkRedactLongBlob). Windows overlap by more than any secret is
// long (an RSA-4096 PEM key is about 3.3 KiB), so a secret lies whole in
// at least one of them; what two windows both find is merged like any
// overlapping finding. A rule that reads context far above its match (a
// table's header over its rows) sees only its window.
const (
	windowBytes   = 16 << 10
	windowOverlap = 6 << 10
	// windowSlack is how far a window's edge moves to fall at a line's
	// end: a rule then starts and ends with whole lines where it can.
	windowSlack = 1 << 10
)

// windowedSpans finds the spans of a long text window by window, at their
// places in s.
func (r *Redactor) windowedSpans(s string) []span {
	var spans []span
	for _, w := range windows(s) {
		for _, sp := range r.spans(s[w.start:w.end]) {
			sp.start, sp.end = sp.start+w.start, sp.end+w.start
			spans = append(spans, sp)
		}
	}
	return spans
}

// window is a part of the text, s[start:end].
type window struct{ start, end int }

// windows cuts s into overlapping windows; a short text is one window.
func windows(s string) []window {
	var out []window
	start := 0
	for {
		end := start + windowBytes
		if end >= len(s) {
			return append(out, window{start, len(s)})
		}
		if i := strings.LastIndexByte(s[end-windowSlack:end], '\n'); i >= 0 {
			end = end - windowSlack + i + 1
		}
		end = runeStart(s, end)
		out = append(out, window{start, end})
		next := end - windowOverlap
		if i := strings.IndexByte(s[next:next+windowSlack], '\n'); i >= 0 {
			next += i + 1
		}
		start = runeStart(s, next)
	}
}

// runeStart moves i back to the first byte of the character it is in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
