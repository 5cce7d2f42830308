package tui

import (
	"cmp"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/inbox"
)

// handleKey routes a key: the top dialog first, then the prompt bar when it
// has focus, then global bindings, then the focused pane. ctrl+c quits
// from anywhere but a dialog, which takes it as cancel (see cancels), and
// the prompt bar, which it clears and closes (see promptCtrlC).
func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	m.notice.seen = true
	if d := m.topDialog(); d != nil {
		a, cmd := d.Update(k)
		return tea.Batch(cmd, m.dialogAction(a))
	}
	if k.String() == "ctrl+c" {
		return m.promptCtrlC()
	}
	if m.focus == focusPrompt {
		return m.promptKey(k)
	}
	if matches(k, m.env.keys.Dialog.Cancel) && m.notice.text != "" {
		m.notice = notice{} // esc dismisses a notice: the pane's keys come back
		if m.focus != focusAudit || m.audit.filterText == "" {
			return nil
		}
		// The keys line said "esc clear filter": it does that too (the
		// walk pressed esc twice).
	}
	if m.width < minWidth || m.height < minHeight {
		// Nothing but the size notice is on screen: only quitting acts,
		// never y on a request the owner cannot see.
		if key.Matches(k, m.env.keys.Global.Quit) {
			return tea.Quit
		}
		return nil
	}
	if cmd, ok := m.globalKey(k); ok {
		return cmd
	}
	if cmd, ok := m.decideKey(k); ok {
		return cmd
	}
	return m.runAction(m.pane(m.focus).Update(k))
}

// globalKey handles the bindings that work in every pane.
func (m *Model) globalKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	g := m.env.keys.Global
	switch {
	case key.Matches(k, g.Quit):
		return m.quit(), true
	case key.Matches(k, g.Help):
		m.pushDialog(newHelpDialog())
		return nil, true
	case key.Matches(k, g.NextPane):
		m.setFocus(m.focus.next())
		return nil, true
	case key.Matches(k, g.PrevPane):
		m.setFocus(m.focus.prev())
		return nil, true
	case key.Matches(k, g.Command):
		return m.openPrompt(":"), true
	case key.Matches(k, g.Ask):
		return m.openPrompt("@"), true
	case key.Matches(k, g.Filter):
		m.setFocus(focusAudit)
		return m.runAction(openFilter{current: m.audit.filterText}), true
	}
	return nil, false
}

// decideKey approves or rejects the target approval from any pane: the
// selected request in the Approvals pane, else the newest one waiting. A
// request must be one keypress away whatever the focus (only a dialog or
// the prompt bar, which take text, come first). Either way the notice line
// says what happened.
func (m *Model) decideKey(k tea.KeyPressMsg) (tea.Cmd, bool) {
	keys := m.env.keys.Approvals
	approve, reject := key.Matches(k, keys.Approve), key.Matches(k, keys.Reject)
	if !approve && !reject {
		return nil, false
	}
	if m.focus == focusApprovals && !m.approvals.onPending() && len(m.approvals.approvals) > 0 {
		// In the pane, the key acts on the row under the cursor: a
		// finished task is not a request, and the newest is not shown.
		m.info("the selected row is not a request waiting for you; select one to approve or reject it")
		return nil, true
	}
	a, ok := m.approvals.target()
	// From another pane, a request the notice line names is what the press
	// means, even when another arrived after it ("y again approves it":
	// the walk's second y named the newer one instead).
	if id := m.notice.approvalID; m.focus != focusApprovals && m.noticeNames(id) {
		if shown, found := m.approvals.byID(id); found {
			a, ok = shown, true
		}
	}
	if !ok && m.approvalAsked != "" && m.approvals.arrived != "" {
		return nil, true // one just arrived and is loading: its notice stays up
	}
	if !ok {
		m.info("no request is waiting for approval")
		return nil, true
	}
	if reject {
		return m.runAction(askRejectReason{a: a}), true
	}
	// The press was meant for what was on screen. Name the target first
	// when a load has just made it the target (an arrival, or the next
	// one after a decision), or when, from another pane, the notice line
	// is not naming it right now (another notice took its place, it was
	// dismissed, or it named a request since cancelled).
	unseen := m.focus != focusApprovals && !m.noticeNames(a.ID)
	if m.approvals.unsettled(a.ID, m.opts.Now()) || unseen {
		k := m.env.keys.Approvals.Approve.Help().Key
		m.announce("next request: " + approvalNamed(a) + " · " + k + " again approves it, enter in Approvals shows it")
		m.showApproval(a.ID)
		return nil, true
	}
	m.info("approving " + approvalNamed(a) + "…")
	return m.runAction(approveAction{a: a}), true
}

