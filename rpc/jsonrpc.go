package rpc

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/aoi-protocol/aoi/internal/jsonwalk"
)

// DefaultMaxBatch bounds the number of elements in one batch request.
const DefaultMaxBatch = 100

// MaxIDBytes bounds a request id's JSON text. Ids are correlation tokens
// (a counter, a UUID); the id goes into the audit row and every log line.
const MaxIDBytes = 256

// MaxMethodBytes bounds a request's method name. The longest aoi serves is
// a few dozen bytes; the method goes into the audit row of every call, a
// refused one included, and a pinned peer's 60 KiB method names were
// stored whole, one row a call.
const MaxMethodBytes = 128

// nullID is the id of a response to a request whose id could not be read.
var nullID = json.RawMessage("null")

// request is one element of a request body after validation. When err is
// set the element was not a valid Request object and id is the id to
// answer with (nil means null).
type request struct {
	method string
	id     json.RawMessage // nil when the member is absent: a notification
	params json.RawMessage // nil when absent
	err    *Error
}

// notification reports whether no response must be sent for r.
func (r *request) notification() bool { return r.err == nil && r.id == nil }

// decodeBody splits a request body into its requests. batch reports an
// array body; a non-nil *Error is a body-level failure answered by one
// response object with a null id (parse error, empty or oversized batch).
func decodeBody(body []byte, maxBatch int) (reqs []request, batch bool, err *Error) {
	if !json.Valid(body) {
		var v any
		return nil, isArray(body), parseError(json.Unmarshal(body, &v))
	}
	if isArray(body) {
		var elems []json.RawMessage
		jsonwalk.Elements(body, func(raw []byte) bool {
			elems = append(elems, raw)
			return true
		})
		switch {
		case len(elems) == 0:
			return nil, true, InvalidRequest("the batch is an empty array; send at least one request object")
		case len(elems) > maxBatch:
			return nil, true, InvalidRequest("the batch has %d requests, over the limit of %d; split it into smaller batches", len(elems), maxBatch)
		}
		reqs = make([]request, len(elems))
		for i, raw := range elems {
			reqs[i] = decodeElement(raw, "each batch element must be a request object")
		}
		return reqs, true, nil
	}
	return []request{decodeElement(body, "the request must be a JSON object")}, false, nil
}

// parseError is -32700 with the decoder's complaint.
func parseError(e error) *Error {
	return NewError(CodeParseError, map[string]any{"reason": "the body is not valid JSON: " + e.Error()})
}

// isArray reports whether the first non-whitespace byte of b is '['.
func isArray(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '['
	}
	return false
}

// decodeElement validates one Request object, raw valid JSON; notObject
// is the complaint when it is not an object.
func decodeElement(raw json.RawMessage, notObject string) request {
	env, ok := readEnvelope(raw)
	if !ok {
		return request{err: InvalidRequest("%s", notObject)}
	}
	var r request
	if id := env.id; id != nil {
		if !validID(id) {
			return request{err: InvalidRequest("id must be a string, a number or null")}
		}
		if len(id) > MaxIDBytes {
			// Refused before anything runs, and not echoed: a call whose
			// id cannot fit in its audit row would run and then fail to
			// be audited (and acknowledged).
			return request{err: InvalidRequest("id is %d bytes of JSON; the limit is %d: use a short id", len(id), MaxIDBytes)}
		}
		r.id = id
	}
	if !isString(env.jsonrpc, "2.0") {
		r.err = InvalidRequest(`"jsonrpc" must be exactly "2.0"`)
		return errorOnly(r)
	}
	method, ok := jsonwalk.String(env.method)
	if !ok {
		r.err = InvalidRequest(`"method" must be a string`)
		return errorOnly(r)
	}
	if len(method) > MaxMethodBytes {
		// Refused without being echoed or kept: the audit row reads
		// request.refused, as for any request whose method was not read.
		r.err = InvalidRequest(`"method" is %d bytes; no method is longer than %d: send one aoi serves, such as aoi.ping`, len(method), MaxMethodBytes)
		return errorOnly(r)
	}
	r.method = method
	if p := env.params; p != nil {
		if p[0] != '{' && p[0] != '[' {
			r.err = InvalidRequest(`"params" must be an object or an array when present`)
			return errorOnly(r)
		}
		r.params = p
	}
	return r
}

// errorOnly keeps only what an error response needs.
func errorOnly(r request) request { return request{id: r.id, err: r.err} }

// validID reports whether raw is a string, a number or null.
func validID(raw json.RawMessage) bool {
	if len(raw) == 0 {
		return false
	}
	c := raw[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9') || bytes.Equal(raw, nullID)
}

// isString reports whether raw is the JSON string want.
func isString(raw json.RawMessage, want string) bool {
	s, ok := jsonwalk.String(raw)
	return ok && s == want
}

// appendResult appends a success response; result is already JSON.
func appendResult(buf []byte, id json.RawMessage, result []byte) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","result":`...)
	buf = append(buf, result...)
	return appendID(buf, id)
}

// appendError appends an error response.
func appendError(buf []byte, id json.RawMessage, e *Error) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","error":`...)
	buf = append(buf, marshalError(e)...)
	return appendID(buf, id)
}

func appendID(buf []byte, id json.RawMessage) []byte {
	buf = append(buf, `,"id":`...)
	if id == nil {
		id = nullID
	}
	buf = append(buf, id...)
	return append(buf, '}')
}

// marshalError encodes e, dropping data that cannot be encoded so the
// caller still learns the code.
func marshalError(e *Error) []byte {
	b, err := json.Marshal(e)
	if err == nil {
		return b
	}
	b, _ = json.Marshal(&Error{Code: e.Code, Message: e.Message})
	return b
}

// idString renders a raw id for logs.
func idString(id json.RawMessage) string {
	if id == nil {
		return "none"
	}
	if s, ok := jsonwalk.String(id); ok {
		return strconv.Quote(s)
	}
	return string(id)
}
