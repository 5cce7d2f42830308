package tui

import (
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// handleBridge runs the event bridge: subscribe, wait, re-arm, coalesce.
func (m *Model) handleBridge(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case subscribedMsg:
		if msg.err != nil {
			m.fail("cannot follow live updates (retrying)", msg.err)
			return m.retrySubscribe()
		}
		m.subscribed, m.retries = true, 0
		// Load again now that events are followed: what changed between
		// the first load and the subscription has no event to tell us.
		return tea.Batch(waitEvent(msg.ch), m.markDirty(dAll))
	case eventMsg:
		return tea.Batch(m.handleEvent(msg.ev), waitEvent(msg.ch))
	case eventsClosedMsg:
		m.subscribed = false
		if m.ctx.Err() != nil {
			return nil
		}
		m.fail("live updates stopped (the core closed the stream); reconnecting", nil)
		return m.retrySubscribe()
	case resubscribeMsg:
		return tea.Batch(subscribe(m.ctx, m.svc, m.lastEvent), m.markDirty(dAll))
	case flushMsg:
		d := m.pending
		m.pending, m.flushing = 0, false
		return tea.Batch(m.fetchCmds(d)...)
	}
	return nil
}

// retrySubscribe waits with a capped back-off before subscribing again.
func (m *Model) retrySubscribe() tea.Cmd {
	m.retries++
	d := time.Duration(min(m.retries, 5)) * time.Second
	return tea.Tick(d, func(time.Time) tea.Msg { return resubscribeMsg{} })
}

// handleEvent records an event and schedules the fetches it calls for.
func (m *Model) handleEvent(ev agent.Event) tea.Cmd {
	if cmd, ok := m.handleLink(ev); ok {
		return cmd
	}
	if ev.Seq > m.lastEvent {
		m.lastEvent = ev.Seq
	}
	var cmds []tea.Cmd
	if ev.Kind == agent.EventAttention {
		cmds = append(cmds, m.attention(ev))
	}
	if ev.Kind == agent.EventMessagesRead { // read elsewhere (aoi inbox, another interface)
		if upto, err := strconv.ParseInt(ev.ID, 10, 64); err == nil {
			m.messages.markRead(upto)
		}
	}
	if ev.Kind == agent.EventMessagesReadSome { // aoi inbox --limit: the ones it showed
		m.messages.markReadSome(strings.Split(ev.ID, ","))
	}
	if ev.Kind == agent.EventApprovalExpired && ev.Summary != "" {
		// Nobody decided it: say so, or the request just vanishes from
		// the pane (the requester is told it expired).
		m.peerNotice(Sanitize(ev.Summary) + " unanswered; the requester was told")
	}
	if ev.Kind == agent.EventApprovalRequested && ev.ID != "" {
		// Select it when loaded: y acts on the newest request. Not under
		// the owner's hand: in the Approvals pane the cursor stays where
		// they put it.
		if m.focus != focusApprovals {
			m.approvals.arrived = ev.ID
		}
		m.approvalAsked = ev.ID // the attention event that follows names y/n
	}
	if ev.Kind == agent.EventPeerChanged {
		m.dropStaleUnreachable(ev)
	}
	if ev.Kind == agent.EventTrustRequested && ev.ID != "" {
		m.trustAsked = ev.ID // the attention event that follows names the keys
	}
	if ev.Kind == agent.EventConfigReloaded {
		m.dropStaleReloadError()
		cmds = append(cmds, m.reloadUI())
	}
	cmds = append(cmds, m.markDirty(dirtyFor(ev.Kind)))
	return tea.Batch(cmds...)
}

// dropStaleReloadError closes a "Config not reloaded" dialog once a
// reload went through (from the CLI, SIGHUP or :reload): the problem it
// lists is fixed, and the keys meant for the panes went to it.
func (m *Model) dropStaleReloadError() {
	if d, ok := m.topDialog().(*detailDialog); ok && d.title == reloadErrorTitle {
		m.popDialog()
	}
}

// dropStaleUnreachable clears an error saying a peer is unreachable once
// the peer is seen again: the Peers pane shows it online, and the error
// would contradict it until dismissed.
func (m *Model) dropStaleUnreachable(ev agent.Event) {
	if ev.Agent == "" || (ev.Summary != "online" && ev.Summary != "announced") || m.notice.level != levelError {
		return
	}
	if strings.Contains(m.notice.text, Sanitize(ev.Agent)+" is unreachable") {
		m.notice = notice{}
	}
}

