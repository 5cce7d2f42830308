package tui

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/keymap"
)

// queriesPane lists received queries: the ones waiting for the owner first,
// then the rest, newest first.
type queriesPane struct {
	paneBase
	rows []agent.Query
	// noContexts: the owner shares no contexts, so the secretary drafts
	// no answers (the empty state says so: noContextsHint).
	noContexts bool
	// loaded is set once the questions have been read: until then no id
	// can be said to name none.
	loaded bool
}

func newQueriesPane(e *env) *queriesPane {
	return &queriesPane{paneBase: paneBase{env: e, previewed: true}}
}

func needsOwner(q agent.Query) bool {
	return q.State == agent.QueryEscalated || q.State == agent.QueryAwaiting
}

func (p *queriesPane) setQueries(qs []agent.Query) {
	rows := append([]agent.Query(nil), qs...)
	sort.SliceStable(rows, func(i, j int) bool {
		if a, b := needsOwner(rows[i]), needsOwner(rows[j]); a != b {
			return a
		}
		return rows[i].ReceivedAt.After(rows[j].ReceivedAt)
	})
	old := queryIDs(p.rows)
	p.rows, p.loaded = rows, true
	p.list.reselect(old, queryIDs(rows))
}

// byID returns the query with id as the pane has it, or one that holds
// only the id when the pane has none (a prompt command may name any id).
// A prompt command may also give the start of an id, as tab completion
// leaves it (agent.QueryByIDStart says which question it names).
func (p *queriesPane) byID(id string) agent.Query {
	if q, ok := agent.QueryByIDStart(p.rows, id); ok {
		return q
	}
	if id == "" {
		return agent.Query{} // no id: `:release` alone means every buffered one, never "the only one"
	}
	return agent.Query{ID: id}
}

// queryIDs names each row for listState.reselect.
func queryIDs(qs []agent.Query) []string {
	ids := make([]string, len(qs))
	for i, q := range qs {
		ids[i] = q.ID
	}
	return ids
}

func (p *queriesPane) Title() string {
	n := 0
	for _, q := range p.rows {
		if needsOwner(q) {
			n++
		}
	}
	switch {
	case len(p.rows) == 0:
		return "Queries · 0" + p.scrollMarker(len(p.rows))
	case n == 0: // a count here would read as "need you" (the status bar's "queries N")
		return "Queries · none need you" + p.scrollMarker(len(p.rows))
	}
	return "Queries · " + itoa(n) + " need you" + p.scrollMarker(len(p.rows))
}

func (p *queriesPane) Update(k tea.KeyPressMsg) action {
	if p.list.move(k, p.env.keys.List, len(p.rows)) {
		return nil
	}
	if p.list.cursor >= len(p.rows) {
		return nil
	}
	return queryKey(k, p.rows[p.list.cursor], p.env)
}

// queryKey is what a key does to the selected query, in the Queries and
// the Interrupts pane alike: open or answer opens one still open (waiting
// for the owner or buffered) to answer and shows a handled one whole;
// decline asks why before declining one still open; release sends one
// still open the secretary's draft, escalated or buffered, as `aoi
// release ID` does (the walk could send an escalated question's draft
// only from the CLI).
func queryKey(k tea.KeyPressMsg, q agent.Query, e *env) action {
	open := stillOpen(q)
	switch {
	case key.Matches(k, e.keys.List.Open, e.keys.Queries.Answer):
		if open {
			return openQuery{q: q}
		}
		return showDetail{title: "Query from " + Sanitize(q.From), body: queryDetail(q, e)}
	case key.Matches(k, e.keys.Queries.Decline) && open:
		return askDeclineReason{q: q}
	case key.Matches(k, e.keys.Queries.Decline):
		return noticeAction{text: Sanitize(q.From) + "'s question was already " + q.State + "; nothing to decline"}
	case key.Matches(k, e.keys.Queries.Release) && open:
		return releaseAction{q: q}
	case key.Matches(k, e.keys.Queries.Release):
		return noticeAction{text: Sanitize(q.From) + "'s question was already " + q.State + "; no draft to send"}
	}
	return nil
}

// stillOpen: the question waits for the owner or is buffered, so it can
// still be answered, declined or sent its draft.
func stillOpen(q agent.Query) bool {
	return needsOwner(q) || q.State == agent.QueryBuffered
}

