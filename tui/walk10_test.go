package tui

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

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

// TestWaitingLinesCutAtAWord: the lines above Messages naming what waits
// for an answer end with whole words and "…" when they overflow, at 60
// and 100 columns (the tenth walk read "qa-ito “which suite sho…" cut
// inside a word).
func TestWaitingLinesCutAtAWord(t *testing.T) {
	texts := []string{"is the release branch green?", "which suite should I run before the merge?",
		"when does billing ship to production?", "who reviews the logout change?", "has QA signed off on the rotation?",
		"are the flaky auth tests fixed yet?"}
	for _, w := range []int{60, 100} {
		svc := fixtureService()
		for i, text := range texts {
			svc.status.Waiting = append(svc.status.Waiting, agent.WaitingAsk{RequestID: "ask-" + itoa(i),
				To: "eng-suzuki", Text: text, SentAt: fixedNow.Add(-time.Duration(i+1) * time.Minute)})
		}
		svc.status.WaitingTotal = len(texts)
		m := newLoaded(t, svc, w, 30, true)
		m.setFocus(focusMessages)
		frame := screen(m)
		checkFrame(t, frame, w, 30)
		lines := strings.Split(frame, "\n")
		at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "waiting for 6 answers:") })
		if at < 0 || at+1 >= len(lines) {
			t.Fatalf("%d columns: no waiting line above Messages:\n%s", w, frame)
		}
		second := strings.TrimRight(strings.Trim(lines[at+1], "│┃ "), " ")
		if !strings.HasSuffix(second, ellipsis) {
			t.Fatalf("%d columns: the second waiting line %q does not end with …", w, second)
		}
		kept := strings.TrimSuffix(second, ellipsis)
		full := strings.Join(strings.Fields(strings.Join([]string{strings.Trim(lines[at], "│┃ "), kept}, " ")), " ")
		whole := false // what is kept ends where a word of some ask ends
		for _, text := range texts {
			for _, word := range strings.Fields("“" + text + "”") {
				whole = whole || strings.HasSuffix(full, strings.TrimRight(word, "”"))
			}
		}
		whole = whole || strings.HasSuffix(full, ")") || strings.HasSuffix(full, "eng-suzuki")
		if !whole {
			t.Errorf("%d columns: the waiting lines are cut inside a word: %q", w, second)
		}
	}
}

// TestIntegrationRefusedMessageTellsTheReceiver: a trusted peer's message
// that this agent's ACL refuses rings its owner, naming the peer and the
// rule to add, once however often the peer retries (the tenth walk's
// engineer never learnt that the PM had written).
func TestIntegrationRefusedMessageTellsTheReceiver(t *testing.T) {
	eng := startAgent(t, "eng-suzuki", "engineer", nil) // no messages rule: it refuses
	lead := startAgent(t, "lead-sato", "lead", nil)
	pairAgents(t, eng, lead)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := eng.Events(ctx, agent.EventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	tm := startReal(t, eng.Core, "eng-suzuki")
	for _, text := range []string{"standup moved to 10:30", "and the retro to 16:00"} {
		sent, err := lead.SendMessage(ctx, agent.SendMessageRequest{To: "eng-suzuki", Type: wire.MsgNote,
			Payload: []byte(`{"message":"` + text + `"}`)})
		if err != nil || !sent.Refused {
			t.Fatalf("note to eng = %+v, %v; want it refused", sent, err)
		}
	}
	waitScreen(t, tm, "your ACL refused a message lead-sato sent your coding assistant")
	told := 0
	for deadline := time.After(2 * time.Second); ; {
		select {
		case ev := <-events:
			if ev.Kind == agent.EventAttention && strings.Contains(ev.Summary, "your ACL refused a message lead-sato sent") {
				told++
			}
			continue
		case <-deadline:
		}
		break
	}
	if told != 1 {
		t.Errorf("the owner was told %d times of lead-sato's refused messages; want once", told)
	}
}
