package tui

import (
	"sort"
	"strings"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// auditRun is one line of the Audit pane: n loaded rows from row start
// (newest first). Unfiltered, routine repeats that follow one another are
// one run (sameRun), so the announces every peer makes each minute or a
// peer's loop of refused calls take one line, not the pane. A filter lists
// every row it matches. Only the display folds: the log and its hash chain
// are as they were written.
type auditRun struct{ start, n int }

// routineMethods are the calls peers make on their own every minute; their
// runs fold whoever made them, since several peers' announces interleave.
var routineMethods = map[string]bool{wire.MethodDiscover: true, wire.MethodPing: true}

// sameRun reports whether row b continues a's run: the same method and
// result, and either a routine method or the same agent refused again.
// Accepted calls of other methods (each question, each task) keep a line
// of their own: they are what an audit is read for.
func sameRun(a, b agent.AuditEntry) bool {
	if a.Method != b.Method || a.Result != b.Result {
		return false
	}
	return routineMethods[a.Method] || a.Result != "ok" && a.Agent == b.Agent
}

// foldRuns groups rows into runs; fold false gives a run per row.
func foldRuns(rows []agent.AuditEntry, fold bool) []auditRun {
	var runs []auditRun
	for i := 0; i < len(rows); {
		j := i + 1
		for fold && j < len(rows) && sameRun(rows[i], rows[j]) {
			j++
		}
		runs = append(runs, auditRun{start: i, n: j - i})
		i = j
	}
	return runs
}

// fold lays the loaded pages out as the lines of the list; every change
// of the pages is followed by one.
func (p *auditPane) fold() {
	p.flat = nil // a fresh slice: lines handed out before keep their rows
	for _, pg := range p.pages {
		p.flat = append(p.flat, pg...)
	}
	p.runs = foldRuns(p.flat, p.filterText == "")
}

// runRows is the rows of line i, newest first.
func (p *auditPane) runRows(i int) []agent.AuditEntry {
	if i < 0 || i >= len(p.runs) {
		return nil
	}
	r := p.runs[i]
	return p.flat[r.start : r.start+r.n]
}

// runKeys names each line by its newest row, for listState.reselect.
func runKeys(rows []agent.AuditEntry, runs []auditRun) []string {
	keys := make([]string, len(runs))
	for i, r := range runs {
		keys[i] = i64toa(rows[r.start].Seq)
	}
	return keys
}

// lineSeq is the sequence number of line i's newest row (0: no line).
func (p *auditPane) lineSeq(i int) int64 {
	if i < 0 || i >= len(p.runs) {
		return 0
	}
	return p.flat[p.runs[i].start].Seq
}

// lineOf is the line holding the row numbered seq, or the nearest line
// below where it was when it is no longer loaded (0: above every line).
func (p *auditPane) lineOf(seq int64) int {
	line := 0
	for i := range p.runs {
		if p.lineSeq(i) < seq {
			break
		}
		line = i
	}
	return line
}

// keepPlace applies change to the loaded pages and keeps the selection
// and the top of the window on the rows they were on.
func (p *auditPane) keepPlace(change func()) {
	sel, top := p.lineSeq(p.list.cursor), p.lineSeq(p.list.offset)
	change()
	p.fold()
	if sel != 0 {
		p.list.cursor, p.list.offset = p.lineOf(sel), p.lineOf(top)
	}
	p.list.clamp(len(p.runs))
}

// foldedMethod is a line's METHOD: the method, with how many rows the
// line holds when more than one ("aoi.discover ×12").
func foldedMethod(rows []agent.AuditEntry) string {
	if len(rows) == 1 {
		return Sanitize(rows[0].Method)
	}
	return truncate(Sanitize(rows[0].Method), auditMethodW) + countSuffix(len(rows))
}

func countSuffix(n int) string { return " ×" + itoa(n) }

// foldedAgent is a line's AGENT: the one agent, or how many there are.
func foldedAgent(rows []agent.AuditEntry) string {
	if names := agentCounts(rows); len(names) > 1 {
		return itoa(len(names)) + " agents"
	}
	return Sanitize(rows[0].Agent)
}

// foldedDetail is a folded line's DETAIL: since when, who (when several)
// and the newest row's detail.
func (p *auditPane) foldedDetail(rows []agent.AuditEntry) string {
	if len(rows) == 1 {
		return detailSummary(rows[0].Detail)
	}
	parts := []string{"since " + rows[len(rows)-1].Time.In(p.env.loc).Format("15:04")}
	if names := agentCounts(rows); len(names) > 1 {
		parts = append(parts, strings.Join(names, ", "))
	}
	return strings.Join(append(parts, "newest "+detailSummary(rows[0].Detail)), " · ")
}

// agentCounts names the agents of rows with their rows, most first:
// "pm-tanaka ×8".
func agentCounts(rows []agent.AuditEntry) []string {
	count := map[string]int{}
	var order []string
	for _, e := range rows {
		if count[e.Agent] == 0 {
			order = append(order, e.Agent)
		}
		count[e.Agent]++
	}
	sort.SliceStable(order, func(i, j int) bool { return count[order[i]] > count[order[j]] })
	names := make([]string, len(order))
	for i, a := range order {
		names[i] = Sanitize(a)
		if len(order) > 1 {
			names[i] += countSuffix(count[a])
		}
	}
	return names
}

// foldedLabel heads a line's preview: its rows' numbers, method and result.
func foldedLabel(rows []agent.AuditEntry) string {
	seqs := "#" + i64toa(rows[0].Seq)
	if len(rows) > 1 {
		seqs = "#" + i64toa(rows[len(rows)-1].Seq) + "–" + seqs
	}
	return seqs + " · " + foldedAgent(rows) + " · " + foldedMethod(rows) + " · " + Sanitize(rows[0].Result)
}

// foldedPreview is the text under the list for a line: a row's JSON, or
// what a folded line holds and the newest row's JSON.
func (p *auditPane) foldedPreview(rows []agent.AuditEntry) string {
	if len(rows) == 1 {
		return compactJSON(rows[0].Detail)
	}
	span := rows[len(rows)-1].Time.In(p.env.loc).Format("15:04:05") + "–" + rows[0].Time.In(p.env.loc).Format("15:04:05")
	return itoa(len(rows)) + " rows one after another, " + span + ", from " + strings.Join(agentCounts(rows), ", ") +
		" (enter lists them); the newest: " + compactJSON(rows[0].Detail)
}

// foldedDetailView is what enter shows on a folded line: each row it
// holds, then the newest whole with its hashes.
func foldedDetailView(rows []agent.AuditEntry, e *env) string {
	var b strings.Builder
	b.WriteString(itoa(len(rows)) + " rows of " + Sanitize(rows[0].Method) + " (" + Sanitize(rows[0].Result) +
		") one after another, newest first. The list shows them as one line; the log keeps each, and a filter (/) lists them one by one.\n\n")
	for _, r := range rows {
		b.WriteString("#" + i64toa(r.Seq) + "  " + r.Time.In(e.loc).Format("15:04:05") + "  " + Sanitize(r.Agent) + "  " + detailSummary(r.Detail) + "\n")
	}
	return b.String() + "\nThe newest, whole:\n" + auditDetail(rows[0], e)
}