// queryRowKeys are the keys the keys line offers for the selected
// question, extra (the Interrupts pane's R) before open. Only keys that
// act on it: a handled question only opens (e, d and r there just say it
// was answered), and r shows only when it would send a draft, not on one
// with no draft or a draft that found no work, which r refuses.
func queryRowKeys(k keymap.KeyMap, q agent.Query, extra ...key.Binding) []key.Binding {
	if !stillOpen(q) {
		return []key.Binding{k.List.Open}
	}
	out := []key.Binding{k.Queries.Answer, k.Queries.Decline}
	if len(q.Draft) > 0 && inbox.DraftFoundWork(q.Draft) {
		out = append(out, k.Queries.Release)
	}
	out = append(out, extra...)
	return append(out, k.List.Open)
}

// previewText is what the list shows under the rows for the selected
// question: its text and, once handled, what was sent back.
func previewText(q agent.Query, now time.Time) string {
	text := Sanitize(q.Text)
	sent, draft := draftText(q.Answer), draftText(q.Draft)
	state := q.State
	if q.AnsweredAt != nil {
		// When it was sent: a released draft's own words ("latest 2 min
		// ago") date from when it was drafted, and AGE from the question.
		state += " " + ago(now, *q.AnsweredAt)
	}
	if q.Undelivered {
		// The notice that said so is gone: the row still says it.
		state += ", not yet delivered (it goes when " + Sanitize(q.From) + " is back)"
	}
	switch {
	case sent != "" && (q.State == agent.QueryAnswered || q.State == agent.QueryDeclined):
		text += "\n↳ " + state + ": " + sent
	case draft != "" && q.State == agent.QueryAnswered: // the secretary sent its draft
		text += "\n↳ " + strings.Replace(state, "answered", "answered by the secretary", 1) + ": " + draft
	case draft != "" && q.State == agent.QueryBuffered && !inbox.DraftFoundWork(q.Draft):
		text += "\n↳ the secretary found no work (answer or decline it): " + draft
	case draft != "" && q.State == agent.QueryBuffered && !inbox.Releasable(q.Draft, q.Confidence):
		text += "\n↳ the secretary's guess (releasing all leaves it; answer, decline or release it alone): " + draft
	case draft != "" && q.State == agent.QueryBuffered:
		text += "\n↳ draft (what releasing sends): " + draft
	case draft != "" && inbox.DraftFoundWork(q.Draft) && q.Confidence < inbox.WeakDraft:
		// Escalated or waiting with a weak draft: it may be about other
		// work (the third walk's "mobile app" question got the billing
		// work under "draft").
		text += "\n↳ the secretary's guess (not sent; it may be about other work): " + draft
	case draft != "" && inbox.DraftFoundWork(q.Draft):
		// Escalated or waiting: the owner answers; the draft helps.
		text += "\n↳ the secretary's draft (not sent): " + draft
	}
	return text
}

// noContextsHint says what having no contexts means, in the empty
// Queries pane only. It was a part of the status bar on every screen, for
// good: a first run learned from it that the secretary had nothing to
// answer from, but a PM who only asks has no contexts by choice and read
// it all day, at 60 columns in the room the counts needed. The empty
// Queries pane is where the lack matters (no question has been answered
// for you) and where the interface starts, and the hint costs no room
// there: the first question to arrive replaces it.
const noContextsHint = "You share no contexts, so your secretary has nothing to answer colleagues from and their questions wait for you; " +
	"add a repository under contexts in the config if it should answer them."

func (p *queriesPane) View() string {
	if len(p.rows) == 0 {
		if p.noContexts {
			return p.empty("No queries received yet. " + noContextsHint)
		}
		return p.empty("No queries received yet.")
	}
	start, end := p.list.window(len(p.rows))
	widths := p.columnWidths(start, end)
	lines := []string{p.header(columns(p.w, widths, "", "FROM", "STATE", "AGE", "QUERY"))}
	for i := start; i < end; i++ {
		q := p.rows[i]
		text := columns(p.w, widths, priorityGlyph(q.Priority), Sanitize(q.From), rowState(q),
			ageCell(p.env.now, q.ReceivedAt, p.w), Sanitize(q.Text))
		st := p.env.styles.Text
		if needsOwner(q) {
			st = p.env.styles.Warn
		} else if (q.State == agent.QueryAnswered || q.State == agent.QueryDeclined) && !q.Undelivered {
			st = p.env.styles.Muted
		}
		lines = append(lines, p.rowStyled(text, i == p.list.cursor, st))
	}
	q := p.rows[p.list.cursor]
	lines = p.preview(lines, Sanitize(q.From)+" · "+priorityLabel(q.Priority), previewText(q, p.env.now))
	return strings.Join(lines, "\n")
}

