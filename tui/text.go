package tui

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

const ellipsis = "…"

// width is the display width of s in cells; printable ASCII is counted
// without the grapheme walk.
func width(s string) int {
	if isPlain(s) {
		return len(s)
	}
	return ansi.StringWidth(s)
}

// truncate shortens s to at most w cells, ending in an ellipsis when cut.
// Widths are measured in terminal cells, so wide (CJK) characters count 2.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, ellipsis)
}

// truncateWords is truncate for prose: it cuts at the last word that fits,
// so a notice does not end mid-word, unless that would drop more than half
// the line (one long word, an id or a path), where it cuts inside the word.
// Japanese has no spaces between words: there it cuts where a phrase ends
// (cjkPhraseEnd), so "進捗とブロ…" reads "進捗と…".
func truncateWords(s string, w int) string {
	if width(s) <= w || w <= 1 {
		return truncate(s, w)
	}
	// Only the first line and the start of the next decide the cut: a
	// question pages long is not wrapped whole for every row drawn.
	s = ansi.Truncate(s, 3*w, "")
	lines := wrap(s, w-width(ellipsis))
	if len(lines) == 0 || width(lines[0]) < w/2 {
		return truncate(s, w)
	}
	line := lines[0]
	if rest, ok := strings.CutPrefix(s, line); ok {
		line = cjkPhraseEnd(line, rest, w/2)
	}
	return strings.TrimRight(line, " /") + ellipsis
}

// CutWords is truncateWords for the CLI's tables, so `aoi inbox` cuts a
// question where the interface's rows do: at most w cells, ending with
// whole words (in Japanese where a phrase ends) and an ellipsis when cut.
// s must be sanitised already.
func CutWords(s string, w int) string { return truncateWords(s, w) }

// cjkPhraseEnd is line, which rest follows in the text, shortened to end
// where a Japanese phrase does when the cut falls inside a run of CJK
// text: after a particle (hiragana before anything else), after a comma
// or a closing bracket, or before an opening one. It keeps at least min
// cells; line as it is when no such place is found.
func cjkPhraseEnd(line, rest string, min int) string {
	next, _ := utf8.DecodeRuneInString(rest)
	rs := []rune(line)
	if len(rs) == 0 || !isCJK(rs[len(rs)-1]) || !isCJK(next) || phraseBreak(rs[len(rs)-1], next) {
		return line
	}
	for i := len(rs) - 1; i > 0 && width(string(rs[:i])) >= min; i-- {
		if phraseBreak(rs[i-1], rs[i]) {
			return string(rs[:i])
		}
	}
	return line
}

// phraseBreak reports whether a Japanese phrase may end between a and b.
func phraseBreak(a, b rune) bool {
	switch {
	case isClosing(a) && !isClosing(b), isOpening(b):
		return true
	case unicode.Is(unicode.Hiragana, a):
		return !unicode.Is(unicode.Hiragana, b) && !isClosing(b) && b != 'ー'
	}
	return !isCJK(a) || !isCJK(b)
}

// isCJK reports a character of Japanese, Chinese or Korean text (kana,
// kanji, hangul, their punctuation and full-width forms).
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r >= 0x3000 && r <= 0x30ff || r >= 0xff00 && r <= 0xffef // punctuation, ー and ・, full-width forms
}

