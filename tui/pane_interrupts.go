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
	return "Interrupts · " + itoa(len(p.rows)) + " buffered" + p.scrollMarker(len(p.rows))
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
	start, end := p.list.window(len(p.rows))
	fromW, ageW := len("FROM"), len("AGE")
	for _, q := range p.rows[start:end] {
		fromW = max(fromW, width(Sanitize(q.From)))
		ageW = max(ageW, width(ageCell(p.env.now, q.ReceivedAt, p.w)))
	}
	widths := textFirst(p.w, []int{1, fromW, ageW}, []int{1, fromGiveWayW, ageW})
	lines := []string{p.header(columns(p.w, widths, "", "FROM", "AGE", "QUERY"))}
	for i := start; i < end; i++ {
		q := p.rows[i]
		text := columns(p.w, widths, priorityGlyph(q.Priority), Sanitize(q.From), ageCell(p.env.now, q.ReceivedAt, p.w), Sanitize(q.Text))
		lines = append(lines, p.row(text, i == p.list.cursor))
	}
	q := p.rows[p.list.cursor]
	lines = p.preview(lines, Sanitize(q.From)+" · "+priorityLabel(q.Priority), previewText(q, p.env.now))
	return strings.Join(lines, "\n")
}
