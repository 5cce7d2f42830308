package tui

import (
	"fmt"
	"strings"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/charmbracelet/x/ansi"
)

// renderStatusBar shows who we are, where we listen, peers online, focus
// mode and what is waiting for the owner.
func (m *Model) renderStatusBar() string {
	st := m.env.styles
	if !m.statusOK {
		return st.StatusBar.Render(fit(" aoi · connecting to the core…", m.width))
	}
	s := m.status
	id := " " + Sanitize(s.AgentID) + " "
	where := Sanitize(s.ListenAddr)
	if s.Tailnet != nil && s.Tailnet.NodeName != "" {
		where = Sanitize(s.Tailnet.NodeName)
		if s.Tailnet.Name != "" {
			where += "." + Sanitize(s.Tailnet.Name)
		}
	}
	focusMode := "focus off"
	if s.Focus {
		focusMode = "focus ON"
	}
	counts := []struct {
		label string
		n     int
	}{{"queries", s.PendingQuery}, {"buffered", s.Buffered}, {"approvals", s.PendingApprov}, {"msgs", s.UnreadMsgs}}
	idw := min(ansi.StringWidth(id), m.width/3)
	room := m.width - idw
	if m.coreLost {
		room -= ansi.StringWidth(coreLostBanner) + 2
	}
	// Narrow, the parts a person acts on stay readable: first the address
	// goes, then "focus off" (the usual state; "focus ON" stays), then the
	// counts that are zero, then the peers online (the Peers title counts
	// them too; cut, it read "2…"). Having no contexts is said in the
	// empty Queries pane (noContextsHint), not here on every screen.
	build := func(address, focusOff, zeros, online bool) string {
		var parts []string
		if !m.subscribed {
			parts = append(parts, "no live updates")
		}
		if pc := indexingPercent(s.History); pc >= 0 {
			parts = append(parts, fmt.Sprintf("indexing history %d%%", pc))
		}
		if s.Focus || focusOff {
			parts = append(parts, focusMode)
		}
		for _, c := range counts {
			if zeros || c.n > 0 {
				parts = append(parts, fmt.Sprintf("%s %d", c.label, c.n))
			}
		}
		if u := undelivered(s); u != "" {
			parts = append(parts, u)
		}
		if online || m.coreLost {
			parts = append(parts, peersOnline(s.PeersOnline, m.coreLost))
		}
		if address {
			parts = append(parts, where)
		}
		return " " + strings.Join(parts, " · ")
	}
	rest := build(true, true, true, true)
	for _, v := range [][4]bool{{false, true, true, true}, {false, false, true, true}, {false, false, false, true}, {false, false, false, false}} {
		if ansi.StringWidth(rest) <= room {
			break
		}
		rest = build(v[0], v[1], v[2], v[3])
	}
	id = fit(id, idw)
	if m.coreLost {
		lost := " " + coreLostBanner + " "
		lw := min(ansi.StringWidth(lost), m.width-idw)
		return st.StatusKey.Render(id) + st.Error.Render(fit(lost, lw)) + st.StatusBar.Render(fit(rest, m.width-idw-lw))
	}
	return st.StatusKey.Render(id) + st.StatusBar.Render(fit(rest, m.width-idw))
}

// undelivered counts what waits in the outbox for peers, refused or
// offline, and names the command that lists it ("" when nothing waits):
// only `aoi status` and `aoi outbox` said so, and a refused message
// rang once and was then out of sight.
func undelivered(s agent.Status) string {
	switch {
	case s.OutboxQueued <= 0:
		return ""
	case s.OutboxRefused > 0:
		return fmt.Sprintf("%d undelivered, %d refused (:outbox)", s.OutboxQueued, s.OutboxRefused)
	}
	return fmt.Sprintf("%d undelivered (:outbox)", s.OutboxQueued)
}

// peersOnline is the peer count, or that it is unknown while the core is
// unreachable (the last count would claim peers online that may be gone).
func peersOnline(n int, coreLost bool) string {
	if coreLost {
		return "peers unknown"
	}
	return fmt.Sprintf("%d online", n)
}

// indexingPercent is how much of the history still being indexed is done
// (over every repository not done yet), or -1 when none is indexing.
func indexingPercent(h []agent.IndexProgress) int {
	indexed, total, busy := 0, 0, false
	for _, r := range h {
		if r.Done {
			continue
		}
		busy = true
		indexed += r.Indexed
		total += r.Total
	}
	switch {
	case !busy:
		return -1
	case total <= 0:
		return 0
	}
	return min(indexed*100/total, 99)
}
