package tui

import (
	"bytes"
	"encoding/json"
	"github.com/aoi-protocol/aoi/internal/auditdetail"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/charmbracelet/x/ansi"
)

// Audit paging: at most auditMaxPages pages of auditPageSize rows are held;
// the next page loads when the cursor comes within auditMargin rows of
// either end of the loaded window.
const (
	auditMaxPages = 3
	auditMargin   = 30
)

// auditPane shows the audit log newest first, routine repeats folded into
// one line each (auditRun). It never loads the whole log:
// it keeps a window of pages and remembers the BeforeSeq anchor of every
// page it has seen so it can page back up exactly, even with a filter.
type auditPane struct {
	paneBase
	filter     agent.AuditFilter
	filterText string
	gen        int
	pages      [][]agent.AuditEntry
	first      int     // page number of pages[0]
	anchors    []int64 // anchors[k] is the BeforeSeq that loads page k
	loading    bool
	ended      bool // the oldest row is loaded
	newer      bool // rows arrived above a window that does not start at the top
	// runs are the lines of the list (auditRun) over flat, the loaded
	// rows: the list's cursor and window count lines, at and n count rows.
	runs []auditRun
	flat []agent.AuditEntry
}

func newAuditPane(e *env) *auditPane {
	return &auditPane{paneBase: paneBase{env: e, previewed: true}, anchors: []int64{0}}
}

func (p *auditPane) n() int {
	n := 0
	for _, pg := range p.pages {
		n += len(pg)
	}
	return n
}

func (p *auditPane) at(i int) agent.AuditEntry {
	for _, pg := range p.pages {
		if i < len(pg) {
			return pg[i]
		}
		i -= len(pg)
	}
	return agent.AuditEntry{}
}

func (p *auditPane) request(page int) action {
	if p.loading || page < 0 || page >= len(p.anchors) {
		return nil
	}
	p.loading = true
	return auditFetch{req: auditRequest{page: page, before: p.anchors[page], filter: p.filter, gen: p.gen}}
}

// refreshHead is called when rows were appended: reload the newest page if
// the owner is looking at the top, else just flag that newer rows exist.
func (p *auditPane) refreshHead() (auditRequest, bool) {
	if len(p.pages) > 0 && (p.first > 0 || p.selectedRow() >= auditPageSize) {
		p.newer = true
		return auditRequest{}, false
	}
	if a, ok := p.request(0).(auditFetch); ok {
		return a.req, true
	}
	return auditRequest{}, false
}

// applyPage puts a fetched page into the window.
func (p *auditPane) applyPage(msg auditPageMsg) action {
	if msg.req.gen != p.gen {
		return nil // for an older filter
	}
	p.loading = false
	if msg.err != nil {
		return nil
	}
	rows, page := msg.rows, msg.req.page
	if len(rows) > 0 && len(p.anchors) <= page+1 {
		p.anchors = append(p.anchors[:page+1], rows[len(rows)-1].Seq)
	}
	switch {
	case page == p.first-1 && len(p.pages) > 0:
		// Paging back up to the newest page adds it above the window
		// (setHead would move the cursor to the top).
		p.prependPage(rows)
	case page == 0:
		p.setHead(rows)
	case page == p.first+len(p.pages):
		p.appendPage(rows)
	}
	return nil
}

// selectedRow is the loaded row the selected line starts at.
func (p *auditPane) selectedRow() int {
	if p.list.cursor < len(p.runs) {
		return p.runs[p.list.cursor].start
	}
	return p.list.cursor
}

