package tui

import (
	"math"
	"net"
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/keymap"
)

// dialogFrame draws a dialog box centred in a w×h area. Its width adapts to
// the terminal: up to 76 cells, never wider than the area. The content
// keeps one blank cell on each side, so text never touches the frame.
func dialogFrame(title, content string, w, h, boxH int, env *env) string {
	b := box(title, padSides(content), min(w, maxDialogWidth), min(h, boxH), true, env)
	return fitBlock(lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, b), w, h)
}

// maxDialogWidth is the widest a dialog box gets, frame included.
const maxDialogWidth = 76

// dialogSize is the room a dialog's text has in a w×h area: the box's
// width less its frame and the blank cell inside it on each side, and the
// area's height.
func dialogSize(w, h int) (int, int) {
	return max(1, min(w, maxDialogWidth)-4), h
}

// padSides puts a blank cell before every line (the one after comes from
// the box, which pads each line to its width).
func padSides(s string) string {
	return " " + strings.ReplaceAll(s, "\n", "\n ")
}

// helpDialog shows every binding, built from the keymap, scrollable.
type helpDialog struct{ scroll scroller }

// auditHelpTitle heads the help's group of the Audit pane's keys.
const auditHelpTitle = "Audit"

func newHelpDialog() *helpDialog { return &helpDialog{} }

func (d *helpDialog) Update(msg tea.Msg) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || d.scroll.env == nil {
		return nil, nil
	}
	if matches(k, d.scroll.env.keys.Global.Help) {
		return closeDialog{}, nil
	}
	return d.scroll.update(k), nil
}

func (d *helpDialog) View(w, h int, env *env) string {
	tw, _ := dialogSize(w, h)
	st := env.styles
	hm := help.New()
	hm.Styles = help.Styles{
		ShortKey: st.HelpKey, ShortDesc: st.HelpDesc, ShortSeparator: st.HelpSep,
		FullKey: st.HelpKey, FullDesc: st.HelpDesc, FullSeparator: st.HelpSep, Ellipsis: st.HelpSep,
	}
	block := func(title string, bs []keyBinding) string {
		return st.Header.Render(title) + "\n" + hm.FullHelpView([][]keyBinding{bs})
	}
	var blocks []string
	for i, c := range env.keys.FullHelp() {
		blocks = append(blocks, block(keymap.FullHelpTitles[i], c))
		if i == 0 {
			// The Audit pane's own key is the dialogs' esc, so no scope
			// of the keymap holds it: its group follows "everywhere",
			// where / opens the filter (the walk found esc nowhere).
			blocks = append(blocks, block(auditHelpTitle, []keyBinding{clearFilterKey(env.keys)}))
		}
	}
	// Each half wraps within itself, so a long line never spills under
	// the other half. The left half holds everywhere, Audit and lists,
	// so every heading shows at 60×20.
	half := tw / 2
	left := lipgloss.NewStyle().Width(half).Render(strings.Join(blocks[:3], "\n"))
	right := lipgloss.NewStyle().Width(tw - half).Render(strings.Join(blocks[3:], "\n"))
	body := lipgloss.JoinHorizontal(lipgloss.Top, left, right)
	body = wrapBlock(body, tw) + "\n\n" + st.Muted.Render(wrapList("Prompt: "+promptUsage, " · ", tw))
	return d.scroll.view("Help", body, w, h, env)
}

// wrapList wraps a list of items joined by sep to w cells, breaking
// between items where it can and leaving the separator at the end of the
// line, never at the start of the next (the fourteenth walk's help read
// "· :help · :quit" on a line of its own). An item wider than the line
// wraps as text does.
func wrapList(s, sep string, w int) string {
	tail := strings.TrimRight(sep, " ")
	var lines []string
	cur := ""
	start := func(item string) { // a wide item wraps; its last line takes the next
		wrapped := wrap(item, w)
		if len(wrapped) == 0 {
			wrapped = []string{""}
		}
		lines = append(lines, wrapped[:len(wrapped)-1]...)
		cur = wrapped[len(wrapped)-1]
	}
	for i, item := range strings.Split(s, sep) {
		switch {
		case i == 0:
			start(item)
			continue
		case width(cur)+width(sep)+width(item) <= w:
			cur += sep + item
			continue
		case width(cur)+width(tail) <= w:
			cur += tail
		default: // no room for the separator at the end: it starts the item
			item = strings.TrimLeft(sep, " ") + item
		}
		lines = append(lines, cur)
		start(item)
	}
	return strings.Join(append(lines, cur), "\n")
}

