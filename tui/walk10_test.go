package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestIntegrationUndeliveredInStatusBar: a message a real peer refuses is
// counted in the status bar (`1 undelivered, 1 refused (:outbox)`, only
// `aoi status` and `aoi outbox` said so in the tenth walk), :outbox lists
// it with the peer's reason, and the count goes when the owner withdraws
// it, with no other event to refresh the bar.
func TestIntegrationUndeliveredInStatusBar(t *testing.T) {
	eng := startAgent(t, "eng-suzuki", "engineer", nil)
	lead := startAgent(t, "lead-sato", "lead", nil) // no messages rule: it refuses
	pairAgents(t, eng, lead)
	tm := startReal(t, eng.Core, "eng-suzuki")
	ctx := context.Background()
	sent, err := eng.SendMessage(ctx, agent.SendMessageRequest{To: "lead-sato", Type: wire.MsgNote,
		Payload: []byte(`{"message":"standup moved to 10:30"}`)})
	if err != nil || !sent.Refused {
		t.Fatalf("note to a peer without a messages rule = %+v, %v; want it refused", sent, err)
	}
	waitScreen(t, tm, "1 undelivered, 1 refused (:outbox)")

	sendKeys(tm, ":")
	tm.Type("outbox")
	sendKeys(tm, "enter")
	waitScreen(t, tm, "Undelivered, oldest first")
	waitScreen(t, tm, "message "+sent.ID+" to lead-sato: refused")
	waitScreen(t, tm, "has no write access to the assistant") // the peer's reason, as aoi outbox shows it
	sendKeys(tm, "esc")

	if err := eng.DropOutbox(ctx, agent.OutboxDropRequest{ID: sent.ID}); err != nil {
		t.Fatal(err)
	}
	until(t, "the status bar dropping the count", func() bool {
		waitScreen(t, tm, "eng-suzuki")
		tm.mu.Lock()
		defer tm.mu.Unlock()
		return !strings.Contains(tm.frame, "undelivered")
	})
}

// TestOutboxCommandWithNothingWaiting: :outbox with an empty outbox says
// so on the notice line, and the status bar names no undelivered count.
func TestOutboxCommandWithNothingWaiting(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 100, 30, true)
	if strings.Contains(screen(m), "undelivered") {
		t.Fatalf("the status bar counts undelivered entries with none waiting:\n%s", screen(m))
	}
	press(t, m, ":")
	typeText(t, m, "outbox")
	press(t, m, "enter")
	if frame := screen(m); !strings.Contains(frame, "nothing waits to be delivered") {
		t.Errorf(":outbox with nothing waiting does not say so:\n%s", frame)
	}
}
