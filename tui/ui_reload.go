package tui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/themes"
)

// uiReloadedMsg carries the interface's own settings (theme, keys, bell)
// re-read after the config was reloaded.
type uiReloadedMsg struct {
	opts Options
	err  error
}

// reloadUI re-reads the interface settings through Options.Reload, when the
// caller gave one, after the core reported a config reload (from :reload,
// `aoi reload` or SIGHUP on `aoi serve`).
func (m *Model) reloadUI() tea.Cmd {
	f := m.opts.Reload
	if f == nil {
		return nil
	}
	return func() tea.Msg {
		o, err := f()
		if err == nil && o.KeyMap != nil {
			err = o.KeyMap.Validate()
		}
		return uiReloadedMsg{opts: o, err: err}
	}
}

// applyUI swaps in reloaded keys and colours; a bad file keeps the old ones.
func (m *Model) applyUI(msg uiReloadedMsg) {
	if msg.err != nil {
		m.fail("interface settings not reloaded, the current ones stay", msg.err)
		return
	}
	o := msg.opts
	if o.KeyMap != nil {
		m.opts.KeyMap = o.KeyMap
		m.env.keys = *o.KeyMap
	}
	m.opts.Theme, m.opts.Palette, m.opts.NoColor = o.Theme, o.Palette, o.NoColor
	m.opts.Bell, m.opts.OSC9 = o.Bell, o.OSC9
	m.env.styles = themes.NewStyles(palette(m.opts, m.dark), m.dark)
}