// refreshAnswerDialog keeps an open answer dialog's question up to date:
// answered or declined elsewhere (the CLI, another interface) meanwhile,
// its head says so before the owner sends a second answer. What the owner
// typed stays.
func (m *Model) refreshAnswerDialog(rows []agent.Query) {
	d, ok := m.topDialog().(*answerDialog)
	if !ok {
		return
	}
	for _, q := range rows {
		if q.ID == d.q.ID {
			d.q = q
			return
		}
	}
}

// markDirty adds kinds to the next flush and schedules one if needed.
func (m *Model) markDirty(d dirty) tea.Cmd {
	m.pending |= d
	if m.flushing {
		return nil
	}
	m.flushing = true
	return flushAfter()
}

// handleData applies fetched data, dropping results older than what is shown.
func (m *Model) handleData(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case fetched[agent.Status]:
		if m.fresh(&m.applied.status, msg.seq, msg.err, "status") {
			m.status, m.statusOK = msg.val, true
			m.peers.setSelf(msg.val)
			m.messages.setWaiting(msg.val.Waiting, msg.val.WaitingTotal)
			m.queries.noContexts = msg.val.Contexts == 0
			m.fillWelcome()
			return m.loadPromptHistory(), true
		}
	case fetched[[]agent.Peer]:
		if m.fresh(&m.applied.peers, msg.seq, msg.err, "peers") {
			m.knownPeers = msg.val
			m.peers.setPeers(msg.val)
			m.dropDecidedTrustNotice(msg.val)
		}
	case fetched[[]agent.Query]:
		if m.fresh(&m.applied.queries, msg.seq, msg.err, "queries") {
			ring := m.arrivedWhileAway(msg.val)
			m.queries.setQueries(msg.val)
			m.interrupts.setQueries(msg.val)
			m.refreshAnswerDialog(msg.val)
			if ring != nil {
				return ring, true
			}
		}
	case fetched[[]agent.Approval]:
		if m.fresh(&m.applied.approvals, msg.seq, msg.err, "approvals") {
			before := m.approvals.targetID()
			m.approvals.setApprovals(msg.val)
			m.approvals.noteTarget(before, m.now())
			m.dropDecidedApprovalNotice(msg.val)
			if d, ok := m.topDialog().(*approvalDialog); ok {
				d.refresh(msg.val)
			}
		}
	case fetched[[]agent.Task]:
		if m.fresh(&m.applied.tasks, msg.seq, msg.err, "tasks") {
			m.approvals.setTasks(msg.val)
		}
	case fetched[[]agent.Message]:
		if m.fresh(&m.applied.messages, msg.seq, msg.err, "messages") {
			return m.handleMessages(msg.val), true
		}
	case auditPageMsg:
		if msg.err != nil {
			m.failLoad("cannot load the audit log", msg.err)
		}
		return m.runAction(m.audit.applyPage(msg)), true
	case askedMsg:
		return m.handleAsked(msg), true
	case reloadedMsg:
		return m.handleReloaded(msg), true
	case taskRequestedMsg:
		m.handleTaskRequested(msg)
		return m.markDirty(dStatus), true // the status lists it as waiting
	case readMarkedMsg:
		if msg.err != nil {
			m.readAsked = 0
			m.fail("cannot mark messages read", msg.err)
			return nil, true
		}
		m.messages.markRead(msg.upto)
		return m.markDirty(dStatus), true
	case outboxShownMsg:
		m.handleOutboxShown(msg)
	case messageDetailMsg:
		m.pushDialog(newDetailDialog("Message from "+messageFrom(msg.msg), messageDetail(msg.msg, msg.tasks, m.env)))
	case uiReloadedMsg:
		m.applyUI(msg)
	default:
		return nil, false
	}
	return nil, true
}

// fresh reports whether a fetch result is newer than the one shown, and
// shows a fetch error in the status line.
func (m *Model) fresh(applied *uint64, seq uint64, err error, what string) bool {
	if seq <= *applied {
		return false
	}
	*applied = seq
	if err != nil {
		m.failLoad("cannot load "+what, err)
		return false
	}
	return true
}

// handleDone reports the end of an owner action and refetches what changed.
func (m *Model) handleDone(msg doneMsg) tea.Cmd {
	if msg.err != nil {
		failed := msg.failed
		if failed == "" {
			failed = msg.what
		}
		m.failAction(failed+" failed", msg.err)
	} else {
		m.info(msg.what)
	}
	if msg.after != nil {
		msg.after(m, msg.err)
	}
	return m.markDirty(msg.refresh)
}
