package rpc

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxLimiters bounds how many callers' limiters are kept at once.
const DefaultMaxLimiters = 4096

// limiterSet holds one token bucket per caller key. The map is bounded:
// when full, idle callers (whose bucket has refilled) are dropped first,
// then the least recently seen one, so forgetting a caller never grants
// more than a fresh burst.
type limiterSet struct {
	mu      sync.Mutex
	limit   rate.Limit
	burst   int
	max     int
	entries map[string]*limiterEntry
}

type limiterEntry struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiterSet(perSec float64, burst, max int) *limiterSet {
	if max <= 0 {
		max = DefaultMaxLimiters
	}
	s := &limiterSet{max: max, entries: make(map[string]*limiterEntry)}
	s.set(perSec, burst)
	return s
}

// set changes the rate for new and existing callers; perSec <= 0 disables
// limiting.
func (s *limiterSet) set(perSec float64, burst int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limit, s.burst = normaliseRate(perSec, burst)
	for _, e := range s.entries {
		e.lim.SetLimit(s.limit)
		e.lim.SetBurst(s.burst)
	}
}

func normaliseRate(perSec float64, burst int) (rate.Limit, int) {
	if perSec <= 0 {
		return rate.Inf, 0
	}
	if burst <= 0 {
		burst = int(math.Ceil(perSec))
	}
	return rate.Limit(perSec), burst
}

// allow takes one token for key. When none is left it returns false and
// how long until one will be.
func (s *limiterSet) allow(key string, now time.Time) (bool, time.Duration) {
	return s.allowN(key, 1, now)
}

// allowN takes n tokens for key, or none and says how long until n will
// be there.
func (s *limiterSet) allowN(key string, n int, now time.Time) (bool, time.Duration) {
	s.mu.Lock()
	if s.limit == rate.Inf {
		s.mu.Unlock()
		return true, 0
	}
	e := s.entries[key]
	if e == nil {
		s.evictLocked(now)
		e = &limiterEntry{lim: rate.NewLimiter(s.limit, s.burst)}
		s.entries[key] = e
	}
	e.seen = now
	s.mu.Unlock()
	if e.lim.AllowN(now, n) {
		return true, 0
	}
	r := e.lim.ReserveN(now, n)
	if !r.OK() {
		return false, time.Second
	}
	d := r.DelayFrom(now)
	r.CancelAt(now)
	return false, d
}

// charge takes n more tokens from key's bucket, past empty if need be:
// the caller then waits until the bucket refills from below zero. A bucket
// lends at most its burst at a time, so the debt goes in burst-sized
// reservations, and at most maxDebtBursts of them.
func (s *limiterSet) charge(key string, n int, now time.Time) {
	s.mu.Lock()
	e, burst := s.entries[key], s.burst
	if s.limit == rate.Inf || e == nil || burst <= 0 {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	for i := 0; n > 0 && i < maxDebtBursts; i++ {
		e.lim.ReserveN(now, min(n, burst))
		n -= burst
	}
}

// maxDebtBursts bounds a caller's debt (charge) at this many buckets.
const maxDebtBursts = 8

// evictLocked makes room for one more entry.
func (s *limiterSet) evictLocked(now time.Time) {
	if len(s.entries) < s.max {
		return
	}
	refill := time.Duration(float64(s.burst) / float64(s.limit) * float64(time.Second))
	var oldestKey string
	var oldest time.Time
	for k, e := range s.entries {
		if now.Sub(e.seen) > refill {
			delete(s.entries, k)
			continue
		}
		if oldestKey == "" || e.seen.Before(oldest) {
			oldestKey, oldest = k, e.seen
		}
	}
	if len(s.entries) >= s.max {
		delete(s.entries, oldestKey)
	}
}

// size returns the number of callers tracked (for tests and metrics).
func (s *limiterSet) size() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}
