package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/keymap"
)

// listState is a selection over n rows shown in a window of height rows.
type listState struct {
	cursor, offset, height int
}

// move applies a list key to the selection and reports whether it was one.
func (l *listState) move(k tea.KeyPressMsg, keys keymap.List, n int) bool {
	switch {
	case key.Matches(k, keys.Up):
		l.cursor--
	case key.Matches(k, keys.Down):
		l.cursor++
	case key.Matches(k, keys.PageUp):
		l.cursor -= max(1, l.height-1)
	case key.Matches(k, keys.PageDown):
		l.cursor += max(1, l.height-1)
	case key.Matches(k, keys.Home):
		l.cursor = 0
	case key.Matches(k, keys.End):
		l.cursor = n - 1
	default:
		return false
	}
	l.clamp(n)
	return true
}

// clamp keeps the cursor inside [0,n) and the cursor row inside the window.
func (l *listState) clamp(n int) {
	l.cursor = max(0, min(l.cursor, n-1))
	h := max(1, l.height)
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+h {
		l.offset = l.cursor - h + 1
	}
	l.offset = max(0, min(l.offset, n-h))
}

// window returns the visible row range [start,end) for n rows.
func (l *listState) window(n int) (int, int) {
	l.clamp(n)
	return l.offset, min(n, l.offset+max(1, l.height))
}
