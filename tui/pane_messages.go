package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// messagesKept bounds the messages the pane holds (newest first); older
// ones stay in the store (`aoi inbox --limit`).
const messagesKept = 300

// messagesPane lists what peers sent this agent: answers to the owner's
// questions, task results and typed messages for the coding assistant
// (aoi.message), newest first. Unread ones are marked until the pane has
// been looked at; the mark is stored, so the count survives restarts.
type messagesPane struct {
	paneBase
	rows []agent.Message
	// asks names the question each answer replies to (query id → text).
	asks map[string]string
	// waiting is what the owner asked that has no answer yet (from the
	// status): one line above the list says so.
	waiting []agent.WaitingAsk
	// waitingTotal is how many wait in all: the status lists the newest
	// 20, and the line must not count only those.
	waitingTotal int
}

// SetSize keeps room for the waiting line above the list.
func (p *messagesPane) SetSize(w, h int) {
	p.paneBase.SetSize(w, h)
	p.fitWaiting()
}

// setWaiting records what still waits for an answer: the newest asks and
// how many there are in all (0 from an aoi that did not count them).
func (p *messagesPane) setWaiting(w []agent.WaitingAsk, total int) {
	p.waiting, p.waitingTotal = w, max(total, len(w))
	p.fitWaiting()
}

func (p *messagesPane) fitWaiting() {
	p.setListHeight()
	p.list.height = max(1, p.list.height-len(p.waitingLines()))
}

// waitingLines name what waits for an answer, newest first, in at most
// two lines: "waiting for 2 answers: qa-ito task run_tests (1m) ·
// eng-suzuki “how is auth going?” (3m)"; the same ask to the same peer
// is one entry counted ×N, timed by the newest.
func (p *messagesPane) waitingLines() []string {
	if len(p.waiting) == 0 {
		return nil
	}
	groups := agent.FoldWaiting(p.waiting) // one task asked twenty times is one entry ×20
	parts := make([]string, 0, len(groups))
	for _, g := range groups {
		what := Sanitize(g.Text)
		if !strings.HasPrefix(what, "task ") {
			what = "“" + truncateWords(what, 24) + "”"
		}
		if g.Count > 1 {
			what += " ×" + itoa(g.Count)
		}
		parts = append(parts, Sanitize(g.To)+" "+what+" ("+strings.TrimSuffix(ago(p.env.now, g.SentAt), " ago")+")")
	}
	n := p.waitingTotal
	head := "waiting for " + itoa(n) + map[bool]string{true: " answer: ", false: " answers: "}[n == 1]
	text := head + strings.Join(parts, " · ")
	lines := wrap(text, p.w)
	if len(lines) > 2 { // two lines at most: the list comes first
		// The second ends with whole words and "…" (it was cut mid-word).
		rest, ok := strings.CutPrefix(text, lines[0])
		if !ok {
			rest = strings.Join(lines[1:], " ")
		}
		second := truncateWords(strings.TrimLeft(rest, " "), p.w)
		if cut, ok := strings.CutSuffix(second, "·"+ellipsis); ok { // cut between two asks
			second = cut + ellipsis
		}
		lines = []string{lines[0], second}
	}
	for i, l := range lines {
		lines[i] = p.env.styles.Muted.Render(l)
	}
	return lines
}

func newMessagesPane(e *env) *messagesPane {
	return &messagesPane{paneBase: paneBase{env: e, previewed: true}, asks: map[string]string{}}
}

// add merges newly fetched messages. A selection on the newest row follows
// the newest, so an answer that arrives while the owner reads the top of
// the list is the one shown under it; a selection further down stays, the
// title counting what arrived above (listState.reselect).
func (p *messagesPane) add(ms []agent.Message) {
	if len(ms) == 0 {
		return
	}
	old := p.keys()
	seen := map[int64]bool{}
	for _, r := range p.rows {
		seen[r.Seq] = true
	}
	for _, m := range ms {
		if !seen[m.Seq] {
			p.rows = append(p.rows, m)
		}
	}
	sort.Slice(p.rows, func(i, j int) bool { return p.rows[i].Seq > p.rows[j].Seq })
	if len(p.rows) > messagesKept {
		p.rows = p.rows[:messagesKept]
	}
	p.list.reselect(old, p.keys())
}

// keys names each row for listState.reselect.
func (p *messagesPane) keys() []string {
	keys := make([]string, len(p.rows))
	for i, r := range p.rows {
		keys[i] = i64toa(r.Seq)
	}
	return keys
}

func (p *messagesPane) unread() int {
	n := 0
	for _, r := range p.rows {
		if !r.Read {
			n++
		}
	}
	return n
}

// newestUnread is the sequence number to mark read up to (0: none unread).
func (p *messagesPane) newestUnread() int64 {
	for _, r := range p.rows { // newest first
		if !r.Read {
			return r.Seq
		}
	}
	return 0
}

