package tui

import (
	tea "charm.land/bubbletea/v2"
)

// dialog is a modal view on top of the panes. It gets every key first; any
// action it returns closes it.
type dialog interface {
	Update(msg tea.Msg) (action, tea.Cmd)
	View(w, h int, env *env) string
}

func (m *Model) topDialog() dialog {
	if len(m.dialogs) == 0 {
		return nil
	}
	return m.dialogs[len(m.dialogs)-1]
}

func (m *Model) pushDialog(d dialog) { m.dialogs = append(m.dialogs, d) }

func (m *Model) popDialog() {
	if len(m.dialogs) > 0 {
		m.dialogs = m.dialogs[:len(m.dialogs)-1]
	}
}

// dialogAction closes the top dialog when it returned an action, then runs
// the action.
func (m *Model) dialogAction(a action) tea.Cmd {
	if a == nil {
		return nil
	}
	m.popDialog()
	return m.runAction(a)
}
