package rpc

import (
	"fmt"
	"sync"
	"time"
)

// Every call a peer the server lets in makes is a row in the hash-chained
// audit log, and rows are never dropped before their retention ends: at
// its rate limit one trusted-but-hostile peer could add hundreds of
// thousands of rows a day. dailyBudget bounds the calls one admitted
// caller makes per UTC day; past it the caller is refused as rate limited
// until the day turns, and those refusals are written as counted summary
// rows (refusals.go), so the chain stays whole and stops growing.

// maxBudgetCallers bounds the callers a day's counts remember; callers past
// it (more agents than anyone pins) are not counted that day.
const maxBudgetCallers = 4096

type dailyBudget struct {
	mu     sync.Mutex
	limit  int   // calls per caller per day; 0: no budget
	day    int64 // the UTC day counts holds, in days since 1970
	counts map[string]int
}

// setLimit changes the budget (config reload); limit <= 0 means none.
func (b *dailyBudget) setLimit(limit int) {
	b.mu.Lock()
	b.limit = max(limit, 0)
	b.mu.Unlock()
}

// spend counts one call of key at now. When key has spent the day's budget
// it returns false and how long until the next UTC day begins.
func (b *dailyBudget) spend(key string, now time.Time) (bool, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit == 0 {
		return true, 0
	}
	secs := now.Unix()
	if day := secs / 86400; day != b.day || b.counts == nil {
		b.day, b.counts = day, make(map[string]int)
	}
	n, known := b.counts[key]
	switch {
	case n >= b.limit:
		return false, time.Duration(86400-secs%86400) * time.Second
	case !known && len(b.counts) >= maxBudgetCallers:
		return true, 0
	}
	b.counts[key] = n + 1
	return true, 0
}

// seed sets the day of now's counts to at least counts (a caller's calls
// of today as the audit log holds them, read at start): the budget is
// kept in memory, and a restart would otherwise give every caller a whole
// day's calls again. Seeding costs spend nothing.
func (b *dailyBudget) seed(counts map[string]int, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if day := now.Unix() / 86400; day != b.day || b.counts == nil {
		b.day, b.counts = day, make(map[string]int)
	}
	for key, n := range counts {
		if _, known := b.counts[key]; !known && len(b.counts) >= maxBudgetCallers {
			continue
		}
		b.counts[key] = max(b.counts[key], n)
	}
}

// DailyBudgetSpent is -32006 for a caller that made its day's calls
// (Options.DailyCallsPerCaller), with data.reason and data.retry_after_ms
// (until 00:00 UTC).
func DailyBudgetSpent(limit int, retryAfter time.Duration) *Error {
	return NewError(CodeRateLimit, map[string]any{
		"reason": fmt.Sprintf("this caller made %d calls today, the most this agent takes from one peer in a day "+
			"(every call is a row in its audit log); calls are taken again at 00:00 UTC, in %s", limit, retryAfter.Round(time.Minute)),
		"retry_after_ms": retryAfter.Milliseconds(),
	})
}