// wrapBlock wraps every line of s to w cells.
func wrapBlock(s string, w int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, wrap(l, w)...)
	}
	return strings.Join(out, "\n")
}

// scroller shows text in a dialog box, scrolled with the list keys and
// closed with cancel, open or quit.
type scroller struct {
	offset int
	env    *env
}

// update scrolls; it returns closeDialog when the key closes the dialog.
func (s *scroller) update(k tea.KeyPressMsg) action {
	keys := s.env.keys
	switch {
	case cancels(k, keys.Dialog), matches(k, keys.List.Open, keys.Global.Quit):
		return closeDialog{}
	case matches(k, keys.List.Down):
		s.offset++
	case matches(k, keys.List.Up):
		s.offset = max(0, s.offset-1)
	case matches(k, keys.List.PageDown):
		s.offset += 10
	case matches(k, keys.List.PageUp):
		s.offset = max(0, s.offset-10)
	case matches(k, keys.List.Home):
		s.offset = 0
	case matches(k, keys.List.End):
		// view clamps it to the last page: the help lists end for the
		// last row, and a long dialog's "↓ more" took pgdown after pgdown.
		s.offset = math.MaxInt / 2
	}
	return nil
}

func (s *scroller) view(title, body string, w, h int, env *env) string {
	s.env = env
	lines := strings.Split(body, "\n")
	room := h - 3
	s.offset = max(0, min(s.offset, len(lines)-room))
	lines = lines[s.offset:]
	hint := env.keys.Dialog.Cancel.Help().Key + " close"
	if len(lines) > room {
		lines = lines[:room]
		hint = "↓ more · " + hint
	}
	lines = append(lines, env.styles.Muted.Render(hint))
	return dialogFrame(title, strings.Join(lines, "\n"), w, h, len(lines)+2, env)
}

// detailDialog shows sanitised text, scrollable with the list keys.
type detailDialog struct {
	title, body string
	scroll      scroller
}

func newDetailDialog(title, body string) *detailDialog {
	return &detailDialog{title: title, body: body}
}

func (d *detailDialog) Update(msg tea.Msg) (action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && d.scroll.env != nil {
		return d.scroll.update(k), nil
	}
	return nil, nil
}

func (d *detailDialog) View(w, h int, env *env) string {
	tw, _ := dialogSize(w, h)
	return d.scroll.view(d.title, wrapBlock(d.body, tw), w, h, env)
}

// approvalDialog is the detail of a pending approval: what it will run,
// where and why it was allowed. Approve and reject work from here too.
type approvalDialog struct {
	detailDialog
	a agent.Approval
	// gone is set once the request no longer waits (decided elsewhere,
	// canceled by its requester, expired): y and n then do nothing.
	gone bool
}

func newApprovalDialog(a agent.Approval, e *env) *approvalDialog {
	return &approvalDialog{detailDialog: detailDialog{title: "Approve " + approvalLabel(a) + "?", body: approvalDetail(a, e)}, a: a}
}

func (d *approvalDialog) Update(msg tea.Msg) (action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && d.scroll.env != nil {
		keys := d.scroll.env.keys.Approvals
		switch {
		case d.gone && (matches(k, keys.Approve) || matches(k, keys.Reject)):
			return noticeAction{text: "this request no longer waits: nothing to approve or reject"}, nil
		case matches(k, keys.Approve):
			return approveAction{a: d.a}, nil
		case matches(k, keys.Reject):
			return askRejectReason{a: d.a}, nil
		}
	}
	return d.detailDialog.Update(msg)
}

// View renders the detail afresh, so its times count down while it is open.
func (d *approvalDialog) View(w, h int, env *env) string {
	d.body = approvalDetail(d.a, env)
	if d.gone {
		// Its countdown no longer counts anything.
		d.body = strings.TrimSuffix(d.body, approvalKeysLine(env)) +
			"It no longer waits: approved, rejected or canceled elsewhere, or expired (Approvals lists what became of it)."
		d.body = strings.Replace(d.body, "expires in: "+countdown(env.now, d.a.ExpiresAt)+"\n", "", 1)
	}
	return d.detailDialog.View(w, h, env)
}

