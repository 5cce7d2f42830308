package tui

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/keymap"
	"github.com/charmbracelet/x/ansi"
)

// noticeLevel orders notices: an error is not hidden by a later info.
type noticeLevel int

const (
	levelInfo noticeLevel = iota
	levelPeer             // something a peer sent: an answer, a task result
	levelError
)

// notice is the line above the status bar: the last result, error or
// message from a peer.
type notice struct {
	text  string
	level noticeLevel
	until time.Time // zero: stays until replaced
	// trustFP is the fingerprint of the trust request the notice
	// announces: it goes once the request is decided (here or elsewhere).
	trustFP string
	// approvalID is the request to run something the notice names with
	// y/n: it goes once the request is no longer waiting.
	approvalID string
	// actionFailed marks the failure of something the owner did: a
	// failing refetch does not replace it (failLoad).
	actionFailed bool
	// shortened: the text is the gist of a longer error, which the error
	// log keeps whole (:errors shows it).
	shortened bool
	// seen: a key was pressed while the notice showed. What the owner does
	// next may then say how it went, even over an error (see info).
	seen bool
	// keyHint: the notice is about the key just pressed (what ctrl+c did
	// in the prompt, a filter word taken as text); it goes as soon as the
	// owner does something else it would mislead about (hint).
	keyHint bool
	// attention is the event a notice of something that needs the owner
	// announces, and summary its text before the keys that act on it:
	// the keys are named again from the pane focus moves to (the
	// fourteenth walk read "details in Approvals (tab tab)" in Approvals).
	attention agent.Event
	summary   string
}

// hint is info about the key just pressed: it goes when a dialog opens or
// the next filter is clean, not only after a few seconds.
func (m *Model) hint(text string) {
	m.info(text)
	if m.notice.text == text {
		m.notice.keyHint = true
	}
}

// dropHint removes a notice hint shows.
func (m *Model) dropHint() {
	if m.notice.keyHint {
		m.notice = notice{}
	}
}

// dropActionNotice clears what the line said about the owner's last
// action (an error, or that a question was already answered) as a new
// one begins: under the decline dialog it read as this decline's outcome
// (the third walk). What peers said and what arrived stay.
func (m *Model) dropActionNotice() {
	if m.notice.level == levelError || m.notice.level == levelInfo {
		m.notice = notice{}
	}
}

// How long notices stay. An answer or a message a peer sent stays long
// enough to be read (the Messages pane keeps it too); what only says what
// happened or what arrived (an approval, a question waiting) goes after a
// few seconds, giving the line back to the focused pane's keys: the panes'
// titles, counts and selection keep saying what waits.
const (
	infoFor  = 8 * time.Second
	peerFor  = 5 * time.Minute
	errorFor = 30 * time.Second
)

func (m *Model) info(text string) {
	// A fresh error outlasts background news, not the outcome of what the
	// owner did after reading it.
	if m.notice.level == levelError && !m.notice.seen && m.now().Before(m.notice.until) {
		return
	}
	m.notice = notice{text: text, level: levelInfo, until: m.now().Add(infoFor)}
}

// fail shows what failed and, when err is set, the gist of why
// (errGist): the whole error goes to the error log, which :errors shows.
func (m *Model) fail(what string, err error) {
	whole, gist := failText(what, err)
	m.logError(whole)
	m.notice = notice{text: gist, level: levelError, until: m.now().Add(errorFor), shortened: gist != whole}
}

// failText is "what: why", whole and with the gist of why.
func failText(what string, err error) (whole, gist string) {
	if err == nil {
		return what, what
	}
	why := promptAdvice(Sanitize(coreGone(err)))
	return what + ": " + why, what + ": " + errGist(why)
}

