package events

import (
	"context"
	"testing"
	"time"
)

func TestSubscribersResumeBySeqAndSkipWhatTheRingLost(t *testing.T) {
	b := New(time.Now)
	first := b.Publish("query.received", "q-1", "pm", "hi")
	if first.Seq != 1 || b.LastSeq() != 1 {
		t.Fatalf("first event %+v, last %d", first, b.LastSeq())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ch := b.Subscribe(ctx, 0) // only new ones
	b.Publish("peer.changed", "pm", "pm", "online")
	if ev := <-ch; ev.Seq != 2 || ev.Kind != "peer.changed" {
		t.Fatalf("new subscriber got %+v, want seq 2", ev)
	}
	for range ringSize + 10 {
		b.Publish("audit.appended", "", "", "")
	}
	got, _ := b.Since(0)
	if len(got) != ringSize || got[0].Seq != b.LastSeq()-ringSize+1 {
		t.Fatalf("Since(0) after overflow: %d events from seq %d, want the last %d", len(got), got[0].Seq, ringSize)
	}
}

// TestSubscribeAfterZeroStartsAtTheFirstEvent: an exact cursor of 0 means
// "after none", unlike Subscribe's 0 ("only new ones").
func TestSubscribeAfterZeroStartsAtTheFirstEvent(t *testing.T) {
	b := New(time.Now)
	b.Publish("query.received", "q-1", "pm", "hi")
	b.Publish("query.received", "q-2", "pm", "hi")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ch := b.SubscribeAfter(ctx, 0)
	for _, want := range []string{"q-1", "q-2"} {
		if ev := <-ch; ev.ID != want {
			t.Fatalf("got %+v, want %s", ev, want)
		}
	}
}
