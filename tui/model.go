// Package tui is aoi's terminal interface: one root model that owns the
// layout, the focus ring and a stack of dialogs, six panes (peers, queries,
// interrupts, approvals, audit, messages), a prompt bar and a status bar. It drives the
// core only through Service (the part of agent.Service it uses), so it
// works the same in-process and attached to a daemon over the control
// socket.
package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/themes"
)

// Model is the root Bubble Tea model.
type Model struct {
	svc  Service
	opts Options
	ctx  context.Context
	env  *env
	dark bool

	width, height int
	laidOutFor    int // the notice lines the layout left room for
	focus         focus
	lastOpen      [2]focus
	layout        layout

	peers      *peersPane
	queries    *queriesPane
	interrupts *interruptsPane
	approvals  *approvalsPane
	audit      *auditPane
	messages   *messagesPane
	dialogs    []dialog
	prompt     *promptBar
	// promptHistory is how far the stored prompt history has loaded.
	promptHistory historyState

	status     agent.Status
	statusOK   bool
	ticks      int // one-second ticks seen (handleTick)
	notice     notice
	errLog     []loggedError // every error shown, whole (:errors)
	knownPeers []agent.Peer

	seq      uint64 // last fetch sequence number handed out
	applied  appliedSeqs
	pending  dirty // kinds to fetch at the next flush
	flushing bool

	lastEvent  int64
	subscribed bool
	coreLost   bool // an attached interface lost its aoi serve (conn.go)
	// awayQueries are the questions shown when the core came back, until
	// the next fetch says which arrived meanwhile (conn.go; nil: none).
	awayQueries map[string]bool
	// shownMessage is the seq of the message last shown as a notice.
	shownMessage string
	retries      int

	msgSeq    int64
	readAsked int64 // the newest read mark asked for, so keys do not repeat it
	msgPrimed bool
	asks      map[string]string // query id → question asked (shared with the Messages pane)
	unsent    map[string]string // query id → an answer the owner wrote that could not be sent

	welcome *detailDialog // the first-run dialog, filled in when the status says where we listen

	approvalAsked string // id of the newest request to run something (its notice names y/n)
	trustAsked    string // fingerprint of the newest trust request (its attention notice names t/x)
}

// appliedSeqs is the newest fetch applied per kind.
type appliedSeqs struct {
	status, peers, queries, approvals, tasks, messages uint64
}

// New builds the interface for svc. It does no I/O: Init starts the fetches.
func New(svc Service, opts Options) *Model {
	opts = opts.withDefaults()
	m := &Model{
		svc:   svc,
		opts:  opts,
		ctx:   context.Background(),
		dark:  opts.DarkBackground,
		focus: focusQueries,
	}
	m.env = &env{keys: *opts.KeyMap, now: opts.Now(), loc: opts.Location}
	m.env.styles = themes.NewStyles(palette(opts, m.dark), m.dark)
	m.peers = newPeersPane(m.env)
	m.queries = newQueriesPane(m.env)
	m.interrupts = newInterruptsPane(m.env)
	m.approvals = newApprovalsPane(m.env)
	m.audit = newAuditPane(m.env)
	m.messages = newMessagesPane(m.env)
	m.asks = m.messages.asks
	m.prompt = newPromptBar(m.env)
	m.lastOpen = [2]focus{focusQueries, focusApprovals}
	m.pane(m.focus).Focus()
	if opts.FirstRun != nil {
		m.welcome = newDetailDialog("Welcome to aoi", firstRunText(*opts.FirstRun, ""))
		m.pushDialog(m.welcome)
	}
	return m
}

// pane returns the pane for a focus value.
func (m *Model) pane(f focus) pane {
	switch f {
	case focusPeers:
		return m.peers
	case focusQueries:
		return m.queries
	case focusInterrupts:
		return m.interrupts
	case focusApprovals:
		return m.approvals
	case focusMessages:
		return m.messages
	}
	return m.audit
}

// Init subscribes to events, loads everything once, asks the terminal for
// its background and starts the clock.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{subscribe(m.ctx, m.svc, 0), tick()}
	cmds = append(cmds, m.fetchCmds(dAll)...)
	if m.opts.Palette == nil && !m.opts.NoColor {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	return tea.Batch(cmds...)
}

// Update routes a message to the handler for its kind, then gives the
// notice line the lines it needs now (an error wraps; the panes give way).
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	if m.width >= minWidth && m.height >= minHeight && m.bottomLines() != m.laidOutFor {
		m.relayout()
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m, tea.Batch(m.handleKey(msg), m.readMessages())
	case tea.PasteMsg:
		return m, m.handlePaste(msg)
	case tea.WindowSizeMsg:
		m.handleResize(msg.Width, msg.Height)
		return m, nil
	case tea.BackgroundColorMsg:
		m.setBackground(msg.IsDark())
		return m, nil
	case tickMsg:
		return m, m.handleTick()
	case subscribedMsg, eventMsg, eventsClosedMsg, resubscribeMsg, flushMsg:
		return m, m.handleBridge(msg)
	case doneMsg:
		return m, m.handleDone(msg)
	}
	if cmd, ok := m.handleData(msg); ok {
		return m, cmd
	}
	if m.handlePromptHistory(msg) {
		return m, nil
	}
	return m, m.updateInputs(msg)
}

