package tui

import (
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
		return m.markDirty(dAll), true
	}
	return nil, false
}