// cliAdvice matches the commands the core's errors advise, written for a
// shell; promptAdvice writes them as the prompt bar takes them, since the
// owner reading them is in the interface. Only advice to this owner is
// rewritten: "its owner runs `aoi peers trust`" is about the other machine.
var cliAdvice = strings.NewReplacer(
	"`aoi discover`", "`:discover`",
	"pin it with `aoi peers trust ", "pin it with `:trust ",
	" FINGERPRINT --endpoint HOST:PORT`", " FINGERPRINT HOST:PORT`",
	"`aoi reload`", "`:reload`",
	"e.g. --endpoint 127.0.0.1:8443", "e.g. 127.0.0.1:8443 after the fingerprint",
	"(aoi peers refuse ", "(x on it in the Peers pane, or aoi peers refuse ",
	"(aoi query --scope ", "(@AGENT --scope ",
)

func promptAdvice(s string) string { return cliAdvice.Replace(s) }

// coreGone words the error of a core that stopped under the interface:
// the client's own advice (start one, or run aoi for the interface) is
// for a command line, and the interface is already running.
func coreGone(err error) string {
	var nd *ctlclient.NoDaemonError
	if !errors.As(err, &nd) || !nd.SetUp() {
		return err.Error()
	}
	return "the aoi core for " + nd.DataDir + " is not running; start it again with `aoi serve --data-dir " + nd.DataDir +
		"` (this interface reconnects by itself)"
}

// failAction shows why something the owner did failed.
func (m *Model) failAction(what string, err error) {
	m.fail(what, err)
	m.notice.actionFailed = true
}

// failLoad shows a failed fetch, unless the owner is reading why their
// action failed: the refetch that follows it fails for the same reason
// (the core is gone) and says less ("cannot load status" hides "turning
// focus mode off failed"). The error log has it either way.
func (m *Model) failLoad(what string, err error) {
	if m.notice.actionFailed && m.now().Before(m.notice.until) {
		whole, _ := failText(what, err)
		m.logError(whole)
		return
	}
	m.fail(what, err)
}

func (m *Model) peerNotice(text string) {
	m.notice = notice{text: text, level: levelPeer, until: m.now().Add(peerFor)}
}

// announce shows that something arrived (a request to run something, a
// question waiting): wrapped as what a peer sent is, so the keys at its end
// show, but gone as soon as an info notice.
func (m *Model) announce(text string) {
	m.notice = notice{text: text, level: levelPeer, until: m.now().Add(infoFor)}
}

// attention rings the bell and/or sends an OSC 9 desktop notification.
// The summary comes from the core but may quote a peer, so it is sanitised
// (an unsanitised BEL or ESC would end the OSC early and inject the rest).
func (m *Model) attention(ev agent.Event) tea.Cmd {
	var seq string
	if m.opts.Bell {
		seq += "\a"
	}
	if m.opts.OSC9 {
		body := Sanitize(ev.Summary)
		if body == "" {
			body = "aoi: something needs you"
		}
		seq += ansi.Notify(truncate(body, 200))
	}
	// A message's attention event ("eng: query.completed") that arrives
	// after the message itself was shown says less than its notice ("↩
	// eng re “…”: …"): it rings, but leaves the notice (a race CI lost).
	if ev.Summary != "" && (ev.ID == "" || ev.ID != m.shownMessage) {
		keys := m.attentionKeys(ev)
		m.announce("⚑ " + Sanitize(ev.Summary) + keys)
		m.notice.attention, m.notice.summary = ev, "⚑ "+Sanitize(ev.Summary)
		switch {
		case ev.ID != "" && ev.ID == m.trustAsked:
			m.notice.trustFP = ev.ID
		case ev.ID != "" && ev.ID == m.approvalAsked && keys != "":
			m.showApproval(ev.ID)
		}
	}
	if seq == "" {
		return nil
	}
	return tea.Raw(seq)
}

