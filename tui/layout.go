package tui

import (
	"regexp"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// focus is what receives keys: one of the panes or the prompt bar.
type focus int

// The focus ring, in the order tab walks it.
const (
	focusPeers focus = iota
	focusQueries
	focusInterrupts
	focusApprovals
	focusAudit
	focusMessages
	numPanes
	focusPrompt = numPanes
)

func (f focus) next() focus { return (f + 1) % numPanes }
func (f focus) prev() focus { return (f + numPanes - 1) % numPanes }

// Minimum usable terminal size and the width from which two columns fit.
const (
	minWidth    = 60
	minHeight   = 20
	twoColWidth = 110
	chromeLines = 2 // notice/prompt line + status bar
)

// layout is where each pane goes for the current size and focus.
type layout struct {
	cols     [][]focus // panes per column, top to bottom
	widths   []int
	height   int
	expanded []focus // the open pane of each column
}

// computeLayout stacks every pane in one column when narrow and splits them
// into two columns when wide. In each column one pane is open (the focused
// one, else the one last focused there); the others collapse to a line.
func computeLayout(w, h int, f focus, lastOpen [2]focus) layout {
	l := layout{height: h - chromeLines}
	if w >= twoColWidth {
		// Half each: the left column holds the queries, whose text a
		// person must read; at 120 columns that leaves a question ~25
		// cells, plus the preview of the selected one.
		left := w / 2
		l.cols = [][]focus{{focusPeers, focusQueries, focusInterrupts}, {focusApprovals, focusAudit, focusMessages}}
		l.widths = []int{left, w - left}
	} else {
		l.cols = [][]focus{{focusPeers, focusQueries, focusInterrupts, focusApprovals, focusAudit, focusMessages}}
		l.widths = []int{w}
	}
	for i, col := range l.cols {
		open := col[0]
		if i < len(lastOpen) && contains(col, lastOpen[i]) {
			open = lastOpen[i]
		}
		if contains(col, f) {
			open = f
		}
		l.expanded = append(l.expanded, open)
	}
	return l
}

// column returns the column index holding pane p.
func (l layout) column(p focus) int {
	for i, col := range l.cols {
		if contains(col, p) {
			return i
		}
	}
	return 0
}

// paneSize is the inner size of an open pane in column i (inside its box).
func (l layout) paneSize(i int) (int, int) {
	return l.widths[i] - 2, l.height - (len(l.cols[i]) - 1) - 2
}

func contains(fs []focus, f focus) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// box draws a rounded frame of exactly w×h cells with the title in its top
// edge around content (which is fitted to the inside).
func box(title, content string, w, h int, on bool, env *env) string {
	bs, ts := env.styles.Border, env.styles.Title
	g := lightBox
	if on {
		// The focused pane is drawn heavy, so which pane the keys act on
		// shows without colour too (two open columns, NO_COLOR).
		bs, ts, g = env.styles.BorderOn, env.styles.TitleOn, heavyBox
	}
	inner := w - 2
	title = fitTitle(title, max(0, inner-4))
	top := bs.Render(g.tl+g.h) + " " + ts.Render(title) + " "
	top += bs.Render(strings.Repeat(g.h, max(0, inner-3-ansi.StringWidth(title))) + g.tr)
	lines := make([]string, 0, h)
	lines = append(lines, top)
	side := bs.Render(g.v)
	for _, l := range strings.Split(fitBlock(content, inner, h-2), "\n") {
		lines = append(lines, side+l+side)
	}
	lines = append(lines, bs.Render(g.bl+strings.Repeat(g.h, max(0, inner))+g.br))
	return strings.Join(lines, "\n")
}

// fitTitle shortens a pane title to w cells. The row counts at its end
// (" · ↑ 3 above · ↓ 20 below") are what a narrow pane's title lost first
// to the cut, so they are written short ("↑3 · ↓20") before anything else
// is cut.
func fitTitle(title string, w int) string {
	if ansi.StringWidth(title) > w {
		title = scrollCountRE.ReplaceAllString(title, "$1$2")
	}
	return truncate(title, w)
}

// scrollCountRE is a title's count of the rows above or below the window.
var scrollCountRE = regexp.MustCompile(`(↑|↓) (\d+\+?) (?:above|below)`)

// boxGlyphs are a pane frame's corners and lines.
type boxGlyphs struct{ tl, tr, bl, br, h, v string }

var (
	lightBox = boxGlyphs{"╭", "╮", "╰", "╯", "─", "│"}
	heavyBox = boxGlyphs{"┏", "┓", "┗", "┛", "━", "┃"}
)

// collapsed draws a closed pane as one line: "▸ Title ────".
func collapsed(title string, w int, on bool, env *env) string {
	bs, ts := env.styles.Border, env.styles.Title
	if on {
		bs, ts = env.styles.BorderOn, env.styles.TitleOn
	}
	line := lightBox.h
	if on {
		line = heavyBox.h
	}
	title = fitTitle(title, max(0, w-4))
	rest := max(0, w-3-ansi.StringWidth(title))
	return bs.Render("▸") + " " + ts.Render(title) + " " + bs.Render(strings.Repeat(line, rest))
}

// joinColumns places column blocks side by side.
func joinColumns(blocks []string) string {
	if len(blocks) == 1 {
		return blocks[0]
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, blocks...)
}
