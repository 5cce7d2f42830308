package tui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/keymap"
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

func (m *Model) pushDialog(d dialog) {
	m.dropHint() // "ctrl+c again quits" is not true in a dialog
	if m.notice.approvalID != "" || m.notice.trustFP != "" {
		// Its keys ("y again approves it", "t trust") belong to the
		// dialog now: the notice would say what they no longer do.
		m.notice = notice{}
	}
	m.dialogs = append(m.dialogs, d)
}

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

// cancels reports whether k closes a dialog without acting: the cancel key,
// or ctrl+c, which in a dialog cancels instead of quitting aoi, so a reflex
// ctrl+c does not throw away the interface with a half-typed answer.
func cancels(k tea.KeyPressMsg, keys keymap.Dialog) bool {
	return matches(k, keys.Cancel) || k.String() == "ctrl+c"
}
