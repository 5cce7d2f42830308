package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// TestMessagesCountsEveryAskWaiting: the line heading Messages counts
// every question still waiting for its answer, not the newest 20 the
// status lists (the fifth walk's PM had 31 waiting and read "waiting for
// 20 answers").
func TestMessagesCountsEveryAskWaiting(t *testing.T) {
	svc := fixtureService()
	for i := range 20 {
		svc.status.Waiting = append(svc.status.Waiting, agent.WaitingAsk{RequestID: fmt.Sprintf("ask-%d", i),
			To: "eng-suzuki", Text: fmt.Sprintf("item %d?", 31-i), SentAt: fixedNow.Add(-time.Minute)})
	}
	svc.status.WaitingTotal = 31
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusMessages)
	frame := screen(m)
	checkFrame(t, frame, 80, 24)
	if !strings.Contains(frame, "waiting for 31 answers: eng-suzuki “item 31?” (1m)") {
		t.Errorf("the Messages pane does not count the 31 asks waiting:\n%s", frame)
	}
}

// TestPeerWithoutRoleSaysSo: the detail of a peer pinned without a role
// says it has none and how to give one (the walk's PM pinned eng-suzuki
// without --role and the detail had no role line at all); a peer with a
// role shows it.
func TestPeerWithoutRoleSaysSo(t *testing.T) {
	svc := fixtureService()
	svc.peers = svc.peers[:3] // pinned ones only
	svc.peers[0].Role = ""
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusPeers)
	press(t, m, "home")
	details := map[string]string{}
	for range svc.peers {
		press(t, m, "enter")
		d, ok := m.topDialog().(*detailDialog)
		if !ok {
			t.Fatalf("enter on a peer opened %T", m.topDialog())
		}
		details[strings.TrimPrefix(d.title, "Peer ")] = d.body
		screen(m) // drawn, as the terminal does before the next key
		press(t, m, "esc", "down")
	}
	want := "role: none given, so ACL rules naming a role do not match it (:trust pm-tanaka FINGERPRINT ENDPOINT ROLE gives it one)"
	if !strings.Contains(details["pm-tanaka"], want) {
		t.Errorf("the detail of a peer without a role:\n%s", details["pm-tanaka"])
	}
	if !strings.Contains(details["qa-ito"], "role: qa\n") {
		t.Errorf("the detail of a peer with a role:\n%s", details["qa-ito"])
	}
}
