package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestDetailsSayWhenOnTheClock: a message's or a handled question's
// detail is drawn once, so the walk's "received: 10s ago" still said so
// eight minutes later. It says the clock time, which stays true however
// long the dialog is open.
func TestDetailsSayWhenOnTheClock(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
		want string
	}{
		{"a message", []string{"tab", "tab", "tab", "tab", "enter"}, "received: 09:56:00"},
		{"an answered question", []string{"end", "enter"}, "received: 08:00:00"},
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
		if strings.Contains(frame, "received: 4m ago") || strings.Contains(frame, "received: 2h ago") {
			t.Errorf("%s: the detail keeps an age that is no longer true:\n%s", c.name, frame)
		}
	}
}
