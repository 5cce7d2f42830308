// Package errs holds the agent's domain errors. Domain code returns them;
// only the edges turn them into JSON-RPC errors: the peer server's handlers
// (agent: peerError) and the control table (agent/control: Error). Each
// error's text says what happened and what to do, so an edge may show it
// as is.
package errs

import (
	"errors"
	"fmt"
)

// Kinds, for errors.Is.
var (
	// ErrInvalid: the request itself is wrong (missing, malformed or out
	// of range); retrying it unchanged cannot succeed.
	ErrInvalid = errors.New("invalid request")
	// ErrDenied: an access rule, a trust decision or the caller's identity
	// refuses the request.
	ErrDenied = errors.New("denied")
	// ErrNotFound: the thing named (a query, a message, a task) does not
	// exist here.
	ErrNotFound = errors.New("not found")
	// ErrUnknownPeer: the agent named is not one this agent knows (or is
	// not this agent, when a peer addressed another).
	ErrUnknownPeer = errors.New("unknown peer")
	// ErrConflict: the thing named is in a state that does not allow the
	// request (a query already answered).
	ErrConflict = errors.New("conflict")
)

// Error is a domain error of one kind with a message for a person and,
// for the edges, structured data (e.g. required_permission).
type Error struct {
	Kind error
	Msg  string
	Data map[string]any
}

func (e *Error) Error() string { return e.Msg }

// Is makes errors.Is(err, ErrDenied) and the like work.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Invalid is an ErrInvalid with a formatted message.
func Invalid(format string, args ...any) *Error {
	return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf(format, args...)}
}

// Denied is an ErrDenied with its reason and data for the caller (nil
// for none).
func Denied(reason string, data map[string]any) *Error {
	return &Error{Kind: ErrDenied, Msg: reason, Data: data}
}

// NotFound is an ErrNotFound with a formatted message.
func NotFound(format string, args ...any) *Error {
	return &Error{Kind: ErrNotFound, Msg: fmt.Sprintf(format, args...)}
}

// Conflict is an ErrConflict with a formatted message.
func Conflict(format string, args ...any) *Error {
	return &Error{Kind: ErrConflict, Msg: fmt.Sprintf(format, args...)}
}

// UnknownPeer is an ErrUnknownPeer naming the agent; msg says what to do.
func UnknownPeer(agentID, msg string) *Error {
	return &Error{Kind: ErrUnknownPeer, Msg: msg, Data: map[string]any{"agent": agentID}}
}

// Agent is the agent an ErrUnknownPeer names ("" for other errors).
func Agent(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Kind == ErrUnknownPeer {
		s, _ := e.Data["agent"].(string)
		return s
	}
	return ""
}

// kindNames are the kinds' names on the control socket (data.kind).
var kindNames = map[error]string{
	ErrInvalid: "invalid", ErrDenied: "denied", ErrNotFound: "not_found",
	ErrUnknownPeer: "unknown_peer", ErrConflict: "conflict",
}

// KindName names err's kind for the wire ("" when err is not a domain
// error).
func KindName(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return kindNames[e.Kind]
	}
	return ""
}

// WithKind returns err, unchanged in text, that errors.Is also finds to be
// of the kind named (as KindName gives it); an unknown name returns err.
// The control client uses it so a front end over the socket tells kinds
// apart as one in the same process does.
func WithKind(name string, err error) error {
	for kind, n := range kindNames {
		if n == name {
			return &kinded{kind: kind, err: err}
		}
	}
	return err
}

type kinded struct{ kind, err error }

func (k *kinded) Error() string   { return k.err.Error() }
func (k *kinded) Unwrap() []error { return []error{k.err, k.kind} }
