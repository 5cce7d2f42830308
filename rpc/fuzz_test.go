package rpc

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// FuzzDecode feeds arbitrary bodies through decoding and dispatch and
// checks the invariants every answer must keep. Seeds are in
// testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":1}`))
	s := specServer(f, Options{MaxBodyBytes: 1 << 16, MaxBatch: 20})
	f.Fuzz(func(t *testing.T, body []byte) {
		resp, status := s.ServeRPC(context.Background(), body, Caller{Kind: "fuzz"})
		switch status {
		case http.StatusNoContent:
			if len(resp) != 0 {
				t.Fatalf("204 with a body: %q", resp)
			}
			return
		case http.StatusOK, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("unexpected status %d", status)
		}
		if !json.Valid(resp) {
			t.Fatalf("response is not valid JSON: %q", resp)
		}
		if isArray(resp) {
			var rs []json.RawMessage
			if err := json.Unmarshal(resp, &rs); err != nil || len(rs) == 0 {
				t.Fatalf("batch response %q: %v", resp, err)
			}
			for _, r := range rs {
				checkResponseObject(t, r)
			}
			return
		}
		checkResponseObject(t, resp)
	})
}

// checkResponseObject asserts the shape of one response object.
func checkResponseObject(t *testing.T, raw []byte) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("response %q is not an object: %v", raw, err)
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	_, hasID := m["id"]
	if string(m["jsonrpc"]) != `"2.0"` || hasResult == hasError || !hasID {
		t.Fatalf("malformed response object %s", raw)
	}
	if !validID(m["id"]) {
		t.Fatalf("response id %s is not a string, number or null", m["id"])
	}
}