// columnWidths sizes FROM, STATE and AGE to the rows start..end, so the
// question gets what they leave (textFirst): at 60 columns fixed widths
// left it 23 cells.
func (p *queriesPane) columnWidths(start, end int) []int {
	fromW, stateW, ageW := len("FROM"), len("STATE"), len("AGE")
	for _, q := range p.rows[start:end] {
		fromW = max(fromW, width(Sanitize(q.From)))
		stateW = max(stateW, width(rowState(q)))
		ageW = max(ageW, width(ageCell(p.env.now, q.ReceivedAt, p.w)))
	}
	return textFirst(p.w, []int{1, fromW, stateW, ageW}, []int{1, fromGiveWayW, stateW, ageW})
}

// rowState is a question's STATE: its state, or "queued" for an answer
// not yet delivered.
func rowState(q agent.Query) string {
	if q.Undelivered {
		return "queued"
	}
	return q.State
}

// priorityGlyph marks urgent rows in a one-cell column.
func priorityGlyph(p string) string {
	switch p {
	case "critical":
		return "‼"
	case "high":
		return "!"
	}
	return " "
}

func priorityLabel(p string) string {
	switch p {
	case "critical":
		return "‼ crit"
	case "high":
		return "! high"
	case "":
		return "normal"
	}
	return Sanitize(p)
}

// draftText turns the secretary's draft QueryResult into editable text.
func draftText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var d struct {
		Summary  string   `json:"summary"`
		Progress *int     `json:"progress"`
		Blockers []string `json:"blockers"`
	}
	if json.Unmarshal(raw, &d) != nil {
		return SanitizeMultiline(string(raw))
	}
	var b strings.Builder
	b.WriteString(SanitizeMultiline(d.Summary))
	// The secretary's summary usually says the progress and the blockers
	// already ("In progress: about 75% done. Blocked by: …"): they are
	// added only when it does not, so the sent answer says each once.
	if d.Progress != nil && !strings.Contains(d.Summary, itoa(*d.Progress)+"%") {
		b.WriteString("\nProgress: " + itoa(*d.Progress) + "%")
	}
	for _, bl := range d.Blockers {
		if !strings.Contains(d.Summary, bl) {
			b.WriteString("\nBlocker: " + Sanitize(bl))
		}
	}
	return strings.TrimSpace(b.String())
}

// decisionWords says what the secretary decided in words, not the
// protocol's constant (AUTO_RESPOND, BUFFER, ESCALATE).
func decisionWords(d string) string {
	switch d {
	case "AUTO_RESPOND":
		return "answered from your work"
	case "BUFFER":
		return "held until your focus time ends"
	case "ESCALATE":
		return "asked you"
	}
	return d
}

// settledLabel names when a question was answered or declined, and
// settledAt says when ("" while it is open: detailFields leaves it out).
func settledLabel(q agent.Query) string {
	if q.State == agent.QueryDeclined {
		return "declined"
	}
	return "answered"
}

func settledAt(q agent.Query, e *env) string {
	if q.AnsweredAt == nil {
		return ""
	}
	return clockAt(e, *q.AnsweredAt)
}

func queryDetail(q agent.Query, e *env) string {
	head := detailFields([][2]string{
		{"from", q.From}, {"id", q.ID}, {"their id", q.AskerID}, {"priority", q.Priority}, {"state", q.State},
		{"secretary", decisionWords(q.Decision)}, {"received", clockAt(e, q.ReceivedAt)}, {settledLabel(q), settledAt(q, e)},
		{"scope", strings.Join(q.ContextScope, ", ")},
	})
	body := head + "\n\n" + SanitizeMultiline(q.Text)
	switch a, d := draftText(q.Answer), draftText(q.Draft); {
	case a != "":
		body += "\n\nAnswer sent:\n" + a
	case d != "" && q.State == agent.QueryAnswered:
		// Answered by the secretary at once: its draft is what was sent.
		body += "\n\nAnswer sent (by the secretary):\n" + d
	case d != "":
		body += "\n\nDraft:\n" + d
	}
	return body
}
