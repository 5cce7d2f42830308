package backoff

import (
	"context"
	"testing"
	"time"
)

func TestDelayDoublesUpToTheCap(t *testing.T) {
	p := Policy{Base: time.Second, Max: 5 * time.Second}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for n, w := range want {
		if got := p.Delay(n); got != w {
			t.Errorf("Delay(%d) = %v, want %v", n, got, w)
		}
	}
	if got := p.Delay(1 << 20); got != 5*time.Second {
		t.Errorf("a huge retry count must stay at the cap, got %v", got)
	}
	if got := (Policy{Base: time.Minute, Max: time.Second}).Delay(0); got != time.Second {
		t.Errorf("the cap applies to the first wait too, got %v", got)
	}
	if got := (Policy{Base: time.Second}).Delay(100); got <= 0 {
		t.Errorf("an uncapped policy must not overflow, got %v", got)
	}
}

func TestJitterStaysWithinHalfAndWhole(t *testing.T) {
	for range 1000 {
		if d := Jitter(time.Second); d < 500*time.Millisecond || d > time.Second {
			t.Fatalf("Jitter(1s) = %v, want within [500ms, 1s]", d)
		}
	}
	if Jitter(0) != 0 {
		t.Fatal("Jitter(0) must be 0")
	}
}

// A loop waiting on the fake clock wakes when the clock is advanced past
// its wait, not before, and without any real sleep.
func TestFakeClockWakesSleepers(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := NewFake(start)
	done := make(chan error, 1)
	go func() { done <- Sleep(context.Background(), clk, 10*time.Second) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if clk.Waiting(ctx) != 1 {
		t.Fatal("the sleeper never waited on the clock")
	}
	clk.Advance(9 * time.Second)
	select {
	case <-done:
		t.Fatal("woke 1s early")
	default:
	}
	clk.Advance(time.Second)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("not woken after the wait passed")
	}
	if got := clk.Now().Sub(start); got != 10*time.Second {
		t.Fatalf("clock moved %v, want 10s", got)
	}
}

func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, NewFake(time.Now()), time.Hour); err != context.Canceled {
		t.Fatalf("Sleep on a cancelled context = %v", err)
	}
}