// approvalLabel names an approval for a dialog's title: "run_tests from
// bob".
func approvalLabel(a agent.Approval) string {
	return Sanitize(a.TaskType) + " from " + Sanitize(a.Requester)
}

// approvalNamed names an approval for a notice, with what tells it from
// another of its type: "run_tests from bob (suite=./auth/...)", or its id
// when it has no parameters.
func approvalNamed(a agent.Approval) string {
	which := truncate(paramsText(a.Params), 40)
	if which == "" {
		which = "approval " + Sanitize(a.ID)
	}
	if unconfined(a) { // said before the key that approves it
		return "⚠ UNCONFINED " + approvalLabel(a) + " (" + which + ")"
	}
	return approvalLabel(a) + " (" + which + ")"
}

// handlePaste sends pasted text to whatever text field has focus.
func (m *Model) handlePaste(p tea.PasteMsg) tea.Cmd {
	if d := m.topDialog(); d != nil {
		_, cmd := d.Update(p)
		return cmd
	}
	if m.focus == focusPrompt {
		return m.prompt.updateInput(p)
	}
	return nil
}

// openPrompt focuses the prompt bar, starting with prefix.
func (m *Model) openPrompt(prefix string) tea.Cmd {
	cmd := m.prompt.open(prefix, m.focus)
	m.setFocus(focusPrompt)
	return cmd
}

// completions gathers what tab completes in the prompt bar: the peers,
// and the questions waiting for the owner.
func (m *Model) completions() completions {
	c := completions{peers: m.knownPeers, releasable: queryIDs(m.interrupts.rows), askers: map[string]string{}}
	// Who asked, and how the question begins: two questions of one peer
	// are told apart by their words, not by the ids' late characters.
	label := func(q agent.Query) string {
		return Sanitize(q.From) + " “" + truncateWords(Sanitize(q.Text), 24) + "”"
	}
	var drafted []string // waiting with a draft of the owner's work: :release sends it
	for _, q := range m.queries.rows {
		if needsOwner(q) {
			c.waiting = append(c.waiting, q.ID)
			c.askers[q.ID] = label(q)
			if inbox.DraftFoundWork(q.Draft) {
				drafted = append(drafted, q.ID)
			}
		}
	}
	for _, q := range m.interrupts.rows {
		c.askers[q.ID] = label(q)
	}
	c.waiting = append(c.waiting, c.releasable...)
	c.releasable = append(c.releasable, drafted...)
	return c
}

