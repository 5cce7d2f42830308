package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
)

// Handler serves one method. It returns the result (any JSON-encodable
// value; nil encodes as null) or an error: a *Error reaches the caller as
// is, any other error becomes -32603 without its text.
type Handler func(ctx context.Context, call *Call) (any, error)

// Call is one JSON-RPC request as a handler sees it.
type Call struct {
	Method       string
	ID           json.RawMessage // as received, byte for byte; nil for a notification
	Params       json.RawMessage // nil when absent; valid JSON (the server validated the body)
	Notification bool
	Caller       Caller

	audited bool
	acl     ACLOutcome // set by RecordACL (observe.go)
}

// MarkAudited tells the server that the handler wrote this call's audit
// record itself (in its own transaction), so the generic audit hook must
// not write another one.
func (c *Call) MarkAudited() { c.audited = true }

// Audited reports whether MarkAudited was called.
func (c *Call) Audited() bool { return c.audited }

// Bind decodes the params into v (a pointer). Unknown fields are allowed.
// A type mismatch is a -32602 *Error naming the field, e.g.
// "params.priority: want string, got number".
func (c *Call) Bind(v any) error {
	if len(c.Params) == 0 {
		return nil
	}
	err := json.Unmarshal(c.Params, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := "params"
		if te.Field != "" {
			path += "." + te.Field
		}
		return InvalidParams("%s: want %s, got %s", path, kindName(te.Type), gotName(te.Value))
	}
	return InvalidParams("params: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// kindName names a Go type the way a JSON author thinks of it.
func kindName(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string (base64)"
		}
		return "array"
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return t.String()
}

// gotName turns encoding/json's description of the value ("bool",
// "number 1.5") into JSON terms.
func gotName(v string) string {
	if v == "bool" {
		return "boolean"
	}
	return v
}
