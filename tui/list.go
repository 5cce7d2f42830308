package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/keymap"
)

// listState is a selection over n rows shown in a window of height rows.
type listState struct {
	cursor, offset, height int
	// unseen counts rows that arrived above the window while the owner
	// read further down (see reselect); the pane's title says so.
	unseen int
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
	if l.offset == 0 {
		l.unseen = 0 // every row above the selection is in view
	}
}

// reselect places the cursor after the rows changed from old to now, each
// row named by a key. A selection on the top row stays on the top, so a
// list whose newest rows come first follows them; one the owner moved down
// stays on its row (reading is not interrupted), and the rows that arrived
// above it are counted in unseen.
func (l *listState) reselect(old, now []string) {
	if l.cursor > 0 && l.cursor < len(old) {
		sel := old[l.cursor]
		for i, k := range now {
			if k == sel {
				l.cursor = i
				break
			}
		}
		l.unseen += arrived(old, now[:min(l.cursor, len(now))])
	}
	l.clamp(len(now))
	l.unseen = min(l.unseen, l.cursor)
}

// arrived counts the keys of now that are not in old.
func arrived(old, now []string) int {
	known := make(map[string]bool, len(old))
	for _, k := range old {
		known[k] = true
	}
	n := 0
	for _, k := range now {
		if !known[k] {
			n++
		}
	}
	return n
}

// window returns the visible row range [start,end) for n rows.
func (l *listState) window(n int) (int, int) {
	l.clamp(n)
	return l.offset, min(n, l.offset+max(1, l.height))
}
