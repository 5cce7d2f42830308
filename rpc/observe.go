package rpc

import (
	"context"
	"encoding/json"
	"time"
)

// ACLOutcome is the access decision a handler reported for its call
// (Call.RecordACL): a typed outcome, so observers need not read it back out
// of error data.
type ACLOutcome uint8

const (
	// ACLNone: the handler made no access decision (or did not run).
	ACLNone ACLOutcome = iota
	// ACLAllowed: the handler's access check let the call through.
	ACLAllowed
	// ACLDenied: the handler's access check refused the call.
	ACLDenied
)

// Observation is what Options.Observe receives once for every call the
// server answers or refuses, after its audit record is written.
type Observation struct {
	Caller       Caller
	Method       string          // "" when the request could not be read
	ID           json.RawMessage // nil for a notification or an unreadable request
	Notification bool
	Err          *Error        // nil on success
	Duration     time.Duration // from the request's arrival to its audit
	ACL          ACLOutcome
	// Suppressed: a refusal of an unauthenticated caller, or of a peer
	// over its rate limit, that was not audited on its own (refusals.go
	// folds it into a later counted row).
	Suppressed bool
}

// Code is the JSON-RPC error code, 0 on success.
func (o Observation) Code() int {
	if o.Err == nil {
		return 0
	}
	return o.Err.Code
}

// RecordACL tells observers the handler's access decision for this call.
// The last decision recorded wins.
func (c *Call) RecordACL(allowed bool) {
	c.acl = ACLDenied
	if allowed {
		c.acl = ACLAllowed
	}
}

// observe runs the observe hook. Like audit, it ignores ctx's
// cancellation: a call whose client went away is still observed.
func (s *Server) observe(ctx context.Context, o Observation) {
	if s.opts.Observe != nil {
		s.opts.Observe(context.WithoutCancel(ctx), o)
	}
}