// attentionKeys names the keys that act on what an attention event
// announces: y/n for the request to run something that just arrived (they
// work from any pane), the Peers pane's t/x for a trust request.
func (m *Model) attentionKeys(ev agent.Event) string {
	if m.topDialog() != nil {
		return "" // the open dialog takes the keys (its y confirms it): name none
	}
	switch {
	case ev.ID != "" && ev.ID == m.approvalAsked:
		k := m.env.keys.Approvals
		more := " · details in Approvals"
		switch {
		case m.focus == focusApprovals:
			more = " · enter for details"
		case m.focus < numPanes:
			more += " (" + tabsTo(m.focus, focusApprovals) + ")"
		}
		return " — " + k.Approve.Help().Key + " approve · " + k.Reject.Help().Key + " reject" + more
	case ev.ID != "" && ev.ID == m.trustAsked:
		// t and x work in Peers only: from another pane the notice says
		// how to get there, as the approval's does (the walk pressed t in
		// Approvals, and nothing happened).
		k := m.env.keys.Peers
		keys := " — " + k.Trust.Help().Key + " trust, " + k.Refuse.Help().Key + " refuse"
		switch {
		case m.focus == focusPeers:
			return keys
		case m.focus < numPanes:
			return keys + " in the Peers pane (" + tabsTo(m.focus, focusPeers) + ")"
		}
		return keys + " in the Peers pane"
	}
	return ""
}

// renameAttentionKeys names again, from the pane now focused, the keys
// at the end of a notice announcing something that needs the owner: how
// to reach the pane they work in is wrong once focus has moved.
func (m *Model) renameAttentionKeys() {
	n := &m.notice
	if n.summary == "" || n.text == "" {
		return
	}
	if keys := m.attentionKeys(n.attention); keys != "" {
		n.text = n.summary + keys
	}
}

// showApproval records that the notice names approval id with y/n.
func (m *Model) showApproval(id string) { m.notice.approvalID = id }

// noticeNames reports whether the notice line shows, right now, the
// request id with its keys.
func (m *Model) noticeNames(id string) bool {
	n := m.notice
	return id != "" && n.approvalID == id && n.text != "" && (n.until.IsZero() || m.opts.Now().Before(n.until))
}

// dropDecidedApprovalNotice clears the notice of a request that is no
// longer waiting (decided, cancelled by its requester, expired): its y
// would name another.
func (m *Model) dropDecidedApprovalNotice(pending []agent.Approval) {
	id := m.notice.approvalID
	if id == "" || slices.ContainsFunc(pending, func(a agent.Approval) bool { return a.ID == id }) {
		return
	}
	m.notice = notice{}
}

// tabsTo says how to reach pane to from pane from with tab or shift+tab,
// whichever is fewer presses: "tab", "tab tab", "shift+tab".
func tabsTo(from, to focus) string {
	fwd := (int(to) - int(from) + int(numPanes)) % int(numPanes)
	name, n := "tab", fwd
	if back := int(numPanes) - fwd; back < fwd {
		name, n = "shift+tab", back
	}
	return strings.TrimSpace(strings.Repeat(name+" ", n))
}

// dropDecidedTrustNotice clears the notice of a trust request that is no
// longer pending (trusted or refused, here or with the CLI).
func (m *Model) dropDecidedTrustNotice(peers []agent.Peer) {
	fp := m.notice.trustFP
	if fp == "" {
		return
	}
	for _, p := range peers {
		if p.Fingerprint == fp && p.Trust == agent.TrustPending {
			return
		}
	}
	m.notice = notice{}
}

// handleMessages shows answers to our asks and task results as notices. The
// first load only finds where the backlog ends, so old messages stay quiet.
func (m *Model) handleMessages(msgs []agent.Message) tea.Cmd {
	m.messages.add(msgs)
	for _, msg := range msgs {
		if msg.Seq > m.msgSeq {
			m.msgSeq = msg.Seq
		}
		if m.msgPrimed {
			m.showMessage(msg)
		}
	}
	if len(msgs) >= messageLimit {
		return m.markDirty(dMessages) // more are waiting
	}
	m.msgPrimed = true
	return m.readMessages()
}