// fit truncates s to w cells and pads it with spaces to exactly w.
func fit(s string, w int) string {
	s = truncate(s, w)
	if pad := w - width(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// fitBlock makes s exactly w cells wide and h lines high.
func fitBlock(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = fit(l, w)
	}
	return strings.Join(lines, "\n")
}

// wrap word-wraps plain text to w cells, breaking long words, and returns
// the lines. It breaks after spaces and slashes (paths) but not at
// hyphens, so an id such as m-01j2… or task-7f3a stays whole on a line
// when it fits. ansi.Wrap always breaks at '-', so hyphens travel as
// non-breaking hyphens (one cell too) and come back afterwards. No line
// starts with closing punctuation such as 、 or 」 (kinsokuWrap).
func wrap(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	if strings.ContainsRune(s, nonBreakingHyphen) || strings.ContainsRune(s, keptSlash) {
		return kinsokuWrap(s, w) // cannot tell them apart after
	}
	s = keepShortPaths(strings.ReplaceAll(s, "-", string(nonBreakingHyphen)), w)
	lines := kinsokuWrap(s, w)
	for i, l := range lines {
		lines[i] = strings.NewReplacer(string(nonBreakingHyphen), "-", string(keptSlash), "/").Replace(l)
	}
	return lines
}

const nonBreakingHyphen = '\u2011'

// keptSlash stands for a slash the wrap must not break after (one cell
// wide, as '/' is).
const keptSlash = '\u2044'

// keepShortPaths keeps whole the words with slashes that fit on a line
// of w cells: a branch or a path moves down whole rather than leaving
// "aoi/" at the end of one line and "task-t065d8ccf5848" on the next (the
// eighth walk's approval detail at 60 columns). A longer path still
// breaks after a slash.
func keepShortPaths(s string, w int) string {
	if !strings.Contains(s, "/") {
		return s
	}
	words := strings.Split(s, " ")
	for i, word := range words {
		if strings.Contains(word, "/") && !strings.Contains(word, "\n") && width(word) <= w {
			words[i] = strings.ReplaceAll(word, "/", string(keptSlash))
		}
	}
	return strings.Join(words, " ")
}

// columns lays out cells with fixed widths separated by one space; the
// last cell, the text a person reads (a question, a message, an audit
// row's detail), takes what is left of w and, when longer, ends with
// whole words and an ellipsis (truncateWords): a row read "how is the
// billing migr…".
func columns(w int, widths []int, cells ...string) string {
	var b strings.Builder
	used := 0
	for i, c := range cells {
		cw := w - used
		if i < len(widths) && i < len(cells)-1 {
			cw = min(widths[i], w-used)
		}
		if cw <= 0 {
			break
		}
		if i < len(cells)-1 {
			b.WriteString(fit(c, cw))
			used += cw
			if used < w {
				b.WriteByte(' ')
				used++
			}
		} else {
			b.WriteString(truncateWords(c, cw))
		}
	}
	return b.String()
}

// giveWay narrows the columns before the last (columns' widths), the
// widest first and none under its minimum, until the last keeps at least
// keep cells of w: the last column, the text a person reads, is the one
// that shrinks last.
func giveWay(w int, widths, mins []int, keep int) []int {
	out := append([]int(nil), widths...)
	used := 0
	for _, cw := range out {
		used += cw + 1 // and the space after it
	}
	for short := keep - (w - used); short > 0; short-- {
		widest := -1
		for i, cw := range out {
			if cw > mins[i] && (widest < 0 || cw > out[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break // every column is at its minimum
		}
		out[widest]--
	}
	return out
}

// The columns of a list of things said (Queries, Interrupts, Messages):
// the sender's column at most as wide as the Audit pane's AGENT, and it
// gives way, down to fromGiveWayW, before the text drops under
// textShare of the pane.
const (
	fromMaxW     = 20
	fromGiveWayW = 8
	textShare    = 0.4
)

// textFirst sizes the columns before a list's text, given the widest of
// each on screen and the least each may give way to (a minimum equal to
// its width: it never does), capping the sender's column (index 1) at
// fromMaxW; the text, last, gets the rest and is the last to shrink.
func textFirst(w int, widest, least []int) []int {
	widths := append([]int(nil), widest...)
	widths[1] = min(widths[1], fromMaxW)
	return giveWay(w, widths, least, int(float64(w)*textShare))
}

// ageCell is a row's AGE: "4m ago", or in a pane narrower than 80 cells
// without the " ago" its heading says ("4m", "now").
func ageCell(now, t time.Time, w int) string {
	a := ago(now, t)
	if w >= 80 {
		return a
	}
	if a == "just now" {
		return "now"
	}
	return strings.TrimSuffix(a, " ago")
}

// ago says how long before now t was, in the largest sensible unit.
func ago(now, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := now.Sub(t)
	switch {
	case d < 10*time.Second:
		return "just now"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// clockAt is when t was on the clock: "11:01:34" today, "Dec 1 11:01"
// before. A detail dialog is drawn once, so "10s ago" there stayed
// "10s ago" for as long as it was open; the row's AGE column is the one
// that counts.
func clockAt(e *env, t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	t, now := t.In(e.loc), e.now.In(e.loc)
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04:05")
	}
	return t.Format("Jan 2 15:04")
}

// countdown renders the time left until t: "59m12s", "3s", "expired".
func countdown(now, t time.Time) string {
	d := t.Sub(now).Truncate(time.Second)
	switch {
	case d <= 0:
		return "expired"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
