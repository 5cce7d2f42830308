package rpc

import (
	"sync"
	"time"
)

// Callers the server could not let in (no certificate, an unpinned one)
// cost little: they share one rate-limit bucket, so minting a fresh
// certificate per request buys no fresh budget, and their refusals are
// audited as counted summaries — one row per caller per refusalWindow,
// carrying how many refusals it stands for — instead of a row each (1,000
// pings from strangers once wrote 2,000 rows and 36 MB).
//
// A pinned peer over its rate limit is counted the same way, per peer
// (rateLimitedKey + its limit key), so 2,000 refused calls write a row a
// minute, not 2,000.
//
// A caller that goes on being refused gets a longer window each row, up
// to an hour: a refused peer that calls once a minute (its heartbeat)
// wrote 1,440 rows a day, now about 30. A caller quiet for two of its
// windows starts again at a minute.
const (
	strangersKey     = "strangers"
	rateLimitedKey   = "rate-limited:"
	refusalWindow    = time.Minute
	maxRefusalWindow = time.Hour
	maxRefusalKeys   = 4096
)

// refusalLog decides which refusals are written to the audit log.
type refusalLog struct {
	mu   sync.Mutex
	seen map[string]*refusalCount
}

type refusalCount struct {
	since      time.Time     // start of the current window
	window     time.Duration // its length
	suppressed int           // refusals not written since the last row
}

// note records one refusal of key at now. It reports whether to write an
// audit row, and how many earlier refusals that row stands for.
func (l *refusalLog) note(key string, now time.Time) (write bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.seen == nil {
		l.seen = map[string]*refusalCount{}
	}
	rc := l.seen[key]
	if rc != nil && now.Sub(rc.since) < rc.window {
		rc.suppressed++
		return false, 0
	}
	switch {
	case rc == nil:
		if len(l.seen) >= maxRefusalKeys {
			l.prune(now)
		}
		rc = &refusalCount{window: refusalWindow}
		l.seen[key] = rc
	case now.Sub(rc.since) < 2*rc.window:
		rc.window = min(2*rc.window, maxRefusalWindow) // still refused: write less often
	default:
		rc.window = refusalWindow // quiet a while: start again
	}
	suppressed, rc.since, rc.suppressed = rc.suppressed, now, 0
	return true, suppressed
}

// prune drops callers whose window has passed; if every one is recent,
// it starts over (a bounded map matters more than a perfect count).
func (l *refusalLog) prune(now time.Time) {
	for k, rc := range l.seen {
		if now.Sub(rc.since) >= rc.window {
			delete(l.seen, k)
		}
	}
	if len(l.seen) >= maxRefusalKeys {
		clear(l.seen)
	}
}