// readMessages marks the messages read when the owner is looking at them:
// the Messages pane has the focus and holds unread rows. The mark is
// stored, so the unread count in the status bar survives restarts.
func (m *Model) readMessages() tea.Cmd {
	upto := m.messages.newestUnread()
	if m.focus != focusMessages || upto == 0 || upto <= m.readAsked {
		return nil
	}
	m.readAsked = upto
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, to)
		defer cancel()
		return readMarkedMsg{upto: upto, err: svc.MarkMessagesRead(ctx, agent.MarkReadRequest{UptoSeq: upto})}
	}
}

// readMarkedMsg reports a stored read mark.
type readMarkedMsg struct {
	upto int64
	err  error
}

// showMessage turns one peer message into a notice.
func (m *Model) showMessage(msg agent.Message) {
	m.shownMessage = strconv.FormatInt(msg.Seq, 10)
	from := Sanitize(msg.From)
	text := messageText(msg.Data)
	q := m.asks[msg.RelatedID]
	if q == "" && msg.Question != "" { // asked from the CLI or another interface
		q = truncateWords(Sanitize(msg.Question), 40)
	}
	if q != "" && msg.RelatedID != "" {
		verb := " re “" + q + "”: "
		if msg.Event == wire.EventQueryDeclined {
			verb = " declined “" + q + "”: " // a reason, not an answer
		}
		m.peerNotice("↩ " + from + verb + text)
		return
	}
	if msg.Type != "" { // a typed message for the assistant (aoi.message)
		if msg.Origin != "" && msg.Origin != msg.From {
			from = Sanitize(msg.Origin) + " via " + from
		}
		if msg.TaskID != "" {
			from += " [" + Sanitize(msg.TaskID) + "]"
		}
	}
	// The kind in the Messages pane's words ("review asked", "task
	// done"), not the protocol's (review_request, task.completed).
	m.peerNotice("✉ " + from + " " + messageKind(msg) + ": " + text)
}

// saidIn reports whether summary already says what err says: its last
// clause ("the owner rejected the request: not today" → "not today").
func saidIn(summary, err string) bool {
	if err == "" {
		return true
	}
	if i := strings.LastIndex(err, ": "); i >= 0 {
		err = err[i+2:]
	}
	return strings.Contains(summary, strings.TrimSpace(err))
}

// messageText extracts a one-line summary from a message or result payload.
func messageText(data json.RawMessage) string {
	var v struct {
		Summary  string   `json:"summary"`
		Desc     string   `json:"description"`
		Feedback string   `json:"feedback"`
		Status   string   `json:"status"`
		Error    string   `json:"error"`
		Message  string   `json:"message"`
		Blockers []string `json:"blockers"`
	}
	if json.Unmarshal(data, &v) != nil {
		return Sanitize(string(data))
	}
	if v.Summary != "" { // a task's result line says its status and why already
		v.Status = ""
		if saidIn(v.Summary, v.Error) {
			v.Error = ""
		}
	}
	parts := []string{}
	for _, s := range []string{v.Summary, v.Desc, v.Message, v.Feedback, v.Status, v.Error} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	// The secretary's summary names its blockers already ("Blocked by:
	// …"): only those it does not name are added.
	var unsaid []string
	for _, b := range v.Blockers {
		if !strings.Contains(v.Summary, firstRunes(b, 40)) {
			unsaid = append(unsaid, b)
		}
	}
	if len(unsaid) > 0 {
		parts = append(parts, "blockers: "+strings.Join(unsaid, "; "))
	}
	if len(parts) == 0 {
		return Sanitize(string(data))
	}
	return Sanitize(strings.Join(parts, " · "))
}

