package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/internal/jsondepth"
)

// Path is where the peer server and the control socket serve JSON-RPC.
const Path = "/aoi/v1/rpc"

// DefaultMaxBodyBytes bounds a request body unless Options says otherwise.
const DefaultMaxBodyBytes = 1 << 20

// Options configure a Server. The zero value serves nothing over HTTP:
// Identify is required there, because there is no unauthenticated path.
type Options struct {
	// MaxBodyBytes bounds a request body (default 1 MiB).
	MaxBodyBytes int64
	// MaxBatch bounds the elements of a batch (default 100).
	MaxBatch int
	// Identify names the caller of an HTTP request (the transport's
	// Identify); an error refuses the request with HTTP 401 and -32001.
	Identify func(r *http.Request) (Caller, error)
	// Authenticate maps an identified caller to an agent (setting AgentID)
	// or refuses it by returning an error (a *Error is sent as is, with
	// HTTP 403). Optional.
	Authenticate func(ctx context.Context, c Caller) (Caller, error)
	// RatePerSec and Burst set each caller's token bucket; RatePerSec <= 0
	// disables rate limiting. Burst defaults to ceil(RatePerSec).
	RatePerSec float64
	Burst      int
	// BodyBytesPerSec, when above 0, bounds the request bytes each caller
	// may send a second (its bucket holds MaxBodyBytes, so any one body
	// that fits the size limit can pass). Every body is redacted before a
	// handler sees it, and redaction costs CPU by the byte: the attack
	// run's trusted peer kept both cores busy with large bodies of random
	// characters while within its request rate.
	BodyBytesPerSec float64
	// DailyCallsPerCaller, when above 0, bounds the calls one admitted
	// caller (AgentID set) may make per UTC day; past it its calls are
	// refused as rate limited until the day turns (daily_budget.go).
	DailyCallsPerCaller int
	// MaxLimiters bounds how many callers' buckets are kept (default 4096).
	MaxLimiters int
	// Audit records every call, refused ones included, before its response
	// is written. An error turns the response into an internal error,
	// because an acknowledged request must be durable.
	Audit func(ctx context.Context, rec CallRecord) error
	// Observe is called once for every call, answered or refused, after
	// its audit record (metrics, request logs). Optional; it must not
	// block.
	Observe func(ctx context.Context, o Observation)
	// Logger receives internal errors and audit failures (default: none).
	Logger *slog.Logger
	// SanitizeBody, when set, rewrites every request body (already valid
	// UTF-8) before it is decoded, so nothing a caller sent reaches a
	// handler, the audit log or a log line unfiltered (the peer server
	// redacts secrets here). It must return valid JSON for valid JSON.
	SanitizeBody func(body []byte) []byte
}

// CallRecord is what the audit hook receives for one call.
type CallRecord struct {
	Caller       Caller
	Method       string          // "" when the request could not be read
	ID           json.RawMessage // nil for a notification or an unreadable request
	Params       json.RawMessage
	Notification bool
	// Suppressed counts the earlier refusals of this unauthenticated
	// caller, or of this peer over its rate limit, that were not written
	// one by one (see refusals.go).
	Suppressed int
	Result     any    // nil on error
	Err        *Error // nil on success
	Duration   time.Duration
}

// Server is a JSON-RPC 2.0 method registry and an http.Handler serving
// POST /aoi/v1/rpc.
type Server struct {
	opts   Options
	log    *slog.Logger
	limits *limiterSet
	// daily is each admitted caller's budget of calls a day.
	daily dailyBudget
	// bodyBytes is each caller's budget of request bytes (BodyBytesPerSec).
	bodyBytes *limiterSet
	refusals  refusalLog  // which refusals of strangers are audited
	replays   replayCache // recent successful calls, answered again on a repeat
	mu        sync.Mutex  // serialises Handle
	handlers  atomic.Pointer[map[string]Handler]
}

// NewServer returns a server with no methods.
func NewServer(opts Options) *Server {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, limits: newLimiterSet(opts.RatePerSec, opts.Burst, opts.MaxLimiters),
		bodyBytes: newLimiterSet(opts.BodyBytesPerSec, int(opts.MaxBodyBytes), opts.MaxLimiters)}
	s.daily.setLimit(opts.DailyCallsPerCaller)
	empty := map[string]Handler{}
	s.handlers.Store(&empty)
	return s
}

// Handle registers h for method, replacing any earlier handler. It is safe
// to call while serving.
func (s *Server) Handle(method string, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := *s.handlers.Load()
	next := make(map[string]Handler, len(old)+1)
	for k, v := range old {
		next[k] = v
	}
	next[method] = h
	s.handlers.Store(&next)
}

// SetRateLimit changes every caller's rate (config reload); perSec <= 0
// disables limiting.
func (s *Server) SetRateLimit(perSec float64, burst int) {
	s.limits.set(perSec, burst)
}

