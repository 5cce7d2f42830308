package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// specServer serves the methods used by the examples of the JSON-RPC 2.0
// specification (jsonrpc.org/specification §7).
func specServer(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Identify == nil {
		opts.Identify = func(r *http.Request) (Caller, error) { return Caller{Kind: "test", Addr: r.RemoteAddr}, nil }
	}
	s := NewServer(opts)
	s.Handle("subtract", func(ctx context.Context, c *Call) (any, error) {
		if len(c.Params) > 0 && c.Params[0] == '[' {
			var p []float64
			if err := c.Bind(&p); err != nil {
				return nil, err
			}
			if len(p) != 2 {
				return nil, InvalidParams("want 2 numbers, got %d", len(p))
			}
			return p[0] - p[1], nil
		}
		var p struct{ Minuend, Subtrahend float64 }
		if err := c.Bind(&p); err != nil {
			return nil, err
		}
		return p.Minuend - p.Subtrahend, nil
	})
	s.Handle("sum", func(ctx context.Context, c *Call) (any, error) {
		var p []float64
		if err := c.Bind(&p); err != nil {
			return nil, err
		}
		total := 0.0
		for _, v := range p {
			total += v
		}
		return total, nil
	})
	s.Handle("get_data", func(ctx context.Context, c *Call) (any, error) { return []any{"hello", 5}, nil })
	noop := func(ctx context.Context, c *Call) (any, error) { return nil, nil }
	s.Handle("update", noop)
	s.Handle("notify_hello", noop)
	s.Handle("notify_sum", noop)
	return s
}

// post sends body to url as a JSON-RPC request.
func post(t testing.TB, url, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading response: %v", err)
	}
	return resp, b
}

// normalise decodes a response and drops error.data, which the spec
// allows a server to add.
func normalise(t testing.TB, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, raw)
	}
	strip := func(m any) {
		if obj, ok := m.(map[string]any); ok {
			if e, ok := obj["error"].(map[string]any); ok {
				delete(e, "data")
			}
		}
	}
	if arr, ok := v.([]any); ok {
		for _, m := range arr {
			strip(m)
		}
	} else {
		strip(v)
	}
	return v
}

func TestSpecExamples(t *testing.T) {
	ts := httptest.NewServer(specServer(t, Options{}))
	defer ts.Close()
	url := ts.URL + Path
	tests := []struct {
		name, req, want string // want "" means no response (HTTP 204)
	}{
		{"positional params 1", `{"jsonrpc": "2.0", "method": "subtract", "params": [42, 23], "id": 1}`, `{"jsonrpc": "2.0", "result": 19, "id": 1}`},
		{"positional params 2", `{"jsonrpc": "2.0", "method": "subtract", "params": [23, 42], "id": 2}`, `{"jsonrpc": "2.0", "result": -19, "id": 2}`},
		{"named params 1", `{"jsonrpc": "2.0", "method": "subtract", "params": {"subtrahend": 23, "minuend": 42}, "id": 3}`, `{"jsonrpc": "2.0", "result": 19, "id": 3}`},
		{"named params 2", `{"jsonrpc": "2.0", "method": "subtract", "params": {"minuend": 42, "subtrahend": 23}, "id": 4}`, `{"jsonrpc": "2.0", "result": 19, "id": 4}`},
		{"notification 1", `{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}`, ``},
		{"notification 2", `{"jsonrpc": "2.0", "method": "foobar"}`, ``},
		{"non-existent method", `{"jsonrpc": "2.0", "method": "foobar", "id": "1"}`, `{"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "1"}`},
		{"invalid JSON", `{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]`, `{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}`},
		{"invalid Request object", `{"jsonrpc": "2.0", "method": 1, "params": "bar"}`, `{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}`},
		{"batch invalid JSON", "[\n  {\"jsonrpc\": \"2.0\", \"method\": \"sum\", \"params\": [1,2,4], \"id\": \"1\"},\n  {\"jsonrpc\": \"2.0\", \"method\"\n]", `{"jsonrpc": "2.0", "error": {"code": -32700, "message": "Parse error"}, "id": null}`},
		{"empty array", `[]`, `{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}`},
		{"invalid batch not empty", `[1]`, `[{"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}]`},
		{"invalid batch", `[1,2,3]`, `[
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null}
]`},
		{"mixed batch", `[
  {"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},
  {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},
  {"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},
  {"foo": "boo"},
  {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
  {"jsonrpc": "2.0", "method": "get_data", "id": "9"}
]`, `[
  {"jsonrpc": "2.0", "result": 7, "id": "1"},
  {"jsonrpc": "2.0", "result": 19, "id": "2"},
  {"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid Request"}, "id": null},
  {"jsonrpc": "2.0", "error": {"code": -32601, "message": "Method not found"}, "id": "5"},
  {"jsonrpc": "2.0", "result": ["hello", 5], "id": "9"}
]`},
		{"all notifications batch", `[
  {"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},
  {"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}
]`, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := post(t, url, tt.req)
			if tt.want == "" {
				if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
					t.Fatalf("want HTTP 204 with an empty body, got %d %q", resp.StatusCode, body)
				}
				return
			}
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d, want 200; body %s", resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			got, want := normalise(t, body), normalise(t, []byte(tt.want))
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("response mismatch\n got: %s\nwant: %s", body, tt.want)
			}
		})
	}
}