// renderBottomLine is the prompt bar when open, else the notice or a hint.
func (m *Model) renderBottomLine() string {
	if m.focus == focusPrompt {
		return m.prompt.view(m.width)
	}
	st := m.env.styles
	if m.notice.text != "" {
		style := st.Notice
		if m.notice.level == levelError {
			style = st.Error
		}
		lines := m.noticeWrapped()
		for i, l := range lines {
			lines[i] = style.Render(fit(l, m.width))
		}
		return strings.Join(lines, "\n")
	}
	if m.topDialog() != nil {
		// The pane's keys do not reach it now: the dialog shows its own.
		c := m.env.keys.Dialog.Cancel
		closeIt := key.NewBinding(key.WithKeys(c.Keys()...), key.WithHelp(c.Help().Key, "closes the dialog (its keys are in it)"))
		return st.Muted.Render(fit(fitHints([]key.Binding{closeIt}, m.width), m.width))
	}
	k := m.env.keys.Global
	hints := append(m.paneKeys(), k.Help, k.NextPane, k.Command, k.Ask, k.Quit)
	return st.Muted.Render(fit(fitHints(hints, m.width), m.width))
}

// fitHints is as many whole hints as fit in w cells, from the first: the
// bindings come most important first (the focused pane's own keys, then
// help), so those that do not fit are the least important ones. A first
// hint wider than w alone is cut.
func fitHints(bs []key.Binding, w int) string {
	hints := make([]string, 0, len(bs))
	for _, b := range bs {
		hints = append(hints, helpKeys(b))
	}
	return fitParts(hints, w)
}

// fitParts joins as many whole hints as fit in w cells, from the first,
// with " · " between them; empty ones are skipped.
func fitParts(hints []string, w int) string {
	line := ""
	for _, h := range hints {
		if h == "" {
			continue
		}
		next := h
		if line != "" {
			next = line + " · " + h
		}
		if line != "" && width(next) > w {
			break
		}
		line = next
	}
	return line
}

// maxNoticeLines bounds the lines an error or a peer's notice takes.
const maxNoticeLines = 3

// noticeWrapped is the notice as it is drawn: an error (the reason and the
// fix) or what a peer sent (an answer) wraps to up to maxNoticeLines lines
// so it can be read, the panes giving way meanwhile; anything else is one
// line.
func (m *Model) noticeWrapped() []string {
	lines := m.noticeLines()
	for i, l := range lines {
		lines[i] = strings.ReplaceAll(l, nbsp, " ")
	}
	return lines
}

// nbsp is a space the wrap does not break at (ansi.Wrap keeps it inside a
// word); noticeWrapped writes it back as a space.
const nbsp = "\u00a0"

// tabRun is the way to a pane a notice names, "(tab tab)": kept on one
// line, so the second line does not start with a lone "tab)" (the ninth
// walk, at 100 columns).
var tabRun = regexp.MustCompile(`\((?:shift\+)?tab(?: (?:shift\+)?tab)+\)`)

// noticeLines is noticeWrapped before its kept spaces are written back.
func (m *Model) noticeLines() []string {
	text, tail := tabRun.ReplaceAllStringFunc(m.notice.text, func(run string) string {
		return strings.ReplaceAll(run, " ", nbsp)
	}), ""
	if m.notice.level == levelError {
		text = "✗ " + text
	}
	if m.notice.shortened {
		tail = " · " + wholeErrorHint
	}
	if m.width <= 0 {
		return []string{text}
	}
	if m.notice.level == levelInfo {
		// Up to two lines: a notice that names a question or a request
		// ends with what to do about it, which a cut would lose.
		lines := wrap(text, m.width)
		if len(lines) <= maxInfoLines {
			return lines
		}
		return append(lines[:maxInfoLines-1], truncateWords(strings.Join(lines[maxInfoLines-1:], " "), m.width))
	}
	if lines := wrap(text+tail, m.width); len(lines) <= maxNoticeLines {
		return lines
	}
	// Too long: the text is cut so the tail, which says where the rest
	// is, still shows.
	lines := wrap(text, m.width)
	n := min(len(lines), maxNoticeLines)
	last := strings.Join(lines[n-1:], " ")
	return append(lines[:n-1], truncateWords(last, m.width-width(tail))+tail)
}

