package rpc

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// JSON-RPC 2.0 error codes (jsonrpc.org/specification §5.1).
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
)

// AOI error codes (design §3).
const (
	CodePermissionDenied = -32001 // PERMISSION_DENIED
	CodeContextNotFound  = -32002 // CONTEXT_NOT_FOUND
	CodeAgentNotFound    = -32003 // AGENT_NOT_FOUND
	CodeAgentBusy        = -32004 // AGENT_BUSY
	CodeTimeout          = -32005 // TIMEOUT
	CodeRateLimit        = -32006 // RATE_LIMIT
	CodeApprovalDenied   = -32007 // APPROVAL_DENIED
)

// messages holds the fixed error message of every known code.
var messages = map[int]string{
	CodeParseError:       "Parse error",
	CodeInvalidRequest:   "Invalid Request",
	CodeMethodNotFound:   "Method not found",
	CodeInvalidParams:    "Invalid params",
	CodeInternalError:    "Internal error",
	CodePermissionDenied: "Permission denied",
	CodeContextNotFound:  "Context not found",
	CodeAgentNotFound:    "Agent not found",
	CodeAgentBusy:        "Agent busy",
	CodeTimeout:          "Timeout",
	CodeRateLimit:        "Rate limit exceeded",
	CodeApprovalDenied:   "Approval denied",
}

// Message returns the standard message for code ("Server error" for unknown
// codes in the implementation-defined range, "Error" otherwise).
func Message(code int) string {
	if m, ok := messages[code]; ok {
		return m
	}
	if code <= -32000 && code >= -32099 {
		return "Server error"
	}
	return "Error"
}

// ProtocolCode reports whether code is one of JSON-RPC's own (parse error,
// invalid request, method not found, invalid params, internal error):
// their standard messages are protocol words, so a front end shows such an
// error's reason alone.
func ProtocolCode(code int) bool { return code <= -32600 && code >= -32700 }

// Error is a JSON-RPC error object. Handlers return it to choose the code
// and data a caller sees; the client returns it for error responses.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Error describes the error with its reason when data carries one.
func (e *Error) Error() string {
	s := "rpc error " + strconv.Itoa(e.Code) + " (" + e.Message + ")"
	if r := e.Reason(); r != "" {
		s += ": " + r
	}
	return s
}

// Reason returns data.reason (or data when it is a plain string), "" if none.
func (e *Error) Reason() string {
	switch d := e.Data.(type) {
	case string:
		return d
	case map[string]any:
		if r, ok := d["reason"].(string); ok {
			return r
		}
	}
	return ""
}

// RetryAfter returns data.retry_after_ms as a duration (0 if absent).
func (e *Error) RetryAfter() time.Duration {
	d, ok := e.Data.(map[string]any)
	if !ok {
		return 0
	}
	switch v := d["retry_after_ms"].(type) {
	case float64:
		return time.Duration(v * float64(time.Millisecond))
	case int64:
		return time.Duration(v) * time.Millisecond
	case int:
		return time.Duration(v) * time.Millisecond
	case json.Number:
		f, _ := v.Float64()
		return time.Duration(f * float64(time.Millisecond))
	}
	return 0
}

// NewError returns an error with code, its standard message and data.
func NewError(code int, data any) *Error {
	return &Error{Code: code, Message: Message(code), Data: data}
}

func reasonData(reason string, extra map[string]any) map[string]any {
	d := make(map[string]any, len(extra)+1)
	for k, v := range extra {
		d[k] = v
	}
	d["reason"] = reason
	return d
}

// InvalidRequest is -32600 with data.reason explaining what is wrong.
func InvalidRequest(format string, args ...any) *Error {
	return NewError(CodeInvalidRequest, map[string]any{"reason": fmt.Sprintf(format, args...)})
}

// MethodNotFound is -32601 naming the method.
func MethodNotFound(method string) *Error {
	return NewError(CodeMethodNotFound, map[string]any{
		"reason": fmt.Sprintf("method %q is not served here", method),
		"method": method,
	})
}

// InvalidParams is -32602 with data.reason, e.g.
// "params.priority: want string, got number".
func InvalidParams(format string, args ...any) *Error {
	return NewError(CodeInvalidParams, map[string]any{"reason": fmt.Sprintf(format, args...)})
}

// Internal is -32603 with data.reason; say what the caller can do, never
// include internals such as SQL or file paths.
func Internal(format string, args ...any) *Error {
	return NewError(CodeInternalError, map[string]any{"reason": fmt.Sprintf(format, args...)})
}

// PermissionDenied is -32001 with data.reason plus extra fields such as
// required_permission and requested_scope (seed 000 §5).
func PermissionDenied(reason string, extra map[string]any) *Error {
	return NewError(CodePermissionDenied, reasonData(reason, extra))
}

// ContextNotFound is -32002 naming the context and the agent that holds
// no such context: the caller shows the reason to its owner, who read
// "held by this agent" as their own (the fourteenth walk).
func ContextNotFound(holder, context string) *Error {
	return NewError(CodeContextNotFound, map[string]any{
		"reason":            fmt.Sprintf("%s holds no context %q", holder, context),
		"requested_context": context,
		"suggestion":        fmt.Sprintf("List %s's contexts with aoi.discover", holder),
	})
}

// AgentNotFound is -32003 in seed 000 §5's shape.
func AgentNotFound(agent string) *Error {
	return NewError(CodeAgentNotFound, map[string]any{
		"reason":          fmt.Sprintf("no agent %q is registered here", agent),
		"requested_agent": agent,
		"suggestion":      "Check agent registry with aoi.discover",
	})
}

// AgentBusy is -32004; retryAfter (optional, 0 to omit) tells the caller
// when to try again.
func AgentBusy(reason string, retryAfter time.Duration) *Error {
	d := map[string]any{"reason": reason}
	if retryAfter > 0 {
		d["retry_after_ms"] = retryAfter.Milliseconds()
	}
	return NewError(CodeAgentBusy, d)
}

// Timeout is -32005: what timed out and after how long.
func Timeout(what string, after time.Duration) *Error {
	return NewError(CodeTimeout, map[string]any{
		"reason":     fmt.Sprintf("%s did not finish within %s", what, after),
		"timeout_ms": after.Milliseconds(),
	})
}

// RateLimited is -32006 with data.reason and data.retry_after_ms.
func RateLimited(retryAfter time.Duration) *Error {
	ms := retryAfter.Milliseconds()
	if retryAfter > 0 && ms == 0 {
		ms = 1
	}
	return NewError(CodeRateLimit, map[string]any{
		"reason":         fmt.Sprintf("too many requests from this caller; retry after %d ms", ms),
		"retry_after_ms": ms,
	})
}

// BodyBytesLimited is -32006 for a caller over its budget of request bytes
// (Options.BodyBytesPerSec), with data.reason and data.retry_after_ms.
func BodyBytesLimited(retryAfter time.Duration, perSec float64) *Error {
	ms := max(retryAfter.Milliseconds(), 1)
	return NewError(CodeRateLimit, map[string]any{
		"reason":         fmt.Sprintf("this caller sent more than its %.0f request bytes a second; retry after %d ms, or send less at once", perSec, ms),
		"retry_after_ms": ms,
	})
}

// ApprovalDenied is -32007: the owner rejected the request or the approval
// timed out.
func ApprovalDenied(reason string) *Error {
	return NewError(CodeApprovalDenied, map[string]any{"reason": reason})
}
