package rpc

import (
	"crypto/sha256"
	"strings"
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
//
// The memory is bounded per caller and in all, and what it forgets is
// chosen so that one caller cannot make it forget another's calls: a
// caller over its own bound loses its own oldest call, and when the whole
// cache is full the caller holding the most loses its oldest. (It used to
// be cleared whole when full, so a few peers sending at their rate limit
// emptied it and a genuine retry from anyone else ran a second time.)
const (
	// ReplayWindow is how long a call is answered again rather than run
	// again. The cache lives in memory; a handler whose call leaves a
	// durable trail (a task) can look for it there for as long, so a
	// repeat after a restart is not run twice either.
	ReplayWindow = 10 * time.Minute
	// maxReplayKeys bounds the calls remembered from all callers.
	maxReplayKeys = 8192
	// maxReplayKeysPerCaller bounds one caller's share: over three
	// minutes of calls at the default rate limit (5 a second), while a
	// lost answer is retried within seconds.
	maxReplayKeysPerCaller = 1024
)

type replayCache struct {
	mu      sync.Mutex
	m       map[string]*replayEntry // by replayKey
	callers map[string]*replayQueue // by Caller.Key: each caller's calls, oldest first
}

type replayEntry struct {
	done   chan struct{} // closed when the first call finished
	result []byte        // the first call's result (nil: it failed)
	at     time.Time

	key        string       // its key in replayCache.m
	queue      *replayQueue // its caller's queue; nil once forgotten
	prev, next *replayEntry // neighbours in that queue
}

// replayQueue is one caller's remembered calls in the order they came, as
// a list threaded through the entries so that remembering a call
// allocates nothing more than its entry.
type replayQueue struct {
	caller       string
	oldest, last *replayEntry
	n            int
}

// replayKey returns the key a call is remembered under and, as a prefix of
// it, its caller's key (sliced rather than built apart, which would cost
// every request an allocation: a caller's key holds no NUL byte).
func replayKey(c Caller, id []byte, method string, params []byte) (key, callerKey string) {
	var sum [sha256.Size]byte
	if n := len(method) + 1 + len(params); n <= 1024 {
		// A question's params fit: hashed from the stack, where
		// sha256.New and Sum would allocate the digest and its sum.
		var buf [1024]byte
		copy(buf[copy(buf[:], method)+1:], params)
		sum = sha256.Sum256(buf[:n])
	} else {
		h := sha256.New()
		h.Write([]byte(method))
		h.Write([]byte{0})
		h.Write(params)
		h.Sum(sum[:0])
	}
	key = c.Key() + "\x00" + string(id) + "\x00" + string(sum[:])
	return key, key[:strings.IndexByte(key, 0)]
}

// begin returns the entry for key, a call from callerKey, and whether this
// call is the first.
func (rc *replayCache) begin(callerKey, key string, now time.Time) (*replayEntry, bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.m == nil {
		rc.m = map[string]*replayEntry{}
		rc.callers = map[string]*replayQueue{}
	}
	if e, ok := rc.m[key]; ok {
		if now.Sub(e.at) < ReplayWindow {
			return e, false
		}
		rc.forget(e)
	}
	q := rc.callers[callerKey]
	if q == nil {
		q = &replayQueue{caller: callerKey}
	}
	rc.expire(q, now)
	if q.n >= maxReplayKeysPerCaller {
		rc.forget(q.oldest)
	}
	if len(rc.m) >= maxReplayKeys {
		rc.makeRoom(now)
	}
	if q.n == 0 {
		rc.callers[callerKey] = q // new, or emptied (and so dropped) above
	}
	e := &replayEntry{done: make(chan struct{}), at: now, key: key}
	rc.m[key] = e
	q.push(e)
	return e, true
}

// finish records the first call's outcome; a failure forgets the key.
func (rc *replayCache) finish(e *replayEntry, result []byte, ok bool) {
	rc.mu.Lock()
	if ok {
		e.result = result
	} else if e.queue != nil {
		rc.forget(e)
	}
	rc.mu.Unlock()
	close(e.done)
}

// expire forgets q's calls older than the window, oldest first.
func (rc *replayCache) expire(q *replayQueue, now time.Time) {
	for q.oldest != nil && now.Sub(q.oldest.at) >= ReplayWindow {
		rc.forget(q.oldest)
	}
}

// makeRoom runs when the whole cache is full: it expires every caller's
// old calls and, if that freed nothing, forgets the oldest call of the
// caller holding the most, so that callers who send little keep theirs.
// It walks the callers, not the calls, and only when the cache is full.
func (rc *replayCache) makeRoom(now time.Time) {
	var largest *replayQueue
	for _, q := range rc.callers {
		rc.expire(q, now)
		if largest == nil || q.n > largest.n {
			largest = q
		}
	}
	if len(rc.m) >= maxReplayKeys && largest != nil && largest.oldest != nil {
		rc.forget(largest.oldest)
	}
}

// forget drops e from the cache and from its caller's queue, and the queue
// once it is empty. A repeat already waiting on e still gets its outcome.
func (rc *replayCache) forget(e *replayEntry) {
	if rc.m[e.key] == e {
		delete(rc.m, e.key)
	}
	q := e.queue
	if q == nil {
		return
	}
	q.unlink(e)
	if q.n == 0 && rc.callers[q.caller] == q {
		delete(rc.callers, q.caller)
	}
}

func (q *replayQueue) push(e *replayEntry) {
	e.queue, e.prev, e.next = q, q.last, nil
	if q.last != nil {
		q.last.next = e
	} else {
		q.oldest = e
	}
	q.last = e
	q.n++
}

func (q *replayQueue) unlink(e *replayEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		q.oldest = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		q.last = e.prev
	}
	e.queue, e.prev, e.next = nil, nil, nil
	q.n--
}
