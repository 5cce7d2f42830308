package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestDetailsSayWhenOnTheClock: a detail is drawn once, so the walk's
// "received: 10s ago" (a message, a handled question), "last seen: 5s ago"
// (a peer) and "updated: 26h ago" (a finished task) stayed so for as long
// as it was open. Each says the clock time, which stays true however long
// the dialog is open.
func TestDetailsSayWhenOnTheClock(t *testing.T) {
	for _, c := range []struct {
		name, want string
		keys       []string
		stale      []string // ages the detail must not keep
	}{
		{"a message", "received: 09:56:00", []string{"tab", "tab", "tab", "tab", "enter"}, []string{"received: 4m ago"}},
		{"an answered question", "received: 08:00:00", []string{"end", "enter"}, []string{"received: 2h ago"}},
		{"a peer", "last seen: 09:59:55", []string{"shift+tab", "enter"}, []string{"last seen: 5s ago"}},
		{"a finished task", "updated: Mar 1 08:00", []string{"tab", "tab", "end", "enter"}, []string{"updated: 26h ago"}},
	} {
		now := fixedNow
		m := New(fixtureService(), Options{Now: func() time.Time { return now }, Location: time.UTC, DarkBackground: true})
		m.subscribed = true
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		for _, cmd := range m.fetchCmds(dAll) {
			pump(t, m, cmd)
		}
		press(t, m, c.keys...)
		if _, ok := m.topDialog().(*detailDialog); !ok {
			t.Fatalf("%s: enter opened %T", c.name, m.topDialog())
		}
		now = now.Add(10 * time.Minute)
		m.Update(tickMsg(now))
		frame := screen(m)
		if !strings.Contains(frame, c.want) {
			t.Errorf("%s: the detail lacks %q:\n%s", c.name, c.want, frame)
		}
		for _, old := range c.stale {
			if strings.Contains(frame, old) {
				t.Errorf("%s: the detail keeps %q, an age no longer true:\n%s", c.name, old, frame)
			}
		}
	}
}
