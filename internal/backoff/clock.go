package backoff

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock is what a retry loop reads the time from and waits on.
type Clock interface {
	Now() time.Time
	// After delivers once d has passed on this clock.
	After(d time.Duration) <-chan time.Time
}

// Real is the wall clock.
var Real Clock = realClock{}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Sleep waits d on c, or until ctx ends (then it returns ctx's error).
func Sleep(ctx context.Context, c Clock, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.After(d):
		return nil
	}
}

// Fake is a clock that moves only when Advance is called (tests).
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	added   chan struct{}
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// NewFake starts a fake clock at now.
func NewFake(now time.Time) *Fake { return &Fake{now: now, added: make(chan struct{}, 1)} }

// Now is the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// After delivers when Advance reaches now+d.
func (f *Fake) After(d time.Duration) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- f.now
		return ch
	}
	f.waiters = append(f.waiters, waiter{at: f.now.Add(d), ch: ch})
	select {
	case f.added <- struct{}{}:
	default:
	}
	return ch
}

// Advance moves the clock by d and wakes every waiter now due.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	sort.Slice(f.waiters, func(i, j int) bool { return f.waiters[i].at.Before(f.waiters[j].at) })
	keep := f.waiters[:0]
	for _, w := range f.waiters {
		if w.at.After(f.now) {
			keep = append(keep, w)
			continue
		}
		w.ch <- f.now
	}
	f.waiters = keep
}

// Waiting blocks until someone waits on the clock (or ctx ends) and
// reports how many waiters there are, so a test advances only once the
// loop it drives is asleep.
func (f *Fake) Waiting(ctx context.Context) int {
	for {
		f.mu.Lock()
		n := len(f.waiters)
		f.mu.Unlock()
		if n > 0 {
			return n
		}
		select {
		case <-ctx.Done():
			return 0
		case <-f.added:
		}
	}
}