// promptKey handles a key while the prompt bar has focus.
func (m *Model) promptKey(k tea.KeyPressMsg) tea.Cmd {
	pk := m.env.keys.Prompt
	m.prompt.problem = "" // any key answers it; enter may set it again
	switch {
	case key.Matches(k, pk.Cancel):
		m.closePrompt()
		return nil
	case key.Matches(k, pk.Submit):
		line := m.prompt.value()
		if !blankPrompt(line) {
			c, err := parsePrompt(line)
			if err != nil {
				// The bar stays open with the line: mending it (a
				// decline's missing reason) is a few keys, not a retype.
				m.prompt.problem = m.promptProblem(err)
				m.logError(m.prompt.problem) // whole in :errors; a narrow bar cuts it
				return nil
			}
			if problem := cmp.Or(unknownPeer(c, m.knownPeers, Sanitize(m.status.AgentID)), taskProblem(c, m.knownPeers), questionProblem(c, m.queries),
				replyProblem(c, m.messages)); problem != "" {
				m.prompt.problem = problem
				m.logError(problem)
				return nil
			}
		}
		var save tea.Cmd
		if m.prompt.remember(line) {
			save = m.savePromptLine(line)
		}
		m.closePrompt()
		return tea.Batch(m.runPrompt(line), save)
	case key.Matches(k, pk.Complete):
		m.prompt.complete(m.completions())
		return nil
	case key.Matches(k, pk.HistoryPrev):
		m.prompt.history(-1)
		return nil
	case key.Matches(k, pk.HistoryNext):
		m.prompt.history(+1)
		return nil
	case key.Matches(k, m.env.keys.Dialog.Clear):
		// As in a dialog's field; the bar stays open, with the ":" or "@"
		// it was opened with.
		kept := ""
		if v := m.prompt.input.Value(); strings.HasPrefix(v, ":") || strings.HasPrefix(v, "@") {
			kept = v[:1]
		}
		m.prompt.input.SetValue(kept)
		m.prompt.input.CursorEnd()
		m.prompt.choices = ""
		return nil
	}
	return m.prompt.updateInput(k)
}

// promptCtrlC clears and closes the prompt bar, as ctrl+c cancels a
// dialog, so a reflex ctrl+c does not take the whole interface down with a
// half-written line (or the ":" or "@" that opened it). With the prompt
// bar closed ctrl+c quits.
func (m *Model) promptCtrlC() tea.Cmd {
	if m.focus != focusPrompt {
		return tea.Quit
	}
	what := "prompt closed"
	if m.prompt.typed() {
		what = "prompt cleared"
	}
	m.closePrompt()
	m.hint(what + " · ctrl+c again quits")
	return nil
}

func (m *Model) closePrompt() {
	back := m.prompt.close()
	m.setFocus(back)
}

// quit ends the interface, asking first when that stops the agent while
// something waits for the owner: colleagues' questions then go
// unanswered, and a waiting request expires, until aoi runs again.
func (m *Model) quit() tea.Cmd {
	questions, approvals := m.waitingCounts()
	waiting := waitingForOwner(questions, approvals)
	if !m.opts.StopsAgent || waiting == "" {
		return tea.Quit
	}
	verb := "waits"
	if questions+approvals > 1 {
		verb = "wait"
	}
	body := fmt.Sprintf("%s %s for you, and %s stops answering colleagues until aoi runs again (aoi serve keeps an agent running without the interface).",
		waiting, verb, Sanitize(m.status.AgentID))
	for _, k := range m.env.keys.Global.Quit.Keys() {
		if k != "ctrl+c" {
			body += " " + k + " again quits too."
			break
		}
	}
	d := newConfirmDialog("Quit aoi", body, quitAction{}, m.env)
	d.quitKeys = true
	m.pushDialog(d)
	return nil
}

// waitingCounts is how many questions and approvals wait for the owner:
// the status's counts, or the panes' when they already hold more (a
// question just shown in Queries, the status not yet fetched again).
func (m *Model) waitingCounts() (questions, approvals int) {
	if m.statusOK {
		questions, approvals = m.status.PendingQuery+m.status.Buffered, m.status.PendingApprov
	}
	shown := 0
	for _, q := range m.queries.rows {
		switch q.State {
		case agent.QueryEscalated, agent.QueryBuffered, agent.QueryAwaiting:
			shown++
		}
	}
	return max(questions, shown), max(approvals, len(m.approvals.approvals))
}

// waitingForOwner says what waits for the owner ("1 question and 2
// approvals"), or "" when nothing does.
func waitingForOwner(questions, approvals int) string {
	var parts []string
	if questions > 0 {
		parts = append(parts, countOf(questions, "question", "questions"))
	}
	if approvals > 0 {
		parts = append(parts, countOf(approvals, "approval", "approvals"))
	}
	return strings.Join(parts, " and ")
}
