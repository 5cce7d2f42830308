package rpc

import (
	"crypto/sha256"
	"sync"
	"time"
)

// Replays: a client retries a call with the same id when an answer is lost
// (aoi's own client does), and an attacker can post the same body again.
// Running it twice would run a task twice or queue a second approval, so a
// successful call is remembered per caller for ReplayWindow under its id
// and a hash of its method and params, and a repeat is answered with the
// first result without running the handler again. A repeat that arrives
// while the first is still running waits for it. Failed calls are
// forgotten, so a retry after a failure runs again.
const (
	// ReplayWindow is how long a call is answered again rather than run
	// again. The cache lives in memory; a handler whose call leaves a
	// durable trail (a task) can look for it there for as long, so a
	// repeat after a restart is not run twice either.
	ReplayWindow  = 10 * time.Minute
	maxReplayKeys = 8192
)

type replayCache struct {
	mu sync.Mutex
	m  map[string]*replayEntry
}

type replayEntry struct {
	done   chan struct{} // closed when the first call finished
	result []byte        // the first call's result (nil: it failed)
	at     time.Time
}

func replayKey(c Caller, id []byte, method string, params []byte) string {
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write(params)
	return c.Key() + "\x00" + string(id) + "\x00" + string(h.Sum(nil))
}

// begin returns the entry for key and whether this call is the first.
func (rc *replayCache) begin(key string, now time.Time) (*replayEntry, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.m == nil {
		rc.m = map[string]*replayEntry{}
	}
	if e, ok := rc.m[key]; ok && now.Sub(e.at) < ReplayWindow {
		return e, false
	}
	if len(rc.m) >= maxReplayKeys {
		rc.evict(now)
	}
	e := &replayEntry{done: make(chan struct{}), at: now}
	rc.m[key] = e
	return e, true
}

// finish records the first call's outcome; a failure forgets the key.
func (rc *replayCache) finish(key string, e *replayEntry, result []byte, ok bool) {
	rc.mu.Lock()
	if ok {
		e.result = result
	} else if rc.m[key] == e {
		delete(rc.m, key)
	}
	rc.mu.Unlock()
	close(e.done)
}

func (rc *replayCache) evict(now time.Time) {
	for k, e := range rc.m {
		if now.Sub(e.at) >= ReplayWindow {
			delete(rc.m, k)
		}
	}
	if len(rc.m) >= maxReplayKeys {
		clear(rc.m) // all recent: forget rather than grow
	}
}