func TestIDsEchoedByteForByte(t *testing.T) {
	s := specServer(t, Options{})
	for _, id := range []string{
		`1`, `-7`, `0`, `1.5`, `1e3`, `1.0E+2`, `12345678901234567890123456789012345678901234567890`,
		`"abc"`, `""`, `"a\"b\\c\u00e9"`, `"日本"`, `null`,
	} {
		t.Run(id, func(t *testing.T) {
			resp, status := s.ServeRPC(context.Background(), []byte(`{"jsonrpc":"2.0","method":"get_data","id":`+id+`}`), Caller{Kind: "test"})
			if status != http.StatusOK {
				t.Fatalf("status %d", status)
			}
			if !bytes.HasSuffix(resp, []byte(`,"id":`+id+`}`)) {
				t.Fatalf("id not echoed byte for byte: %s", resp)
			}
		})
	}
}

func TestInvalidRequests(t *testing.T) {
	s := specServer(t, Options{MaxBatch: 3})
	tests := []struct {
		name, req string
		code      int
		id        string
	}{
		{"wrong version", `{"jsonrpc":"1.0","method":"sum","params":[1],"id":7}`, CodeInvalidRequest, `7`},
		{"version as number", `{"jsonrpc":2.0,"method":"sum","id":7}`, CodeInvalidRequest, `7`},
		{"no version", `{"method":"sum","id":7}`, CodeInvalidRequest, `7`},
		{"method case matters", `{"jsonrpc":"2.0","Method":"sum","id":7}`, CodeInvalidRequest, `7`},
		{"params string", `{"jsonrpc":"2.0","method":"sum","params":"x","id":7}`, CodeInvalidRequest, `7`},
		{"params null", `{"jsonrpc":"2.0","method":"sum","params":null,"id":7}`, CodeInvalidRequest, `7`},
		{"id object", `{"jsonrpc":"2.0","method":"sum","id":{"a":1}}`, CodeInvalidRequest, `null`},
		{"id bool", `{"jsonrpc":"2.0","method":"sum","id":true}`, CodeInvalidRequest, `null`},
		{"id array", `{"jsonrpc":"2.0","method":"sum","id":[1]}`, CodeInvalidRequest, `null`},
		{"body null", `null`, CodeInvalidRequest, `null`},
		{"body string", `"x"`, CodeInvalidRequest, `null`},
		{"empty body", ``, CodeParseError, `null`},
		{"trailing garbage", `{"jsonrpc":"2.0","method":"sum","id":1} x`, CodeParseError, `null`},
		{"batch too big", `[1,2,3,4]`, CodeInvalidRequest, `null`},
		{"wrong param type", `{"jsonrpc":"2.0","method":"sum","params":{"a":1},"id":7}`, CodeInvalidParams, `7`},
		{"method not found", `{"jsonrpc":"2.0","method":"rpc.x","id":7}`, CodeMethodNotFound, `7`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, _ := s.ServeRPC(context.Background(), []byte(tt.req), Caller{Kind: "test"})
			var r struct {
				Error *Error          `json:"error"`
				ID    json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(resp, &r); err != nil {
				t.Fatalf("response %q: %v", resp, err)
			}
			if r.Error == nil || r.Error.Code != tt.code || r.Error.Message != Message(tt.code) {
				t.Fatalf("got %s, want code %d", resp, tt.code)
			}
			if string(r.ID) != tt.id {
				t.Fatalf("id %s, want %s", r.ID, tt.id)
			}
			if r.Error.Reason() == "" {
				t.Errorf("error.data has no reason a person can act on: %s", resp)
			}
		})
	}
}
