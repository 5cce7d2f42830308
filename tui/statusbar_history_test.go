package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// TestStatusBarShowsHistoryIndexing: while the secretary indexes a
// repository's history the status bar says how far it is, refreshed on
// the clock (no event reports it); once done the figure goes.
func TestStatusBarShowsHistoryIndexing(t *testing.T) {
	svc := fixtureService()
	svc.status.History = []agent.IndexProgress{{Context: "acme/webapp", Indexed: 600, Total: 1970}, {Context: "acme/docs", Indexed: 40, Total: 40, Done: true}}
	m := newLoaded(t, svc, 160, 36, true)
	lines := strings.Split(screen(m), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "indexing history 30%") {
		t.Fatalf("status bar lacks the indexing figure:\n%s", last)
	}
	svc.status.History[0] = agent.IndexProgress{Context: "acme/webapp", Indexed: 1970, Total: 1970, Done: true}
	for range historyPollTicks {
		pump(t, m, m.handleTick())
	}
	m.flushing = false
	pump(t, m, func() tea.Msg { return flushMsg{} })
	if frame := screen(m); strings.Contains(frame, "indexing history") {
		t.Fatalf("indexing figure still shown after the history is done:\n%s", frame)
	}
	if indexingPercent(nil) != -1 || indexingPercent([]agent.IndexProgress{{Indexed: 5, Total: 0}}) != 0 {
		t.Error("indexingPercent: none indexing is -1, an unknown total 0")
	}
}

// TestNoContextsLeavesTheCountsWhole: at 60 columns the no-contexts hint
// cut the counts after it (the walk's "msgs 1 · 2 onli…"); the status bar
// no longer carries it (the empty Queries pane does: noContextsHint), so
// every count through the peers online stays.
func TestNoContextsLeavesTheCountsWhole(t *testing.T) {
	svc := fixtureService()
	svc.status.Contexts = 0
	svc.status.PendingQuery, svc.status.Buffered, svc.status.PendingApprov, svc.status.UnreadMsgs = 0, 0, 0, 1 // the walk's PM
	svc.queries, svc.approvals = nil, nil
	m := newLoaded(t, svc, 60, 20, true)
	lines := strings.Split(screen(m), "\n")
	last := lines[len(lines)-1]
	if strings.Contains(last, "no contexts") || !strings.Contains(last, "msgs 1") || !strings.Contains(last, "online") {
		t.Fatalf("60-column status bar:\n%s\nwant every count through the peers online and no hint", last)
	}
}
