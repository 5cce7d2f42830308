package tui

import (
	"cmp"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// peersPane lists trust requests first, then known peers.
type peersPane struct {
	paneBase
	rows []agent.Peer
	self agent.Status // this agent: its id and fingerprint head the pane
	// coreLost: the interface cannot reach its core, so the statuses
	// shown are the last known and the title claims no one online.
	coreLost bool
}

// SetSize keeps room for this agent's own id and fingerprint above the list.
func (p *peersPane) SetSize(w, h int) {
	p.paneBase.SetSize(w, h)
	p.fitSelf()
}

// setSelf records this agent's status (its id and fingerprint head the pane).
func (p *peersPane) setSelf(s agent.Status) {
	p.self = s
	p.fitSelf()
}

// fitSelf shrinks the list by the lines selfLines takes.
func (p *peersPane) fitSelf() {
	p.setListHeight()
	p.list.height = max(1, p.list.height-len(p.selfLines()))
}

// selfLines show this agent's id and whole certificate fingerprint, what a
// colleague compares before trusting it: one line when both fit, else the
// fingerprint on a line of its own (a shortened one cannot be compared).
func (p *peersPane) selfLines() []string {
	st := p.env.styles.Muted
	if p.self.AgentID == "" {
		return []string{st.Render(truncate("you: …", p.w))}
	}
	id, fp := "you: "+Sanitize(p.self.AgentID), Sanitize(p.self.Fingerprint)
	if fp == "" {
		fp = "(tailnet identity)"
	}
	// Grouped by eight on one line as everywhere else, even when it must
	// be cut (a short pane).
	if one := id + " · " + agent.GroupFingerprint(fp); lipgloss.Width(one) <= p.w || p.h < 8 {
		return []string{st.Render(truncate(one, p.w))}
	}
	lines := []string{st.Render(truncate(id, p.w))}
	for _, l := range groupWrap(fp, 8, p.w) {
		lines = append(lines, st.Render(truncate(l, p.w)))
	}
	return lines
}

// groupWrap splits s into groups of n characters separated by spaces, as
// fingerprints are read aloud, and wraps the groups to lines of width w.
func groupWrap(s string, n, w int) []string {
	var lines []string
	line := ""
	for r := []rune(s); len(r) > 0; {
		g := string(r[:min(n, len(r))])
		r = r[len([]rune(g)):]
		switch {
		case line == "":
			line = g
		case lipgloss.Width(line+" "+g) <= w:
			line += " " + g
		default:
			lines, line = append(lines, line), g
		}
	}
	return append(lines, line)
}

func newPeersPane(e *env) *peersPane { return &peersPane{paneBase: paneBase{env: e}} }

// setPeers sorts pending trust requests to the top, then by status and id.
// A selection on the top row stays there, so a new trust request is the
// selected row; one further down stays on its peer.
func (p *peersPane) setPeers(peers []agent.Peer) {
	rows := append([]agent.Peer(nil), peers...)
	rank := func(x agent.Peer) int {
		if x.Trust == agent.TrustPending {
			return 0
		}
		switch x.Status {
		case agent.PeerOnline:
			return 1
		case agent.PeerBusy, agent.PeerAway:
			return 2
		}
		return 3
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if a, b := rank(rows[i]), rank(rows[j]); a != b {
			return a < b
		}
		return rows[i].AgentID < rows[j].AgentID
	})
	old := peerKeys(p.rows)
	p.rows = rows
	p.list.reselect(old, peerKeys(rows))
}

// peerKeys names each row for listState.reselect.
func peerKeys(peers []agent.Peer) []string {
	keys := make([]string, len(peers))
	for i, r := range peers {
		keys[i] = r.AgentID + r.Fingerprint
	}
	return keys
}

func (p *peersPane) selected() (agent.Peer, bool) {
	if p.list.cursor < len(p.rows) {
		return p.rows[p.list.cursor], true
	}
	return agent.Peer{}, false
}

