package tui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// wrapLines is ansi.Wrap's lines of s, broken after spaces and slashes.
func wrapLines(s string, w int) []string { return strings.Split(ansi.Wrap(s, w, " /"), "\n") }

// kinsokuWrap is wrapLines with the usual Japanese line-breaking rules
// (kinsoku): a line does not start with closing punctuation (、。）」』！？
// and the like), nor end with an opening bracket (「『（【 and the like).
// Closing characters stay at the end of the line before when they fit
// there, or the last character of that line moves down with them; an
// opening bracket moves down to the text it opens. ansi.Wrap breaks a
// run of CJK text wherever the width runs out, which put "、決済…" at
// the start of a line of the answer dialog and "「" at the end of one.
func kinsokuWrap(s string, w int) []string {
	var out []string
	for range len(s) { // every round consumes at least one byte of s
		lines := wrapLines(s, w)
		starts, ok := lineStarts(s, lines)
		if !ok {
			return append(out, lines...) // ansi.Wrap changed the text: keep its lines
		}
		i := badBreak(s, lines, starts, w)
		if i < 0 {
			return append(out, lines...)
		}
		line, next, ok := mendBreak(s, lines, starts, i, w)
		if ok {
			out = append(append(out, lines[:i-1]...), line)
		} else { // nothing can move: the line before is all closing punctuation
			out, next = append(out, lines[:i]...), starts[i]
		}
		if s = nextLine(s[next:]); s == "" {
			return out
		}
	}
	return append(out, wrapLines(s, w)...)
}

// lineStarts finds where each line of the wrapped s starts in s; ok is
// false when the lines are not pieces of s in order, apart from the
// spaces and newlines a wrap drops.
func lineStarts(s string, lines []string) (starts []int, ok bool) {
	pos := 0
	for _, l := range lines {
		k := strings.Index(s[pos:], l)
		if k < 0 || strings.TrimLeft(s[pos:pos+k], " \n") != "" {
			return nil, false
		}
		starts = append(starts, pos+k)
		pos += k + len(l)
	}
	return starts, true
}

// badBreak is the first line the wrap started with closing punctuation,
// or ended the line before with an opening bracket right against it, or
// moved down whole a run of CJK text that the line before has room to
// start (fillCut); -1 when there is none. A line after a newline of the
// text is not a break of the wrap.
func badBreak(s string, lines []string, starts []int, w int) int {
	for i := 1; i < len(lines); i++ {
		gap := s[starts[i-1]+len(lines[i-1]) : starts[i]]
		switch {
		case strings.Contains(gap, "\n"):
		case closingPrefix(lines[i]) != "":
			return i
		case gap == "" && openingSuffix(lines[i-1]) != "":
			return i
		case fillCut(lines[i], w-width(s[starts[i-1]:starts[i]])) > 0:
			return i
		}
	}
	return -1
}

// fillCut is how much of line's leading run of wide (CJK) characters
// fits in room cells, cut between two of them where the line-breaking
// rules allow it; 0 when none fits. ansi.Wrap moves such a run, which
// may break between any two characters, down whole like a long word: a
// message "PR #42 のレビューを…" showed "PR #42" alone on its first line.
func fillCut(line string, room int) int {
	cut, used := 0, 0
	for i, r := range line {
		if used += width(string(r)); used > room || width(string(r)) != 2 {
			break
		}
		next, size := utf8.DecodeRuneInString(line[i+utf8.RuneLen(r):])
		if size > 0 && width(string(next)) == 2 && !isClosing(next) && !isOpening(r) {
			cut = i + utf8.RuneLen(r)
		}
	}
	return cut
}

// mendBreak mends the break before line i: the line before takes the
// closing punctuation when it still fits in w, else it gives its last
// character (its last word, when the wrap broke at a space) to the next
// line, with any opening bracket before that character. It returns the
// mended line before and where in s the text after it starts.
func mendBreak(s string, lines []string, starts []int, i, w int) (line string, next int, ok bool) {
	gap := s[starts[i-1]+len(lines[i-1]) : starts[i]]
	switch {
	case closingPrefix(lines[i]) != "":
	case gap == "" && openingSuffix(lines[i-1]) != "":
		return keepBefore(lines[i-1], starts[i-1], len(lines[i-1])-len(openingSuffix(lines[i-1])))
	default: // the line before takes the start of a CJK run
		cut := fillCut(lines[i], w-width(s[starts[i-1]:starts[i]]))
		return s[starts[i-1] : starts[i]+cut], starts[i] + cut, true
	}
	end := starts[i] + len(closingPrefix(lines[i]))
	if joined := s[starts[i-1]:end]; width(joined) <= w {
		return joined, end, true
	}
	prev := lines[i-1]
	cut := lastBase(prev)
	if starts[i-1]+len(prev) < starts[i] {
		// The wrap broke at a space, not inside a word: the whole last
		// word moves down, not its last letter.
		cut = strings.LastIndex(prev, " ") + 1
	}
	if cut > 0 {
		cut -= len(openingSuffix(prev[:cut]))
	}
	return keepBefore(prev, starts[i-1], cut)
}

// keepBefore keeps the first cut bytes of line, which starts at start in
// the text, and says where the text moved down starts; ok is false when
// nothing would be kept.
func keepBefore(line string, start, cut int) (kept string, next int, ok bool) {
	if kept = strings.TrimRight(line[:max(cut, 0)], " "); kept != "" {
		return kept, start + cut, true
	}
	return "", 0, false
}

// nextLine is the text after a mended line: without the spaces the break
// fell on, or the newline that already ended the line.
func nextLine(s string) string {
	s = strings.TrimLeft(s, " ")
	return strings.TrimPrefix(s, "\n")
}

// lastBase is where the last character of line that may start a line
// begins: not closing punctuation, nor a mark that belongs to the
// character before it. It is -1 when there is none.
func lastBase(line string) int {
	for i := len(line); i > 0; {
		r, size := utf8.DecodeLastRuneInString(line[:i])
		i -= size
		if !isClosing(r) && !unicode.Is(unicode.M, r) && r != '\u200d' {
			return i
		}
	}
	return -1
}

// closingPrefix is the closing punctuation line starts with.
func closingPrefix(line string) string {
	end := strings.IndexFunc(line, func(r rune) bool { return !isClosing(r) })
	if end < 0 {
		return line
	}
	return line[:end]
}

// openingSuffix is the opening brackets line ends with.
func openingSuffix(line string) string {
	start := strings.LastIndexFunc(line, func(r rune) bool { return !isOpening(r) })
	if start < 0 {
		return line
	}
	_, size := utf8.DecodeRuneInString(line[start:])
	return line[start+size:]
}

// opening is the punctuation a Japanese line does not end with: opening
// brackets and quotes.
const opening = "（［｛〔〈《「『【〘〖〝‘“｟｢«"

func isOpening(r rune) bool { return r >= 0x80 && strings.ContainsRune(opening, r) }

// closing is the punctuation a Japanese line does not start with: commas
// and full stops, closing brackets and quotes, the middle dot, colons,
// exclamation and question marks, and iteration marks.
const closing = "、。，．､｡・：；！？‼⁇⁈⁉" +
	"）］｝〕〉》」』】〙〗〟’”｠｣»" +
	"ゝゞヽヾ々〻"

func isClosing(r rune) bool { return r >= 0x80 && strings.ContainsRune(closing, r) }
