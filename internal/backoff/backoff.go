// Package backoff is the one exponential back-off every retry loop in aoi
// uses (the RPC client, the outbox, the MCP bridge), and the clock those
// loops wait on, so tests can move time instead of sleeping.
package backoff

import (
	"math/rand/v2"
	"time"
)

// Policy doubles a wait from Base up to Max.
type Policy struct {
	Base time.Duration // the first wait
	Max  time.Duration // caps every wait, Base included; <= 0: no cap
}

// Delay is the wait before retry number n (n = 0 for the first retry):
// Base·2^n, capped at Max. It never overflows.
func (p Policy) Delay(n int) time.Duration {
	limit := p.Max
	if limit <= 0 {
		limit = time.Duration(1<<63 - 1)
	}
	d := p.Base
	for i := 0; i < n && d < limit && d > 0; i++ {
		if d > limit/2 {
			return limit
		}
		d *= 2
	}
	return min(d, limit)
}

// Jitter spreads d over [d/2, d] ("equal jitter"), so callers that failed
// together do not retry together.
func Jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}