func (p *messagesPane) markRead(upto int64) {
	for i := range p.rows {
		if p.rows[i].Seq <= upto {
			p.rows[i].Read = true
		}
	}
}

// markReadSome marks the rows whose seqs are listed read, and no others.
func (p *messagesPane) markReadSome(seqs []string) {
	for i := range p.rows {
		if slices.Contains(seqs, strconv.FormatInt(p.rows[i].Seq, 10)) {
			p.rows[i].Read = true
		}
	}
}

func (p *messagesPane) Title() string {
	if n := p.unread(); n > 0 {
		return "Messages · " + itoa(n) + " unread" + p.scrollMarker(len(p.rows))
	}
	return "Messages · " + itoa(len(p.rows)) + p.scrollMarker(len(p.rows))
}

func (p *messagesPane) Update(k tea.KeyPressMsg) action {
	if p.list.move(k, p.env.keys.List, len(p.rows)) {
		return nil
	}
	if p.list.cursor < len(p.rows) && key.Matches(k, p.env.keys.List.Open) {
		return openMessage{msg: p.rows[p.list.cursor]}
	}
	return nil
}

func (p *messagesPane) View() string {
	waiting := p.waitingLines()
	if len(p.rows) == 0 {
		text := wrap("No messages yet. Answers to your questions (@agent …), results of tasks you asked for and messages for your coding assistant appear here.", p.w)
		text = text[:min(len(text), max(1, p.h-len(waiting)))]
		return strings.Join(append(waiting, p.env.styles.Muted.Render(strings.Join(text, "\n"))), "\n")
	}
	start, end := p.list.window(len(p.rows))
	widths := p.columnWidths(start, end)
	lines := append(waiting, p.header(columns(p.w, widths, "", "FROM", "KIND", "AGE", "TEXT")))
	for i := start; i < end; i++ {
		r := p.rows[i]
		mark, st := " ", p.env.styles.Muted
		if !r.Read {
			mark, st = "●", p.env.styles.Text
		}
		if r.Priority == "high" || r.Priority == "critical" {
			mark = "!" // as in Queries; the row's style still says unread
		}
		text := columns(p.w, widths, mark, messageFrom(r), messageKind(r), p.age(r), p.summary(r, rowQuoteW))
		lines = append(lines, p.rowStyled(text, i == p.list.cursor, st))
	}
	r := p.rows[p.list.cursor]
	lines = p.preview(lines, messageFrom(r)+" · "+messageKind(r), p.summary(r, 0))
	return strings.Join(lines, "\n")
}

// messagesKindMaxW holds a kind whole ("review_request").
const messagesKindMaxW = 14

// columnWidths sizes MARK, FROM, KIND and AGE to the rows start..end, so
// TEXT, what a person reads, gets what they leave (textFirst): at 60
// columns fixed widths for the longest sender and kind left it 18 cells.
func (p *messagesPane) columnWidths(start, end int) []int {
	fromW, kindW, ageW := len("FROM"), len("KIND"), len("AGE")
	for _, r := range p.rows[start:end] {
		fromW = max(fromW, width(messageFrom(r)))
		kindW = max(kindW, width(messageKind(r)))
		ageW = max(ageW, width(p.age(r)))
	}
	kindW = min(kindW, messagesKindMaxW)
	return textFirst(p.w, []int{1, fromW, kindW, ageW}, []int{1, fromGiveWayW, fromGiveWayW, ageW})
}

func (p *messagesPane) age(r agent.Message) string { return ageCell(p.env.now, r.ReceivedAt, p.w) }

// rowQuoteW is how much of the question an answer's row quotes.
const rowQuoteW = 40

// summary is the one-line text of a message; an answer says, after it,
// what it answers: the question cut to quoteW cells in a row, whole (0)
// in the preview under the list, which shows the selected row whole (the
// walk read "re “how is the billing migration going, and…”" there, with
// lines to spare).
func (p *messagesPane) summary(r agent.Message, quoteW int) string {
	text := messageText(r.Data)
	q := Sanitize(r.Question)
	if quoteW > 0 {
		q = truncateWords(q, quoteW)
	}
	if r.Question == "" {
		q = p.asks[r.RelatedID]
	}
	// The message's own words first: rows answering similar questions
	// (or results of one task type) would otherwise all begin alike.
	switch {
	case q != "" && r.RelatedID != "" && strings.HasPrefix(q, "task "):
		return text + " · re " + q // what was asked for, not words written
	case q != "" && (r.RelatedID != "" || r.ReplyTo != ""):
		return text + " · re “" + q + "”" // a typed reply: the message of ours it answers
	}
	return text
}

// messageFrom names the sender, and the original one of a relayed message.
func messageFrom(r agent.Message) string {
	from := Sanitize(r.From)
	if r.Origin != "" && r.Origin != r.From {
		from = Sanitize(r.Origin) + " via " + from
	}
	return from
}