// pinned returns the peer pinned as id with the fingerprint fp, if the
// pane lists one.
func (p *peersPane) pinned(id, fp string) (agent.Peer, bool) {
	want, err := agent.NormalizeFingerprint(fp)
	for _, r := range p.rows {
		if r.AgentID != id || r.Trust != agent.TrustPinned || err != nil {
			continue
		}
		if got, gerr := agent.NormalizeFingerprint(r.Fingerprint); gerr == nil && got == want {
			return r, true
		}
	}
	return agent.Peer{}, false
}

func (p *peersPane) pending() int {
	n := 0
	for _, r := range p.rows {
		if r.Trust == agent.TrustPending {
			n++
		}
	}
	return n
}

func (p *peersPane) Title() string {
	t := "Peers · " + p.onlineCount()
	if n := p.pending(); n > 0 {
		verb := " want trust"
		if n == 1 {
			verb = " wants trust"
		}
		t += " · " + itoa(n) + verb
	}
	return t + p.scrollMarker(len(p.rows))
}

// onlineCount is "2/3 online", or, while the core is unreachable, only
// how many peers are known: as in the status bar (peersOnline), the last
// count would claim peers online that may be gone.
func (p *peersPane) onlineCount() string {
	known := itoa(len(p.rows) - p.pending())
	if p.coreLost {
		return known + " known · online unknown"
	}
	online := 0
	for _, r := range p.rows {
		if (r.Status == agent.PeerOnline || r.Status == agent.PeerBusy || r.Status == agent.PeerAway) && !r.RefusesUs {
			online++
		}
	}
	return itoa(online) + "/" + known + " online"
}

func (p *peersPane) Update(k tea.KeyPressMsg) action {
	if p.list.move(k, p.env.keys.List, len(p.rows)) {
		return nil
	}
	keys := p.env.keys.Peers
	if key.Matches(k, keys.Trust, keys.Refuse) {
		return p.decide(key.Matches(k, keys.Trust))
	}
	if r, ok := p.selected(); ok && key.Matches(k, p.env.keys.List.Open) {
		return showDetail{title: "Peer " + Sanitize(r.AgentID), body: peerDetail(r, p.env)}
	}
	return nil
}

// decide trusts or refuses the selected trust request, else the first one
// waiting, selecting it: the notice that announces a request names t and
// x without knowing where the selection is. With none waiting it says so.
// x on a pinned peer asks whether to stop trusting it.
func (p *peersPane) decide(trust bool) action {
	if r, ok := p.selected(); ok && !trust && r.Trust == agent.TrustPinned && r.Fingerprint != "" {
		return askRefuse{p: r} // x on a pinned peer: stop trusting it
	}
	i, ok := p.pendingRow()
	if !ok {
		return noticeAction{text: "no trust request is waiting"}
	}
	p.list.cursor = i
	p.list.clamp(len(p.rows))
	if trust {
		return askTrust{p: p.rows[i]}
	}
	return askRefuse{p: p.rows[i]}
}

// pendingRow is the selected row when it is a trust request, else the
// first request (they sort to the top).
func (p *peersPane) pendingRow() (int, bool) {
	if r, ok := p.selected(); ok && r.Trust == agent.TrustPending {
		return p.list.cursor, true
	}
	for i, r := range p.rows {
		if r.Trust == agent.TrustPending {
			return i, true
		}
	}
	return 0, false
}