// maxInfoLines is the most lines a notice that is not an error takes.
const maxInfoLines = 2

// wholeErrorHint ends a notice that shows the gist of a longer error.
const wholeErrorHint = ":errors shows it whole"

// bottomLines is how many lines the notice line takes now.
func (m *Model) bottomLines() int {
	if m.focus == focusPrompt {
		return len(m.prompt.viewLines(m.width))
	}
	if m.notice.text == "" {
		return 1
	}
	return max(1, len(m.noticeWrapped()))
}

// paneKeys are the keys that act in the focused pane, so a person sees
// how to answer or approve without opening the help.
func (m *Model) paneKeys() []key.Binding {
	k := m.env.keys
	// A pane's item keys are offered only when it has an item for them:
	// "e answer" under "No queries received yet." acts on nothing.
	switch m.focus {
	case focusQueries:
		if c := m.queries.list.cursor; c < len(m.queries.rows) {
			return queryRowKeys(k, m.queries.rows[c])
		}
		return nil
	case focusInterrupts:
		if c := m.interrupts.list.cursor; c < len(m.interrupts.rows) {
			// R only while it would send a draft: with none to send it
			// only says to answer or decline each.
			var all []key.Binding
			if releasable(m.interrupts.rows) > 0 {
				all = append(all, k.Interrupts.ReleaseAll)
			}
			return queryRowKeys(k, m.interrupts.rows[c], all...)
		}
		return nil
	case focusApprovals:
		return m.approvalsKeys()
	case focusPeers:
		return m.peersKeys()
	case focusAudit:
		var out []key.Binding
		if m.audit.filterText != "" {
			out = append(out, clearFilterKey(k))
		}
		out = append(out, k.Global.Filter)
		if m.audit.n() > 0 {
			out = append(out, k.List.Open)
		}
		return out
	case focusMessages:
		if len(m.messages.rows) == 0 {
			return nil
		}
		return []key.Binding{k.List.Open}
	}
	return nil
}

// clearFilterKey is the key that clears the Audit pane's filter: the
// dialogs' cancel key (esc), named for what it does there.
func clearFilterKey(k keymap.KeyMap) key.Binding {
	c := k.Dialog.Cancel
	return key.NewBinding(key.WithKeys(c.Keys()...), key.WithHelp(c.Help().Key, "clear filter"))
}

// approvalsKeys are the Approvals pane's keys: approve and reject while a
// request waits, open while any row shows (finished tasks too).
func (m *Model) approvalsKeys() []key.Binding {
	k := m.env.keys
	var out []key.Binding
	if len(m.approvals.approvals) > 0 {
		out = append(out, k.Approvals.Approve, k.Approvals.Reject)
	}
	if m.approvals.n() > 0 {
		out = append(out, k.List.Open)
	}
	return out
}

// peersKeys are the Peers pane's keys: trust while a request waits,
// refuse then or on a pinned peer (it stops trusting it), open on a peer.
func (m *Model) peersKeys() []key.Binding {
	k := m.env.keys
	p := m.peers
	if len(p.rows) == 0 {
		return nil
	}
	var out []key.Binding
	waiting := p.pending() > 0
	if waiting {
		out = append(out, k.Peers.Trust)
	}
	if r, _ := p.selected(); waiting || (r.Trust == agent.TrustPinned && r.Fingerprint != "") {
		out = append(out, k.Peers.Refuse)
	}
	return append(out, k.List.Open)
}

// helpKeys renders bindings as "key what · key what", skipping disabled
// ones (a user may unbind a key in the config).
func helpKeys(bs ...key.Binding) string {
	parts := make([]string, 0, len(bs))
	for _, b := range bs {
		if b.Enabled() && b.Help().Key != "" {
			parts = append(parts, b.Help().Key+" "+b.Help().Desc)
		}
	}
	return strings.Join(parts, " · ")
}

// firstRunes is s cut to n runes.
func firstRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
