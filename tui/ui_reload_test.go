package tui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/keymap"
	"github.com/aoi-protocol/aoi/themes"
)

// TestConfigReloadAppliesKeysAndTheme: after the core reports a reload the
// interface re-reads its own settings: a rebound key works at once and the
// theme changes; a bad file keeps what is in use and says why.
func TestConfigReloadAppliesKeysAndTheme(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 36, true)
	next := func() (Options, error) {
		km, err := keymap.Default().Apply(map[string]string{"approve": "a"})
		return Options{KeyMap: &km, Theme: "high-contrast"}, err
	}
	m.opts.Reload = func() (Options, error) { return next() }
	before := m.env.styles

	pump(t, m, func() tea.Msg { return eventMsg{ev: agent.Event{Seq: 50, Kind: agent.EventConfigReloaded}} })
	if got := m.env.keys.Approvals.Approve.Keys(); len(got) != 1 || got[0] != "a" {
		t.Fatalf("approve keys after reload = %v, want [a]", got)
	}
	hc, _ := themes.Pick("high-contrast", true)
	want := themes.NewStyles(hc, true)
	bg := func(s themes.Styles) string { return fmt.Sprint(s.StatusBar.GetBackground(), s.Error.GetForeground()) }
	if bg(m.env.styles) == bg(before) || bg(m.env.styles) != bg(want) {
		t.Errorf("the theme did not change to high-contrast: %s (was %s, want %s)", bg(m.env.styles), bg(before), bg(want))
	}

	next = func() (Options, error) { return Options{}, errors.New("ui.keys: \"approve\": no key") }
	pump(t, m, func() tea.Msg { return eventMsg{ev: agent.Event{Seq: 51, Kind: agent.EventConfigReloaded}} })
	if got := m.env.keys.Approvals.Approve.Keys(); len(got) != 1 || got[0] != "a" {
		t.Errorf("a bad file replaced the keys: %v", got)
	}
	if frame := screen(m); !strings.Contains(frame, "interface settings not reloaded") {
		t.Errorf("the refusal is not shown:\n%s", frame)
	}
}