func (p *peersPane) View() string {
	if len(p.rows) == 0 {
		return strings.Join(p.selfLines(), "\n") + "\n" + p.empty("No peers yet. Peers appear when they announce themselves, call you or are named in the config; `aoi peers trust` adds one.")
	}
	cols := peerColumnsFor(p.w)
	lines := append(p.selfLines(), p.header(cols.row(p.w, "", "AGENT", "ROLE", "STATUS", "SEEN", "CONTEXTS")))
	start, end := p.list.window(len(p.rows))
	for i := start; i < end; i++ {
		r := p.rows[i]
		if r.Trust == agent.TrustPending {
			// In the table's own columns: the role it announced, "trust?"
			// as its status, and where the contexts go, what to do, then
			// as much of its fingerprint as fits (hex: cut anywhere).
			k := p.env.keys.Peers
			text := cols.row(p.w, "?", Sanitize(r.AgentID), roleCell(r.Role), "trust?", ago(p.env.now, r.LastSeen),
				truncate(k.Trust.Help().Key+" trust, "+k.Refuse.Help().Key+" refuse · "+shortFP(r.Fingerprint), cols.rest(p.w)))
			lines = append(lines, p.rowStyled(text, i == p.list.cursor, p.env.styles.Warn))
			continue
		}
		status := Sanitize(r.Status)
		switch {
		case !r.CertExpiredAt.IsZero():
			status = "cert expired"
		case r.RefusesUs:
			status = "refuses" // you: it has not pinned your certificate
		}
		line := cols.row(p.w, statusGlyph(r.Status), Sanitize(r.AgentID), roleCell(r.Role),
			status, ago(p.env.now, r.LastSeen), contextsCell(r.Contexts, cols.rest(p.w)))
		if !r.CertExpiredAt.IsZero() || r.RefusesUs {
			lines = append(lines, p.rowStyled(line, i == p.list.cursor, p.env.styles.Warn))
			continue
		}
		lines = append(lines, p.row(line, i == p.list.cursor))
	}
	return strings.Join(lines, "\n")
}

// peerColumns are the widths of the Peers table's columns before
// CONTEXTS, and whether SEEN is one of them.
type peerColumns struct {
	widths []int
	seen   bool
}

// minContextsWidth is the narrowest CONTEXTS column the full set of
// columns may leave: under it a row kept "acme/we…", which tells nothing
// about what a peer offers.
const minContextsWidth = 20

// peerColumnsFor picks the columns for a pane w cells wide: all of them
// when CONTEXTS keeps minContextsWidth, else narrower AGENT and ROLE and
// no SEEN (the detail view on enter still says it), so at 60 columns a
// peer's contexts stay readable. What a peer offers is what the owner
// looks for here; when it was last seen matters less.
func peerColumnsFor(w int) peerColumns {
	full := peerColumns{widths: []int{2, 16, 10, 8, 9}, seen: true}
	if full.rest(w) >= minContextsWidth {
		return full
	}
	return peerColumns{widths: []int{2, 14, 9, 8}}
}

// rest is the width left for CONTEXTS in a pane w cells wide.
func (c peerColumns) rest(w int) int {
	used := 0
	for _, cw := range c.widths {
		used += cw + 1 // and the space after it
	}
	return w - used
}

// row lays out a row's cells (glyph, agent, role, status, seen, contexts),
// leaving seen out when the columns do.
func (c peerColumns) row(w int, glyph, agentID, role, status, seen, contexts string) string {
	if !c.seen {
		return columns(w, c.widths, glyph, agentID, role, status, contexts)
	}
	return columns(w, c.widths, glyph, agentID, role, status, seen, contexts)
}

// contextsCell lists a peer's contexts in w cells: as many whole names as
// fit, then "+N" for the others, so a narrow pane says how many more there
// are instead of cutting the second name; a first name too long for the
// cell is cut with an ellipsis where the cell ends, not at a slash: a
// name is not prose, and "acme/webapp/tests/ve…" says more than
// "acme/webapp/tests…".
func contextsCell(xs []string, w int) string {
	all := sanitizeList(xs)
	if width(all) <= w || len(xs) < 2 {
		return truncate(all, w)
	}
	shown := ""
	for i, x := range xs {
		more := " +" + itoa(len(xs)-i-1)
		next := Sanitize(x)
		if shown != "" {
			next = shown + ", " + next
		}
		if i == len(xs)-1 || width(next+more) > w {
			if shown == "" {
				return truncate(next, w-width(more)) + more
			}
			return shown + " +" + itoa(len(xs)-i)
		}
		shown = next
	}
	return shown
}