// setHead loads the newest page. A selection on the newest line stays on
// the top, so the pane follows the log live; one the owner moved down
// stays on its line, and the lines written since are counted for the
// title.
func (p *auditPane) setHead(rows []agent.AuditEntry) {
	runs := foldRuns(rows, p.filterText == "")
	old, now := runKeys(p.flat, p.runs), runKeys(rows, runs)
	if c := p.list.cursor; c > 0 && c < len(old) && !slices.Contains(now, old[c]) {
		// The selected row was pushed off the newest page: keep the
		// window where the owner reads, and say that newer rows exist.
		p.newer = true
		return
	}
	p.pages, p.first, p.newer = [][]agent.AuditEntry{rows}, 0, false
	p.fold()
	p.ended = len(rows) < auditPageSize
	// The rows below moved down too: page 1 now starts under this head.
	p.anchors = p.anchors[:1]
	if len(rows) > 0 {
		p.anchors = append(p.anchors, rows[len(rows)-1].Seq)
	}
	p.list.reselect(old, now)
}

func (p *auditPane) appendPage(rows []agent.AuditEntry) {
	p.ended = len(rows) < auditPageSize
	if len(rows) == 0 {
		return
	}
	p.keepPlace(func() {
		p.pages = append(p.pages, rows)
		if len(p.pages) > auditMaxPages {
			p.pages, p.first = p.pages[1:], p.first+1
		}
	})
}

func (p *auditPane) prependPage(rows []agent.AuditEntry) {
	p.keepPlace(func() {
		p.pages = append([][]agent.AuditEntry{rows}, p.pages...)
		p.first--
		if len(p.pages) > auditMaxPages {
			p.pages = p.pages[:len(p.pages)-1]
			p.ended = false
		}
	})
}

// setFilter parses "agent:x method:y result:z" and free words, which search
// the text of the rows (agent, method, result and detail), and reloads from
// the top.
func (p *auditPane) setFilter(text string) action {
	p.filterText = strings.TrimSpace(text)
	p.filter = parseAuditFilter(p.filterText)
	p.gen++
	p.pages, p.first, p.anchors, p.loading, p.ended = nil, 0, []int64{0}, false, false
	p.fold()
	p.list = listState{height: p.list.height}
	return p.request(0)
}

// noMatch says that nothing matches the filter and, for a column key, what
// it takes: the walk's "method:aoi.task" found nothing and did not say that
// a method is matched whole, as a word is not.
func (p *auditPane) noMatch() string {
	says := "No audit entries match the filter."
	if p.filter.Agent != "" {
		says += " agent: takes an agent id whole, as AGENT shows it."
	}
	if p.filter.Method != "" {
		says += " method: takes a method whole, as METHOD shows it (aoi.query, task.request, ctl.answer, …)."
	}
	if p.filter.Agent != "" || p.filter.Method != "" {
		says += " A word without a key searches every column."
	}
	return says
}

// resultLabel is how the RESULT column shows a result: short error names
// (agent.AuditResultLabel), sanitised.
func resultLabel(result string) string { return Sanitize(agent.AuditResultLabel(result)) }

func parseAuditFilter(text string) agent.AuditFilter {
	var f agent.AuditFilter
	var words []string
	for _, w := range strings.Fields(text) {
		// Keys, agent ids and methods in any case: ids and methods are
		// lower case (Agent:BOB is agent:bob).
		k, v, ok := strings.Cut(w, ":")
		switch k = strings.ToLower(k); {
		case ok && k == "agent":
			f.Agent = strings.ToLower(v)
		case ok && k == "method":
			f.Method = strings.ToLower(v)
		case ok && k == "result":
			f.Result = agent.AuditResultCode(v)
		default:
			words = append(words, w)
		}
	}
	f.Text = strings.Join(words, " ")
	return f
}

// unknownFilterKey returns the first word of text that reads as key:value
// with a key the filter does not know ("agnet:x", "seq:4"), which is then
// searched as text; the owner is told so instead of wondering why nothing
// narrowed.
func unknownFilterKey(text string) (word, key string) {
	for _, w := range strings.Fields(text) {
		k, _, ok := strings.Cut(w, ":")
		k = strings.ToLower(k)
		if !ok || k == "" || k == "agent" || k == "method" || k == "result" || strings.IndexFunc(k, notKeyRune) >= 0 {
			continue
		}
		return w, k
	}
	return "", ""
}

func notKeyRune(r rune) bool { return (r < 'a' || r > 'z') && r != '_' }

