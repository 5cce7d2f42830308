package tui

import (
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// coreLostBanner leads the status bar while an attached interface cannot
// reach its `aoi serve`: what it shows may be stale (peers shown online,
// counts) until the core answers again.
const coreLostBanner = "core disconnected — retrying…"

// handleLink follows the control-socket client's reports of losing and
// regaining the core. It reports whether ev was one of them.
func (m *Model) handleLink(ev agent.Event) (tea.Cmd, bool) {
	switch ev.Kind {
	case agent.EventCoreDisconnected:
		m.coreLost, m.peers.coreLost = true, true
		m.fail(coreLostBanner+" (is `aoi serve` running?)", nil)
		return nil, true
	case agent.EventCoreReconnected:
		m.coreLost, m.peers.coreLost = false, false
		m.notice = notice{} // the "disconnected" error is over
		m.info("core reconnected")
		m.awayQueries = map[string]bool{}
		for _, q := range m.queries.rows {
			m.awayQueries[q.ID] = true
		}
		return m.markDirty(dAll), true
	}
	return nil, false
}

// arrivedWhileAway rings for the questions that came to need the owner
// while the core was away: their events went with the core that stopped,
// so only the fetch after reconnecting shows them (the walk's question
// arrived in silence). Nil when there are none, or no reconnect is being
// checked.
func (m *Model) arrivedWhileAway(qs []agent.Query) tea.Cmd {
	if m.awayQueries == nil {
		return nil
	}
	seen := m.awayQueries
	m.awayQueries = nil
	var from []string
	for _, q := range qs {
		if needsOwner(q) && !seen[q.ID] {
			from = append(from, q.From)
		}
	}
	if len(from) == 0 {
		return nil
	}
	summary := countOf(len(from), "question", "questions") + " arrived while the core was away, from " + strings.Join(slices.Compact(slices.Sorted(slices.Values(from))), ", ")
	return m.attention(agent.Event{Kind: agent.EventAttention, Summary: summary})
}
