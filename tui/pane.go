package tui

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// pane is one of the five panes. Panes hold their own copy of the data they
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
	Focus()
	Blur()
}

// paneBase holds what every pane shares: the environment, size and focus.
type paneBase struct {
	env     *env
	w, h    int
	focused bool
	list    listState
}

func (p *paneBase) SetSize(w, h int) { p.w, p.h = w, h; p.list.height = max(1, h-1) }
func (p *paneBase) Focus()           { p.focused = true }
func (p *paneBase) Blur()            { p.focused = false }

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

// header renders a column header or a hint line.
func (p *paneBase) header(text string) string {
	return p.env.styles.Header.Render(truncate(text, p.w))
}

// empty renders the message shown when a pane has nothing.
func (p *paneBase) empty(text string) string {
	return p.env.styles.Muted.Render(truncate(text, p.w))
}
