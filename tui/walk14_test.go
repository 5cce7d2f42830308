package tui

import (
	"strings"
	"testing"
)

// TestReplyToNoMessageKeepsTheLine: `:reply ID text` whose ID names no
// message to reply to stays in the bar with why after it, as a mistyped
// question id does, so the ID is mended and the reply not retyped (the
// fourteenth walk's `:reply 99 …` closed the bar on its text).
func TestReplyToNoMessageKeepsTheLine(t *testing.T) {
	svc := fixtureService()
	svc.messages[2].MessageID = "m-01a23ac7989b"
	m := newLoaded(t, svc, 120, 30, true)
	for _, c := range []struct{ line, want string }{
		{"reply 9 the release is on Friday", "no message 9 in the Messages pane"},
		{"reply 2 the release is on Friday", "not a message to reply to"},
	} {
		press(t, m, ":")
		typeText(t, m, c.line)
		press(t, m, "enter")
		if !m.prompt.input.Focused() {
			t.Fatalf(":%s closed the bar:\n%s", c.line, screen(m))
		}
		if got := m.prompt.value(); got != ":"+c.line {
			t.Errorf("the bar holds %q after :%s; want the line kept", got, c.line)
		}
		if frame := screen(m); !strings.Contains(frame, c.want) {
			t.Errorf(":%s does not say %q:\n%s", c.line, c.want, frame)
		}
		for _, call := range svc.Calls() {
			if strings.HasPrefix(call, "send ") {
				t.Errorf(":%s sent a message: %s", c.line, call)
			}
		}
		press(t, m, "esc")
	}
}
