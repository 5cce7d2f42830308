package tui

import (
	"strings"
	"testing"
)

// TestMessageDetailNamesItsID: a message's detail names the number
// `:reply`, `aoi messages`, `aoi inbox` and --reply-to take as its "id"
// (it said "seq" while the shell's tables said ID and SEQ, the twelfth
// walk), and the :reply hint under it uses that number.
func TestMessageDetailNamesItsID(t *testing.T) {
	svc := fixtureService()
	svc.messages[2].MessageID = "m-01a23ac7989b"
	m := newLoaded(t, svc, 80, 30, true)
	m.setFocus(focusMessages)
	press(t, m, "enter")
	d, ok := m.topDialog().(*detailDialog)
	if !ok {
		t.Fatalf("enter opened %T", m.topDialog())
	}
	if strings.Contains(d.body, "seq") || !strings.Contains(d.body, "id: 3\n") || !strings.Contains(d.body, ":reply 3 TEXT") {
		t.Errorf("the message's detail does not name its ID 3 as :reply takes it:\n%s", d.body)
	}
}