// updateInputs passes other messages (cursor blink) to the text fields.
func (m *Model) updateInputs(msg tea.Msg) tea.Cmd {
	if d := m.topDialog(); d != nil {
		_, cmd := d.Update(msg)
		return cmd
	}
	if m.focus == focusPrompt {
		return m.prompt.updateInput(msg)
	}
	return nil
}

// handleResize re-lays out the panes for a new terminal size.
func (m *Model) handleResize(w, h int) {
	m.width, m.height = w, h
	m.relayout()
}

func (m *Model) relayout() {
	if m.width < minWidth || m.height < minHeight {
		return
	}
	paneFocus := m.focus
	if paneFocus == focusPrompt {
		paneFocus = m.prompt.returnTo
	}
	m.laidOutFor = m.bottomLines()
	m.layout = computeLayout(m.width, m.height-(m.laidOutFor-1), paneFocus, m.lastOpen)
	for i, col := range m.layout.cols {
		w, h := m.layout.paneSize(i)
		for _, f := range col {
			m.pane(f).SetSize(w, h)
			m.pane(f).SetOpen(f == m.layout.expanded[i])
		}
	}
	m.prompt.setWidth(m.width)
}

// setBackground rebuilds the styles once the terminal reports its colour.
func (m *Model) setBackground(dark bool) {
	m.dark = dark
	m.env.styles = themes.NewStyles(palette(m.opts, dark), dark)
	m.prompt.restyle()
}

// handleTick advances the clock, expires the notice and re-arms.
func (m *Model) handleTick() tea.Cmd {
	m.env.now = m.opts.Now()
	if !m.notice.until.IsZero() && m.env.now.After(m.notice.until) {
		m.notice = notice{}
	}
	// While the secretary indexes history no event says how far it is:
	// the status bar's figure is refreshed every few seconds instead.
	m.ticks++
	if m.statusOK && indexingPercent(m.status.History) >= 0 && m.ticks%historyPollTicks == 0 {
		return tea.Batch(tick(), m.markDirty(dStatus))
	}
	return tick()
}

// historyPollTicks is how many one-second ticks pass between status
// fetches while history is being indexed.
const historyPollTicks = 5

// setFocus moves the focus to pane f.
func (m *Model) setFocus(f focus) {
	if m.focus < numPanes {
		m.pane(m.focus).Blur()
	}
	m.focus = f
	if f < numPanes {
		m.pane(f).Focus()
		if m.width >= minWidth {
			l := computeLayout(m.width, m.height, f, m.lastOpen)
			m.lastOpen[l.column(f)] = f
		}
	}
	m.renameAttentionKeys()
	m.relayout()
}

// View renders the frame. Mouse reporting stays off so the terminal's own
// selection works.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeNone
	v.WindowTitle = "aoi"
	if m.statusOK {
		v.WindowTitle = "aoi — " + Sanitize(m.status.AgentID)
	}
	return v
}

// Render returns the frame as styled text: exactly width×height cells.
func (m *Model) Render() string {
	if m.width == 0 {
		return "starting aoi…"
	}
	if m.width < minWidth || m.height < minHeight {
		// Wrapped, so the size it needs shows at any width.
		msg := fmt.Sprintf("aoi needs at least %d×%d; this terminal is %d×%d. Make the window larger.", minWidth, minHeight, m.width, m.height)
		return fitBlock(strings.Join(wrap(msg, m.width), "\n"), m.width, m.height)
	}
	var body string
	if d := m.topDialog(); d != nil {
		body = d.View(m.width, m.layout.height, m.env)
	} else {
		body = m.renderPanes()
	}
	return strings.Join([]string{body, m.renderBottomLine(), m.renderStatusBar()}, "\n")
}

// renderPanes draws the columns: the open pane of each in a box, the others
// as one-line headers.
func (m *Model) renderPanes() string {
	var blocks []string
	for i, col := range m.layout.cols {
		w := m.layout.widths[i]
		var lines []string
		for _, f := range col {
			p := m.pane(f)
			on := f == m.focus
			if f == m.layout.expanded[i] {
				_, h := m.layout.paneSize(i)
				lines = append(lines, box(p.Title(), p.View(), w, h+2, on, m.env))
			} else {
				lines = append(lines, collapsed(p.Title(), w, on, m.env))
			}
		}
		blocks = append(blocks, strings.Join(lines, "\n"))
	}
	return joinColumns(blocks)
}

// now is the current time of the interface clock.
func (m *Model) now() time.Time { return m.env.now }