// SetDailyCallsLimit changes each admitted caller's budget of calls a day
// (config reload); limit <= 0 means none. Today's counts are kept.
func (s *Server) SetDailyCallsLimit(limit int) { s.daily.setLimit(limit) }

// SeedDailyCalls sets the calls each caller (by agent id) has made today,
// as read at start from the audit log, so a restart does not renew a
// caller's daily budget. now is the moment counts were read.
func (s *Server) SeedDailyCalls(counts map[string]int, now time.Time) { s.daily.seed(counts, now) }

// dailyLimit is the budget of calls a day now in force.
func (s *Server) dailyLimit() int {
	s.daily.mu.Lock()
	defer s.daily.mu.Unlock()
	return s.daily.limit
}

// bodyBytesPerSec is the budget of request bytes a second now in force.
func (s *Server) bodyBytesPerSec() float64 {
	s.bodyBytes.mu.Lock()
	defer s.bodyBytes.mu.Unlock()
	return float64(s.bodyBytes.limit)
}

// sanitizeShare is the part of one core a caller's bodies may keep busy
// in SanitizeBody, averaged over its budget of request bytes.
const sanitizeShare = 0.25

// minMeteredBody is the smallest body whose sanitising is timed: a
// smaller one costs at most about 10 ms even of the costliest text, which
// the request rate bounds (5 a second by default: 5% of a core), and the
// clock would cost every aoi.query its microsecond.
const minMeteredBody = 1 << 10

// sanitize runs SanitizeBody and charges the caller's budget of request
// bytes for the CPU time it took beyond what the body's bytes paid, so a
// caller's bodies keep at most sanitizeShare of a core busy, whatever they
// hold. The budget is priced for ordinary text (random letters redact at
// about 1.5 µs a byte), and some text costs twenty times that: the attack
// pass's aoi.query of 8,000 bytes of "key=key=…" took 65 ms each, and one
// trusted peer within its budget kept a core busy. CPU time, not the time
// it took: on a busy machine a cheap body can take long, and its caller
// did nothing to earn a charge (the bench's peer was refused). Per request
// two thread-clock reads and a thread lock (about 1 µs) for a body of
// minMeteredBody or more; the limiter is only touched when a body cost
// more than it paid.
func (s *Server) sanitize(caller Caller, body []byte) []byte {
	if len(body) < minMeteredBody {
		return s.opts.SanitizeBody(body)
	}
	runtime.LockOSThread()
	start, onThread := threadCPU()
	wallStart := time.Now()
	out := s.opts.SanitizeBody(body)
	end, _ := threadCPU()
	took := end - start
	if !onThread {
		took = time.Since(wallStart)
	}
	runtime.UnlockOSThread()
	perSec := s.bodyBytesPerSec()
	if perSec <= 0 || math.IsInf(perSec, 1) {
		return out
	}
	if owed := int(took.Seconds()*perSec/sanitizeShare) - len(body); owed > 0 {
		s.bodyBytes.charge(limitKey(caller), owed, time.Now())
	}
	return out
}

// SetBodyBytesLimit changes every caller's budget of request bytes a
// second (config reload); perSec <= 0 lifts it.
func (s *Server) SetBodyBytesLimit(perSec float64) {
	s.bodyBytes.set(perSec, int(s.opts.MaxBodyBytes))
}

// ServeRPC serves one request body from an already identified caller,
// without HTTP: authenticate → rate limit → dispatch → audit. It returns
// the response body (empty when there is nothing to answer) and the HTTP
// status that goes with it.
func (s *Server) ServeRPC(ctx context.Context, body []byte, caller Caller) (resp []byte, status int) {
	out := s.serve(ctx, body, caller, nil, false)
	return out.body, out.status
}

// serveAuthenticated serves a body whose caller ServeHTTP has already
// identified and authenticated.
func (s *Server) serveAuthenticated(ctx context.Context, body []byte, caller Caller) outcome {
	return s.serve(ctx, body, caller, nil, true)
}

// outcome is a served request: body, HTTP status and, when every call was
// rate limited, how long to wait.
type outcome struct {
	body       []byte
	status     int
	retryAfter time.Duration
}

// refusal is a whole-request refusal decided before dispatch.
type refusal struct {
	err    *Error
	status int
}

