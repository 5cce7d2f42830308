package tui

import (
	"strings"
	"testing"
)

// TestFlowDialogProblemIsWhole: at 60×20 why enter or ctrl+s did nothing
// shows whole, wrapped in the dialog (the walk's reject dialog showed "a
// reason is required: the requester reads it (esc cance…").
func TestFlowDialogProblemIsWhole(t *testing.T) {
	for _, c := range []struct {
		name string
		keys []string
		want string
	}{
		{"reject", []string{"tab", "tab", "n", "enter"}, "a reason is required: the requester reads it (esc cancels)"},
		{"answer", []string{"enter", "ctrl+x", "ctrl+s"}, "write an answer first (esc closes; d on the list declines)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm, _ := startFlowAt(t, fixtureService(), Options{}, 60, 20)
			sendKeys(tm, c.keys...)
			waitScreen(t, tm, c.want[:20])
			tm.mu.Lock()
			frame := tm.frame
			tm.mu.Unlock()
			checkFrame(t, frame, 60, 20)
			if got := boxText(frame); !strings.Contains(got, c.want) {
				t.Errorf("the dialog does not say %q whole:\n%s", c.want, frame)
			}
		})
	}
}

// boxText is the text inside a dialog's frame, its lines joined by spaces.
func boxText(frame string) string {
	var words []string
	for _, l := range strings.Split(frame, "\n") {
		first, last := strings.Index(l, "┃"), strings.LastIndex(l, "┃")
		if first >= 0 && first != last {
			words = append(words, strings.Fields(l[first+len("┃"):last])...)
		}
	}
	return strings.Join(words, " ")
}