func (p *auditPane) Title() string {
	t := "Audit · newest first"
	if p.filterText != "" {
		t += " · filter " + Sanitize(p.filterText) // the keys line says esc clears it
	}
	l := p.settled(len(p.runs))
	above := p.aboveMarker(l)
	if p.newer {
		above = " · ↑ new rows (" + p.homeKey() + ")"
	}
	return t + above + p.belowMarker(l, len(p.runs), !p.ended)
}

func (p *auditPane) Update(k tea.KeyPressMsg) action {
	keys := p.env.keys.List
	if matches(k, keys.Home) && (p.first > 0 || p.newer) {
		p.list.cursor = 0
		p.pages, p.first = nil, 0
		p.fold()
		return p.request(0)
	}
	if p.list.move(k, keys, len(p.runs)) {
		return p.edge(matches(k, keys.Down, keys.PageDown, keys.End))
	}
	if rows := p.runRows(p.list.cursor); matches(k, keys.Open) && len(rows) == 1 {
		return showDetail{title: "Audit #" + i64toa(rows[0].Seq), body: auditDetail(rows[0], p.env)}
	} else if matches(k, keys.Open) && len(rows) > 1 {
		return showDetail{title: "Audit " + foldedLabel(rows), body: foldedDetailView(rows, p.env)}
	}
	if matches(k, p.env.keys.Dialog.Cancel) && p.filterText != "" {
		return setFilter{} // esc clears the filter: every row again
	}
	return nil
}

// edge loads the neighbouring page in the direction the cursor moved
// when the selected line comes within auditMargin rows of that end of
// the loaded window. Rows, not lines, and one direction: a folded line
// can span most of the window, and near both ends at once the pane
// loaded the page above, then the one below, back and forth.
func (p *auditPane) edge(down bool) action {
	if p.list.cursor >= len(p.runs) {
		return nil
	}
	r := p.runs[p.list.cursor]
	switch {
	case down && r.start+r.n >= p.n()-auditMargin && !p.ended && len(p.pages) > 0:
		return p.request(p.first + len(p.pages))
	case !down && r.start < auditMargin && p.first > 0:
		return p.request(p.first - 1)
	}
	return nil
}

func (p *auditPane) View() string {
	n := p.n()
	if n == 0 {
		if p.loading {
			return p.empty("Loading the audit log…")
		}
		if p.filterText != "" {
			return p.empty(p.noMatch())
		}
		return p.empty("No audit entries yet.")
	}
	wide, clock := p.w >= 90, "15:04"
	if wide {
		clock = "15:04:05"
	}
	start, end := p.list.window(len(p.runs))
	cols := p.columnsFor(start, end, wide)
	lines := []string{p.header(cols.row("SEQ", "TIME", "AGENT", "METHOD", "RESULT", "DETAIL"))}
	for i := start; i < end; i++ {
		rows := p.runRows(i)
		e := rows[0] // the newest row speaks for a folded line
		text := cols.row(i64toa(e.Seq), e.Time.In(p.env.loc).Format(clock),
			foldedAgent(rows), foldedMethod(rows), resultLabel(e.Result), p.foldedDetail(rows))
		st := p.env.styles.Text
		if e.Result != "ok" && e.Result != "" {
			st = p.env.styles.Error
		}
		lines = append(lines, p.rowStyled(text, i == p.list.cursor, st))
	}
	// The detail column cannot hold a long detail: the selected line's
	// is read whole under the list.
	if rows := p.runRows(p.list.cursor); len(rows) > 0 {
		lines = p.preview(lines, foldedLabel(rows), p.foldedPreview(rows))
	}
	return strings.Join(lines, "\n")
}

// auditMethodW holds a method name whole: "aoi.task.execute",
// "audit.checkpoint"; the column is narrower when the rows on screen
// hold only shorter ones (a filter on aoi.query).
const auditMethodW = 16

