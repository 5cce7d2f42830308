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
