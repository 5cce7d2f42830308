package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// interruptsPane lists queries buffered during focus time.
type interruptsPane struct {
	paneBase
	rows []agent.Query
}

func newInterruptsPane(e *env) *interruptsPane {
	return &interruptsPane{paneBase: paneBase{env: e, previewed: true}}
}

func (p *interruptsPane) setQueries(qs []agent.Query) {
	var rows []agent.Query
	for _, q := range qs {
		if q.State == agent.QueryBuffered {
			rows = append(rows, q)
		}
	}
	old := queryIDs(p.rows)
	p.rows = rows
	p.list.reselect(old, queryIDs(rows))
}

func (p *interruptsPane) Title() string {
	return "Interrupts · " + itoa(len(p.rows)) + " buffered" + p.newMarker()
}

func (p *interruptsPane) Update(k tea.KeyPressMsg) action {
	if p.list.move(k, p.env.keys.List, len(p.rows)) {
		return nil
	}
	keys := p.env.keys.Interrupts
	if key.Matches(k, keys.ReleaseAll) {
		return releaseAction{} // with nothing buffered, it says so
	}
	if p.list.cursor >= len(p.rows) {
		return nil
	}
	return queryKey(k, p.rows[p.list.cursor], p.env)
}

func (p *interruptsPane) View() string {
	if len(p.rows) == 0 {
		return p.empty("Nothing buffered. During focus time, low-priority questions the secretary cannot answer wait here until focus ends.")
	}
	// Columns named as the Queries pane names them; the keys line under
	// the panes says what r and R do here.
	widths := []int{1, 12, 8}
	lines := []string{p.header(columns(p.w, widths, "", "FROM", "AGE", "QUERY"))}
	start, end := p.list.window(len(p.rows))
	for i := start; i < end; i++ {
		q := p.rows[i]
		text := columns(p.w, widths, priorityGlyph(q.Priority), Sanitize(q.From), ago(p.env.now, q.ReceivedAt), Sanitize(q.Text))
		lines = append(lines, p.row(text, i == p.list.cursor))
	}
	q := p.rows[p.list.cursor]
	lines = p.preview(lines, Sanitize(q.From)+" · "+priorityLabel(q.Priority), previewText(q, p.env.now))
	return strings.Join(lines, "\n")
}
