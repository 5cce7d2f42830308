package tui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// pane is one of the six panes. Panes hold their own copy of the data they
// show; the root model hands it to them and turns their actions into calls.
type pane interface {
	// Title is the pane name with a short count for its frame.
	Title() string
	// Update handles a key while the pane has focus and returns what the
	// owner asked for (nil when nothing).
	Update(k tea.KeyPressMsg) action
	// View renders the inside of the pane at the size set by SetSize.
	View() string
	SetSize(w, h int)
	// SetOpen says whether the pane is drawn open or as a one-line header.
	SetOpen(open bool)
	Focus()
	Blur()
}

// paneBase holds what every pane shares: the environment, size and focus.
type paneBase struct {
	env     *env
	w, h    int
	focused bool
	open    bool // drawn in a box, not as a one-line header
	list    listState
	// previewed panes show the selected row's full text under the list.
	previewed bool
}

func (p *paneBase) SetSize(w, h int)  { p.w, p.h = w, h; p.setListHeight() }
func (p *paneBase) SetOpen(open bool) { p.open = open }
func (p *paneBase) Focus()            { p.focused = true }
func (p *paneBase) Blur()             { p.focused = false }

// row renders one list row, highlighted when selected and focused.
func (p *paneBase) row(text string, selected bool) string {
	return p.rowStyled(text, selected, p.env.styles.Text)
}

// rowStyled is row with the style of an unselected row.
func (p *paneBase) rowStyled(text string, selected bool, st lipgloss.Style) string {
	text = fit(text, p.w)
	switch {
	case selected && p.focused:
		return p.env.styles.Selected.Render(text)
	case selected:
		return st.Bold(true).Render(text)
	}
	return st.Render(text)
}

func itoa(n int) string     { return strconv.Itoa(n) }
func i64toa(n int64) string { return strconv.FormatInt(n, 10) }

func matches(k tea.KeyPressMsg, b ...key.Binding) bool { return key.Matches(k, b...) }

// scrollMarker is the title's note on the rows of a list of n outside its
// window: above it, rows that arrived while the owner reads further down
// (with the key that goes up to them) or rows the window scrolled past;
// below it, the rows that follow (a list opening at the top showed 11 of 35
// rows and nothing said more follow), only while the pane is open: a
// closed one shows no rows to follow.
func (p *paneBase) scrollMarker(n int) string {
	l := p.settled(n)
	return p.aboveMarker(l) + p.belowMarker(l, n, false)
}

// settled is the list as View will show n rows. A copy: Title is drawn
// before View settles the window (after a resize), and drawing a title
// must not move the selection.
func (p *paneBase) settled(n int) listState {
	l := p.list
	l.clamp(n)
	return l
}

func (p *paneBase) homeKey() string { return p.env.keys.List.Home.Help().Key }

// aboveMarker counts the rows before the window of l.
func (p *paneBase) aboveMarker(l listState) string {
	switch {
	case l.unseen > 0:
		return " · ↑ " + itoa(l.unseen) + " new (" + p.homeKey() + ")"
	case l.offset > 0: // scrolled, or a resize left rows above the window
		return " · ↑ " + itoa(l.offset) + " above"
	}
	return ""
}

// belowMarker counts the rows after the window; more (a list loaded by
// pages) says rows beyond the n loaded may follow, counted as "N+".
func (p *paneBase) belowMarker(l listState, n int, more bool) string {
	below := n - min(n, l.offset+max(1, l.height))
	if below <= 0 || !p.open {
		return ""
	}
	plus := ""
	if more {
		plus = "+"
	}
	return " · ↓ " + itoa(below) + plus + " below"
}

// header renders a column header or a hint line.
func (p *paneBase) header(text string) string {
	return p.env.styles.Header.Render(truncate(text, p.w))
}

// empty renders the message shown when a pane has nothing.
func (p *paneBase) empty(text string) string {
	lines := wrap(text, p.w)
	if len(lines) > max(1, p.h) {
		lines = lines[:max(1, p.h)]
	}
	return p.env.styles.Muted.Render(strings.Join(lines, "\n"))
}

// previewLines is how many lines a list pane gives to the full text of the
// selected row (a rule and two lines), when it is tall enough.
const previewLines = 3

// hasPreview reports whether the pane is tall enough for a preview.
func (p *paneBase) hasPreview() bool { return p.previewed && p.h >= 9 }

// setListHeight sizes the list window: the pane minus its header line and,
// when shown, the preview.
func (p *paneBase) setListHeight() {
	h := p.h - 1
	if p.hasPreview() {
		h -= previewLines
	}
	p.list.height = max(1, h)
}

// lastPreviewLine is the last line a preview has room for, line i of
// body (text wrapped to w), when more follows: the text from where that
// line starts, cut with whole words and an ellipsis (truncateWords), as a
// row is; the walk read "…モバイ…" there. Joining the wrapped lines back
// would put a space at every break, inside a path or a Japanese sentence
// too, so the cut is taken from the text; where the lines are not pieces
// of it, the line itself ends in the ellipsis.
func lastPreviewLine(text string, body []string, i, w int) string {
	starts, ok := lineStarts(text, body)
	if ok {
		rest := strings.ReplaceAll(text[starts[i]:], "\n", " ")
		if cut := truncateWords(rest, w); strings.HasSuffix(cut, ellipsis) {
			return cut
		}
	}
	return truncate(body[i]+ellipsis, w)
}

// preview renders the selected row's full text under the list, below a
// rule: a question or an answer is read here without opening it. It takes
// two lines, or as many as the text needs when the list leaves room (a
// short list under a tall pane); what still does not fit ends with "…".
func (p *paneBase) preview(lines []string, label, text string) []string {
	if !p.hasPreview() {
		return lines
	}
	room := max(previewLines-1, p.h-len(lines)-1)
	body := wrap(text, p.w)
	for len(body) < previewLines-1 {
		body = append(body, "")
	}
	if len(body) > room {
		body = append(body[:room-1], lastPreviewLine(text, body, room-1, p.w))
	}
	for len(lines) < p.h-1-len(body) {
		lines = append(lines, "")
	}
	head := truncate("── "+label+" ", p.w)
	rule := p.env.styles.Border.Render(head + strings.Repeat("─", max(0, p.w-ansi.StringWidth(head))))
	lines = append(lines, rule)
	for _, l := range body {
		lines = append(lines, p.env.styles.Text.Render(l))
	}
	return lines
}
