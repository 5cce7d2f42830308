package tui

import (
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"strings"
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
	parts := []string{focusMode,
		fmt.Sprintf("queries %d", s.PendingQuery),
		fmt.Sprintf("buffered %d", s.Buffered),
		fmt.Sprintf("approvals %d", s.PendingApprov),
		fmt.Sprintf("msgs %d", s.UnreadMsgs),
		peersOnline(s.PeersOnline, m.coreLost),
		where,
	}

	if !m.subscribed {
		parts = append([]string{"no live updates"}, parts...)
	}
	rest := " " + strings.Join(parts, " · ")
	idw := min(ansi.StringWidth(id), m.width/3)
	id = fit(id, idw)
	if m.coreLost {
		lost := " " + coreLostBanner + " "
		lw := min(ansi.StringWidth(lost), m.width-idw)
		return st.StatusKey.Render(id) + st.Error.Render(fit(lost, lw)) + st.StatusBar.Render(fit(rest, m.width-idw-lw))
	}
	return st.StatusKey.Render(id) + st.StatusBar.Render(fit(rest, m.width-idw))
}

// peersOnline is the peer count, or that it is unknown while the core is
// unreachable (the last count would claim peers online that may be gone).
func peersOnline(n int, coreLost bool) string {
	if coreLost {
		return "peers unknown"
	}
	return fmt.Sprintf("%d online", n)
}