func statusGlyph(s string) string {
	switch s {
	case agent.PeerOnline:
		return "●"
	case agent.PeerBusy:
		return "◐"
	case agent.PeerAway: // running, but its assistant stopped polling
		return "◌"
	}
	return "○"
}

// shortFP shortens a certificate fingerprint for a list row.
func shortFP(fp string) string {
	return truncate(Sanitize(fp), 24)
}

func sanitizeList(xs []string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = Sanitize(x)
	}
	return strings.Join(out, ", ")
}

func peerDetail(r agent.Peer, e *env) string {
	status := r.Status
	if r.Trust == agent.TrustPending {
		// Not a peer yet: "offline" would only say no announcement came.
		status = "asks to be trusted: close this, then " + e.keys.Peers.Trust.Help().Key + " trusts it (after you compare the fingerprint), " +
			e.keys.Peers.Refuse.Help().Key + " refuses it"
	}
	if r.RefusesUs {
		status = "refuses you: it does not trust your certificate (not yet, or no longer); its owner pins it with `aoi peers trust` and the id and fingerprint at the top of Peers"
	}
	fields := [][2]string{
		{"agent", r.AgentID}, {"role", peerRole(r)}, {"owner", r.Owner}, {"status", status},
		{"trust", r.Trust}, {"last seen", clockAt(e, r.LastSeen)}, {"endpoint", orDefault(r.Endpoint, noEndpoint(r))},
		{"calls from", r.Source}, {"node", r.NodeName}, {"fingerprint", agent.GroupFingerprint(r.Fingerprint)},
		{"contexts", strings.Join(r.Contexts, ", ")}, {"task types", taskTypesText(r)},
	}
	return detailFields(fields)
}

// peerRole is a peer's role for its detail. A pinned peer given none says
// so, and how to give one: the line left out read as nothing to know,
// though ACL rules naming a role then never match the peer.
func peerRole(r agent.Peer) string {
	if r.Role != "" || r.Trust != agent.TrustPinned {
		return r.Role
	}
	return "none given, so ACL rules naming a role do not match it (:trust " + r.AgentID + " FINGERPRINT ENDPOINT ROLE gives it one)"
}

// taskTypesText lists a peer's task types with the parameters each takes,
// as `:task` wants them: "run_tests (suite=auth|billing required,
// verbose=, mode=fast|full optional)". An optional parameter with a list
// of values says so: the list alone reads as a choice that must be made.
func taskTypesText(r agent.Peer) string {
	out := make([]string, len(r.TaskTypes))
	for i, t := range r.TaskTypes {
		out[i] = t
		var ps []string
		for _, p := range r.TaskParams[t] {
			s := p.Name + "=" + strings.Join(p.Enum, "|")
			switch {
			case p.Required:
				s += " required"
			case len(p.Enum) > 0:
				s += " optional"
			}
			ps = append(ps, s)
		}
		if len(ps) > 0 {
			out[i] += " (" + strings.Join(ps, ", ") + ")"
		}
	}
	return strings.Join(out, "; ")
}

// noEndpoint says why a pending trust request shows no endpoint: the
// caller did not say where it listens, and the address its calls come from
// is an outgoing port. Pinned, it is reached once it announces itself.
func noEndpoint(p agent.Peer) string {
	if p.Trust != agent.TrustPending {
		return ""
	}
	return "not announced (once trusted, aoi learns it when the peer next announces itself)"
}

// detailFields renders "name: value" lines, sanitising each value.
func detailFields(fields [][2]string) string {
	var b strings.Builder
	for _, f := range fields {
		if f[1] == "" {
			continue
		}
		b.WriteString(f[0] + ": " + Sanitize(f[1]) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// roleCell is a peer's role, "-" for none (as `aoi peers` prints it): a
// blank cell read as a column the pane failed to fill.
func roleCell(role string) string {
	return cmp.Or(Sanitize(role), "-")
}
