package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime/debug"
	"strconv"
	"time"
)

// serveOne runs one request and appends its response to buf. written is
// false when nothing was appended (a notification); wait > 0 means the call
// was rate limited.
func (s *Server) serveOne(ctx context.Context, buf []byte, req *request, caller Caller, ref *refusal) ([]byte, bool, time.Duration) {
	begin := time.Now()
	call := Call{Method: req.method, ID: req.id, Params: req.params, Notification: req.notification(), Caller: caller}
	var result any
	var resultJSON []byte
	e, wait := s.precheck(req, caller, ref, begin)
	if e == nil {
		result, resultJSON, e = s.dispatchOnce(ctx, &call)
	}
	d := time.Since(begin)
	write, suppressed := true, 0
	if wait > 0 {
		// A peer over its rate limit is audited like a stranger: one row
		// per minute counting the rest, so a flood of refused calls from
		// a pinned peer cannot flood the audit log either.
		write, suppressed = s.refusals.note(rateLimitedKey+limitKey(caller), begin)
	}
	if !call.audited && write {
		rec := CallRecord{
			Caller: caller, Method: call.Method, ID: call.ID, Params: call.Params,
			Notification: call.Notification, Result: result, Err: e, Duration: d, Suppressed: suppressed,
		}
		if aerr := s.audit(ctx, rec); aerr != nil {
			e = aerr
		}
	}
	s.observe(ctx, Observation{Caller: caller, Method: call.Method, ID: call.ID,
		Notification: call.Notification, Err: e, Duration: d, ACL: call.acl, Suppressed: !write})
	switch {
	case call.Notification:
		return buf, false, wait
	case e != nil:
		return appendError(buf, req.id, e), true, wait
	}
	return appendResult(buf, req.id, resultJSON), true, wait
}

// dispatchOnce runs the call unless the same caller already made the same
// call (id, method, params) within the replay window: then it answers with
// the first result (replay.go). Notifications and unauthenticated callers
// are not remembered.
func (s *Server) dispatchOnce(ctx context.Context, call *Call) (any, []byte, *Error) {
	if call.Notification || call.Caller.AgentID == "" || len(call.ID) == 0 {
		return s.dispatchEncoded(ctx, call)
	}
	key, callerKey := replayKey(call.Caller, call.ID, call.Method, call.Params)
	entry, first := s.replays.begin(callerKey, key, time.Now())
	if !first {
		select {
		case <-entry.done:
		case <-ctx.Done():
			return nil, nil, s.internal(ctx.Err(), call.Method, call.ID, call.Caller)
		}
		if entry.result != nil {
			return json.RawMessage(entry.result), entry.result, nil
		}
		return s.dispatchEncoded(ctx, call) // the first failed: run this one
	}
	result, resultJSON, e := s.dispatchEncoded(ctx, call)
	s.replays.finish(entry, resultJSON, e == nil)
	return result, resultJSON, e
}

// JSONAppender is a result that can encode itself without reflection
// (aoi.query's, on every question). AppendJSON appends the result's JSON
// to b, or reports false, and the result goes through json.Marshal.
type JSONAppender interface {
	AppendJSON(b []byte) ([]byte, bool)
}

// dispatchEncoded dispatches and encodes the result.
func (s *Server) dispatchEncoded(ctx context.Context, call *Call) (any, []byte, *Error) {
	result, e := s.dispatch(ctx, call)
	if e != nil {
		return nil, nil, e
	}
	if a, ok := result.(JSONAppender); ok {
		if b, ok := a.AppendJSON(make([]byte, 0, 256)); ok {
			return result, b, nil
		}
	}
	b, err := json.Marshal(result)
	if err != nil {
		return nil, nil, s.internal(fmt.Errorf("encoding the result: %w", err), call.Method, call.ID, call.Caller)
	}
	return result, b, nil
}

// precheck applies the caller's rate limit, the whole-request refusal and
// the request's own validity, in that order. Refused callers are limited
// too, so a stranger cannot flood the audit log.
func (s *Server) precheck(req *request, caller Caller, ref *refusal, now time.Time) (*Error, time.Duration) {
	if ok, wait := s.limits.allow(limitKey(caller), now); !ok {
		return RateLimited(wait), max(wait, time.Millisecond)
	}
	if ref != nil {
		return ref.err, 0
	}
	if key := budgetKey(caller); key != "" {
		if ok, wait := s.daily.spend(key, now); !ok {
			return DailyBudgetSpent(s.dailyLimit(), wait), wait
		}
	}
	return req.err, 0
}

// budgetKey is whose day's calls a call of an admitted caller spends: its
// agent id, or for a tailnet node bound to none yet (let through so its
// announce can be read, and audited call by call) the node's key. ""
// for a caller with neither.
func budgetKey(c Caller) string {
	switch {
	case c.AgentID != "":
		return c.AgentID
	case c.NodeID != "":
		return c.Key()
	}
	return ""
}

// limitKey is Caller.Key, except that a caller known only by its address
// is limited per host rather than per connection.
func limitKey(c Caller) string {
	if c.Fingerprint == "" && c.NodeID == "" {
		return c.Kind + ":" + c.Source()
	}
	return c.Key()
}

// dispatch calls the method's handler, turning panics and plain errors
// into internal errors that do not leak their text.
func (s *Server) dispatch(ctx context.Context, call *Call) (result any, e *Error) {
	h := (*s.handlers.Load())[call.Method]
	if h == nil {
		return nil, MethodNotFound(call.Method)
	}
	defer func() {
		if p := recover(); p != nil {
			result = nil
			e = s.internal(fmt.Errorf("panic: %v\n%s", p, debug.Stack()), call.Method, call.ID, call.Caller)
		}
	}()
	res, err := h(ctx, call)
	if err == nil {
		return res, nil
	}
	var re *Error
	if errors.As(err, &re) {
		return nil, re
	}
	return nil, s.internal(err, call.Method, call.ID, call.Caller)
}

// audit runs the audit hook. It ignores ctx's cancellation: a call whose
// client went away must still be recorded.
func (s *Server) audit(ctx context.Context, rec CallRecord) *Error {
	if s.opts.Audit == nil {
		return nil
	}
	err := s.opts.Audit(context.WithoutCancel(ctx), rec)
	if err == nil {
		return nil
	}
	ref := s.logInternal(fmt.Errorf("audit: %w", err), rec.Method, rec.ID, rec.Caller)
	return NewError(CodeInternalError, map[string]any{
		"reason":     "the call could not be written to the audit log, so it is not acknowledged; retry later (request id " + ref + ")",
		"request_id": ref,
	})
}

// internal logs err under a fresh reference and returns -32603 whose data
// names only that reference, never err's text.
func (s *Server) internal(err error, method string, id json.RawMessage, caller Caller) *Error {
	ref := s.logInternal(err, method, id, caller)
	return NewError(CodeInternalError, map[string]any{
		"reason":     "internal error; see the agent's log, request id " + ref,
		"request_id": ref,
	})
}

// logInternal logs err with a fresh reference a person can search for.
func (s *Server) logInternal(err error, method string, id json.RawMessage, caller Caller) string {
	ref := strconv.FormatUint(rand.Uint64(), 16)
	s.log.Error("rpc: internal error", "request_id", ref, "method", method, "id", idString(id), "caller", caller.Key(), "err", err)
	return ref
}