func (s *Server) serve(ctx context.Context, body []byte, caller Caller, ref *refusal, authenticated bool) outcome {
	if int64(len(body)) > s.opts.MaxBodyBytes {
		return s.refuseWhole(ctx, caller, s.tooLarge(), http.StatusRequestEntityTooLarge)
	}
	// Invalid UTF-8 is replaced (U+FFFD), so an id or a string echoed
	// back or stored is always valid JSON text.
	if !utf8.Valid(body) {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	if s.opts.SanitizeBody != nil {
		body = s.sanitize(caller, body)
	}
	if ref == nil && !authenticated {
		caller, ref = s.authenticate(ctx, caller)
	}
	if d := jsondepth.Of(body); d > jsondepth.Max && ref == nil {
		// Decoded, echoed or stored, it would reach readers that recurse.
		return s.refuseWhole(ctx, caller, InvalidRequest("the request nests %d levels deep; the limit is %d: flatten it", d, jsondepth.Max), http.StatusOK)
	}
	reqs, batch, berr := decodeBody(body, s.opts.MaxBatch)
	if berr != nil {
		if ref != nil {
			return s.refuseWhole(ctx, caller, ref.err, ref.status)
		}
		return s.refuseWhole(ctx, caller, berr, http.StatusOK)
	}
	ctx = WithCaller(ctx, caller)
	buf := make([]byte, 0, 256)
	if batch {
		buf = append(buf, '[')
	}
	start := len(buf)
	limited, retryAfter := 0, time.Duration(0)
	for i := range reqs {
		n := len(buf)
		if len(buf) > start {
			buf = append(buf, ',')
		}
		var wait time.Duration
		var written bool
		buf, written, wait = s.serveOne(ctx, buf, &reqs[i], caller, ref)
		if !written {
			buf = buf[:n]
		}
		if wait > 0 {
			limited++
			retryAfter = max(retryAfter, wait)
		}
	}
	return finish(buf, batch, start, ref, limited == len(reqs), retryAfter)
}

// finish closes the response body and picks the HTTP status.
func finish(buf []byte, batch bool, start int, ref *refusal, allLimited bool, retryAfter time.Duration) outcome {
	empty := len(buf) == start
	switch {
	case empty:
		buf = nil
	case batch:
		buf = append(buf, ']')
	}
	out := outcome{body: buf, status: http.StatusOK}
	switch {
	case allLimited:
		out.status, out.retryAfter = http.StatusTooManyRequests, retryAfter
	case ref != nil:
		out.status = ref.status
	case empty:
		out.status = http.StatusNoContent
	}
	return out
}

// authenticate runs Options.Authenticate; a refusal applies to every call.
func (s *Server) authenticate(ctx context.Context, c Caller) (Caller, *refusal) {
	if s.opts.Authenticate == nil {
		return c, nil
	}
	got, err := s.opts.Authenticate(ctx, c)
	if err == nil {
		return got, nil
	}
	var e *Error
	if errors.As(err, &e) {
		return c, &refusal{err: e, status: http.StatusForbidden}
	}
	return c, &refusal{err: s.internal(err, "authenticate", nil, c), status: http.StatusInternalServerError}
}

func (s *Server) tooLarge() *Error {
	return NewError(CodeInvalidRequest, map[string]any{
		"reason":    "the request body is larger than this server accepts",
		"max_bytes": s.opts.MaxBodyBytes,
		"fix":       "send less per request (split batches, shorten params) or raise network.max_body_bytes on the receiving agent",
	})
}

// refuseWhole answers a request that was not dispatched with one error
// object (null id), after auditing it. It is rate limited like any call.
func (s *Server) refuseWhole(ctx context.Context, caller Caller, e *Error, status int) outcome {
	stranger := status == http.StatusUnauthorized || status == http.StatusForbidden
	key := limitKey(caller)
	if stranger {
		key = strangersKey
	}
	var wait time.Duration
	limited := false
	if ok, w := s.limits.allow(key, time.Now()); !ok {
		wait = max(w, time.Millisecond)
		e, status, limited = RateLimited(w), http.StatusTooManyRequests, true
	} else if bk := budgetKey(caller); !stranger && bk != "" {
		// An admitted caller's request that was no call (not JSON, a
		// GET, too large) is an audit row as a call is, so it is one of
		// its day's calls: uncounted, such requests grew the log past
		// the budget.
		if ok, w := s.daily.spend(bk, time.Now()); !ok {
			wait = w
			e, status, limited = DailyBudgetSpent(s.dailyLimit(), w), http.StatusTooManyRequests, true
		}
	}
	rec := CallRecord{Caller: caller, Err: e}
	write := true
	switch {
	case stranger:
		// Counted per source address: a fresh certificate per request
		// is still one caller here.
		write, rec.Suppressed = s.refusals.note(caller.Source(), time.Now())
	case limited:
		// A pinned caller over its rate: one row a minute counting the
		// rest, as for its calls (dispatch); the re-check's 200
		// malformed requests wrote 200 rows.
		write, rec.Suppressed = s.refusals.note(rateLimitedKey+limitKey(caller), time.Now())
	}
	if write {
		if aerr := s.audit(ctx, rec); aerr != nil {
			e, status = aerr, http.StatusInternalServerError
		}
	}
	s.observe(ctx, Observation{Caller: caller, Err: e, Suppressed: !write})
	return outcome{body: appendError(nil, nil, e), status: status, retryAfter: wait}
}