// messageKind is what the message is, in words (agent.MessageKindLabel:
// "query.completed" is an answer), as `aoi inbox` says it too.
func messageKind(r agent.Message) string {
	return Sanitize(agent.MessageKindLabel(r.Kind()))
}

// messageDetail shows a message whole, with the state of the coordination
// task it concerns when there is one.
func messageDetail(r agent.Message, tasks []agent.CoordTask, e *env) string {
	body := detailFields([][2]string{
		{"from", r.From}, {"origin", r.Origin}, {"kind", messageKind(r)}, {"received", clockAt(e, r.ReceivedAt)},
		{"task", r.TaskID}, {"thread", r.ThreadID}, {"reply to", r.ReplyTo}, {"priority", r.Priority},
		{relatedLabel(r), r.RelatedID}, {askLabel(r), r.Question}, {"message id", r.MessageID}, {"id", i64toa(r.Seq)},
	})
	for _, t := range tasks {
		body += "\n" + detailFields([][2]string{{"task state", t.State + " (with " + t.Peer + ", since " + clockAt(e, t.UpdatedAt) + ")"}})
	}
	body += "\n\n" + payloadText(r.Data)
	if hint := replyHint(r); hint != "" {
		body += "\n\n" + hint
	}
	return body
}

// replyTypes is the type a reply to a typed message usually has.
var replyTypes = map[string]string{
	wire.MsgTaskAssign:    wire.MsgProgress,
	wire.MsgQuestion:      wire.MsgAnswer,
	wire.MsgReviewRequest: wire.MsgReviewResult,
}

// replyHint says, under a typed message, who reads it and how to answer
// it, with :reply here or from a shell, in its task and thread: the pane has no key to reply with, and the walk read a
// task_assign whose detail ended at its text. --reply-to puts the reply
// in the message's thread, so the command names no --thread (it wrapped
// the command onto a third line in the tenth walk), and names the message
// by its ID in `aoi messages` and `aoi inbox` (its seq), which is shorter than its message
// id and what the shell's list shows. A message in a conversation (a thread
// another message started) also gets the command that reads it all, both
// ways: its "reply to: m-…" said nothing of what it answered (the eleventh
// walk). Only ids the wire accepts (letters, digits, "_:-.") are put in the
// commands, so they are safe to paste; a notification (an answer, a task
// result) gets none.
func replyHint(r agent.Message) string {
	if r.Type == "" || !wire.ValidID(r.MessageID) || !wire.ValidID(r.From) {
		return ""
	}
	typ := replyTypes[r.Type]
	if typ == "" {
		typ = wire.MsgNote
	}
	cmd := "aoi send " + r.From + " " + typ + " TEXT"
	if wire.ValidID(r.TaskID) {
		cmd += " --task " + r.TaskID
	}
	if r.Seq > 0 {
		cmd += " --reply-to " + i64toa(r.Seq)
	} else {
		cmd += " --reply-to " + r.MessageID
	}
	hint := "Your coding assistant reads it (aoi_check_messages). To reply yourself:\n"
	if r.Seq > 0 {
		hint += ":reply " + i64toa(r.Seq) + " TEXT here, or from a shell:\n"
	}
	hint += cmd
	if r.ThreadID != r.MessageID && wire.ValidID(r.ThreadID) {
		hint += "\nThe whole conversation, your messages included:\naoi messages --thread " + r.ThreadID
	}
	return hint
}

// relatedLabel names what a message's related id is: the query it answers,
// the task request it reports on, or something else a peer referred to.
// askLabel names what this agent sent that the message answers: a
// question, or a task request (recorded as "task TYPE").
func askLabel(r agent.Message) string {
	switch {
	case r.Type != "":
		return "your message" // the message of ours a typed reply names
	case strings.HasPrefix(r.Event, "task."):
		return "your request"
	}
	return "your question"
}

func relatedLabel(r agent.Message) string {
	switch {
	case strings.HasPrefix(r.Event, "query."):
		return "about query"
	case strings.HasPrefix(r.Event, "task."):
		return "about task request"
	}
	return "about"
}

// prettyJSON indents a payload for reading; text that is not JSON is shown
// as it is.
func prettyJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return truncateBytes(string(raw), 16<<10)
	}
	return truncateBytes(b.String(), 16<<10)
}

// messageDetailMsg carries a message to show with its task's state.
type messageDetailMsg struct {
	msg   agent.Message
	tasks []agent.CoordTask
}

// messageDetailCmd fetches the coordination task a message concerns (if
// any) and then opens the message; a failed fetch still opens it.
func (m *Model) messageDetailCmd(msg agent.Message) tea.Cmd {
	if msg.TaskID == "" {
		return func() tea.Msg { return messageDetailMsg{msg: msg} }
	}
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, to)
		defer cancel()
		tasks, _ := svc.CoordTasks(ctx, agent.CoordTasksRequest{TaskID: msg.TaskID})
		return messageDetailMsg{msg: msg, tasks: tasks}
	}
}