// auditColumns is the layout of the rows on screen: the fixed columns,
// then the detail in all the width they leave. The sequence number,
// agent, method and result columns take only the width of what the rows
// on screen hold (their labels whole; an agent id up to 20 cells wide, 10
// narrow, a method up to 16, a result up to 10), so the detail keeps room
// to be read: at 100 columns a fixed 8-cell SEQ for two digits and
// 14-cell AGENT cut it, and a 16-cell METHOD for aoi.query rows. Narrow (a
// column of the wide layout, or a small terminal) the sequence number and
// the seconds go; the method stays whole, since it says what the row is.
// The preview and enter still show the row's number and whole detail.
type auditColumns struct {
	w                              int
	wide                           bool
	seqW, agentW, methodW, resultW int
}

// Caps of the sized audit columns: a sequence number up to a trillion
// rows, an agent id wide or narrow.
const (
	auditSeqMaxW      = 12
	auditAgentMaxW    = 20
	auditAgentNarrowW = 10
)

// columnsFor sizes the columns for rows start..end.
func (p *auditPane) columnsFor(start, end int, wide bool) auditColumns {
	c := auditColumns{w: p.w, wide: wide, seqW: len("SEQ"), agentW: len("AGENT"), methodW: len("METHOD"), resultW: len("RESULT")}
	methodCap := auditMethodW
	for i := start; i < end; i++ {
		rows := p.runRows(i)
		e := rows[0]
		c.seqW = max(c.seqW, len(i64toa(e.Seq)))
		c.agentW = max(c.agentW, ansi.StringWidth(foldedAgent(rows)))
		// A folded line's count shows whole after a method cut to the cap.
		c.methodW = max(c.methodW, ansi.StringWidth(foldedMethod(rows)))
		if len(rows) > 1 {
			methodCap = max(methodCap, auditMethodW+ansi.StringWidth(countSuffix(len(rows))))
		}
		c.resultW = max(c.resultW, ansi.StringWidth(resultLabel(e.Result)))
	}
	c.seqW, c.methodW, c.resultW = min(c.seqW, auditSeqMaxW), min(c.methodW, methodCap), min(c.resultW, 10)
	c.agentW = min(c.agentW, map[bool]int{true: auditAgentMaxW, false: auditAgentNarrowW}[wide])
	if c.w < 50 {
		c.resultW = min(c.resultW, 7) // a narrow terminal: DETAIL needs the room
	}
	return c
}

func (c auditColumns) row(seq, at, agentID, method, result, detail string) string {
	if c.wide {
		return columns(c.w, []int{c.seqW, 8, c.agentW, c.methodW, c.resultW}, seq, at, agentID, method, result, detail)
	}
	return columns(c.w, []int{5, c.agentW, c.methodW, c.resultW}, at, agentID, method, result, detail)
}

// compactJSON renders a JSON payload on one sanitised line, its keys in
// the DETAIL column's order (auditdetail.JSON): the preview under the list
// cuts it at two lines, and the question of an escalated row came last.
func compactJSON(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	return Sanitize(truncateBytes(auditdetail.JSON(raw), 2048))
}

// detailSummary is a row's detail as the column reads it
// (auditdetail.Summary: key=value pairs, what a row is about first; the
// walk read `{"confidence"…` in every query row). The preview and enter
// show the JSON whole.
func detailSummary(raw json.RawMessage) string {
	return Sanitize(truncateBytes(auditdetail.Summary(raw), 2048))
}

func auditDetail(e agent.AuditEntry, env *env) string {
	var pretty bytes.Buffer
	detail := string(e.Detail)
	if json.Indent(&pretty, e.Detail, "", "  ") == nil {
		detail = pretty.String()
	}
	return detailFields([][2]string{
		{"seq", i64toa(e.Seq)}, {"time", e.Time.In(env.loc).Format("2006-01-02 15:04:05 MST")},
		{"agent", e.Agent}, {"method", e.Method}, {"result", e.Result},
		{"hash", e.Hash}, {"previous hash", e.PrevHash},
	}) + "\n\n" + SanitizeMultiline(truncateBytes(detail, 16<<10))
}