// refresh follows the pending approvals just fetched: the request's own
// entry, or, when it is gone from them, that it no longer waits (the
// walk's dialog still offered y on a request its requester had canceled).
func (d *approvalDialog) refresh(pending []agent.Approval) {
	for _, a := range pending {
		if a.ID == d.a.ID {
			d.a, d.gone = a, false
			return
		}
	}
	d.gone = true
}

// firstRunText is the first-run dialog: who this agent is, the fingerprint
// colleagues compare before trusting it, and the command that trusts it,
// written out whole so it can be copied. endpoint is where colleagues reach
// this agent ("" until the core has said where it listens).
func firstRunText(f FirstRun, endpoint string) string {
	// Grouped and split in two quoted lines, the command stays whole at
	// 60 columns, and a shell takes it as one argument
	// (NormalizeFingerprint reads the groups across the line break).
	fp := "FINGERPRINT"
	if g := strings.Fields(agent.GroupFingerprint(Sanitize(f.Fingerprint))); len(g) == 8 {
		fp = `"` + strings.Join(g[:4], " ") + "\n     " + strings.Join(g[4:], " ") + `"`
	} else if len(g) > 0 {
		fp = strings.Join(g, " ")
	}
	return "This is your first run: aoi created an identity and a config.\n\n" +
		detailFields([][2]string{
			{"agent id", f.AgentID}, {"fingerprint", agent.GroupFingerprint(f.Fingerprint)},
			{"config", f.ConfigPath}, {"data", f.DataDir},
		}) +
		"\n\nThe agent id comes from your login name. For another, quit aoi, change " +
		"\"agent\": {\"id\": …} in the config and start aoi again, before colleagues " +
		"trust you (the identity and every other setting stay)." +
		"\n\nColleagues trust you with:\n" +
		"  aoi peers trust " + Sanitize(f.AgentID) + " \\\n" +
		"    " + fp + " \\\n" +
		"    --endpoint " + orDefault(Sanitize(endpoint), "HOST:PORT") + roleFlag(f.Role) + "\n" +
		movedNote(f.MovedFrom, endpoint) + endpointNote(endpoint) +
		"Your secretary answers colleagues from the repositories under \"contexts\" in the " +
		"config: add yours there. Colleagues' ACL rules match the role they give you " +
		"(yours says " + orDefault(Sanitize(f.Role), "none") + ": agent.role).\n\n" +
		idCommand(f.DataDir) + " prints this command on one line, to copy without the frame. " +
		"Add theirs the same way, or press t on " +
		"a trust request in the Peers pane. ? lists every key."
}

// idCommand is `aoi id` as it finds this data dir: the walk's `aoi id`,
// typed as the dialog said, read the default data dir instead of the one
// aoi was started with.
func idCommand(dataDir string) string {
	if dataDir == "" {
		return "`aoi id`"
	}
	return "`aoi --data-dir " + Sanitize(dataDir) + " id`"
}

// movedNote says that the first run found its port taken and listens on
// another ("" when it did not).
func movedNote(from, endpoint string) string {
	if from == "" {
		return ""
	}
	return Sanitize(from) + " was in use (another aoi on this machine?), so this agent listens on " +
		orDefault(Sanitize(endpoint), "the next free port") + ".\n"
}

// roleFlag is the trust command's --role, when the agent has a role.
func roleFlag(role string) string {
	if role == "" {
		return ""
	}
	return " --role " + Sanitize(role)
}

// endpointNote says what to do when the address in the trust command is
// not one a colleague on another machine can use as it stands.
func endpointNote(endpoint string) string {
	host, _, err := net.SplitHostPort(endpoint)
	if endpoint == "" || err != nil {
		return "HOST:PORT is the address this aoi listens on (the status bar shows it).\n\n"
	}
	switch agent.ReachOf(endpoint) {
	case agent.ReachThisMachine:
		return host + " reaches this machine only: for colleagues elsewhere set " +
			"network.listen_addr in the config to an address they reach, then restart aoi.\n\n"
	case agent.ReachEveryInterface:
		return endpoint + " means every interface: give colleagues this machine's address " +
			"on your network in its place.\n\n"
	}
	return "\n"
}

// orDefault is s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// fillWelcome writes where this agent listens into the first-run dialog's
// trust command once the status says: the dialog opens before it loads.
func (m *Model) fillWelcome() {
	if m.welcome != nil && m.opts.FirstRun != nil {
		m.welcome.body = firstRunText(*m.opts.FirstRun, m.status.Endpoint())
	}
}
