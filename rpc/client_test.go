package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fastRetry keeps retry tests quick.
var fastRetry = ClientOptions{BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Peer: "eng-suzuki"}

// flaky fails the first n requests with status, then serves h.
func flaky(n int32, status int, h http.Handler, hits *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) <= n {
			http.Error(w, "try later", status)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func TestClientRetries503ThenSucceeds(t *testing.T) {
	var hits atomic.Int32
	ts := httptest.NewServer(flaky(2, http.StatusServiceUnavailable, specServer(t, Options{}), &hits))
	defer ts.Close()
	c := NewClient(ts.URL+Path, ts.Client(), fastRetry)
	var got float64
	if err := c.Call(context.Background(), "subtract", []int{42, 23}, &got); err != nil {
		t.Fatalf("call: %v", err)
	}
	if got != 19 || hits.Load() != 3 {
		t.Fatalf("result %v after %d attempts, want 19 after 3", got, hits.Load())
	}
}

func TestClientGivesUpAfterMaxAttempts(t *testing.T) {
	var hits atomic.Int32
	ts := httptest.NewServer(flaky(10, http.StatusBadGateway, specServer(t, Options{}), &hits))
	defer ts.Close()
	err := NewClient(ts.URL+Path, ts.Client(), fastRetry).Call(context.Background(), "get_data", nil, nil)
	var te *TransportError
	if !errors.As(err, &te) || te.Status != http.StatusBadGateway || te.Attempts != 3 || hits.Load() != 3 {
		t.Fatalf("want a 502 TransportError after 3 attempts, got %v (hits %d)", err, hits.Load())
	}
}

func TestClientDoesNotRetryRPCErrorsOr4xx(t *testing.T) {
	tests := []struct {
		name   string
		status int // 0: serve the spec server
		method string
		params any
		code   int
	}{
		{"invalid params", 0, "subtract", map[string]any{"minuend": "x"}, CodeInvalidParams},
		{"method not found", 0, "nope", nil, CodeMethodNotFound},
		{"HTTP 400", http.StatusBadRequest, "get_data", nil, 0},
		{"HTTP 404", http.StatusNotFound, "get_data", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			n := int32(0)
			if tt.status != 0 {
				n = 100
			}
			ts := httptest.NewServer(flaky(n, max(tt.status, 200), specServer(t, Options{}), &hits))
			defer ts.Close()
			err := NewClient(ts.URL+Path, ts.Client(), fastRetry).Call(context.Background(), tt.method, tt.params, nil)
			if hits.Load() != 1 {
				t.Fatalf("sent %d times, want 1 (no retry); err %v", hits.Load(), err)
			}
			var e *Error
			if tt.code != 0 && (!errors.As(err, &e) || e.Code != tt.code) {
				t.Fatalf("want *Error %d, got %v", tt.code, err)
			}
			if tt.code == 0 && (IsRetryable(err) || !strings.Contains(err.Error(), ts.URL)) {
				t.Fatalf("want a non-retryable error naming the URL, got %v", err)
			}
		})
	}
}

func TestClientConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + Path
	ln.Close()
	err = NewClient(url, nil, fastRetry).Call(context.Background(), "get_data", nil, nil)
	var te *TransportError
	if !errors.As(err, &te) || te.Attempts != 3 {
		t.Fatalf("want a TransportError after 3 attempts, got %v", err)
	}
	msg := err.Error()
	for _, want := range []string{"peer eng-suzuki", url, "connection refused", "aoi serve", "after 3 attempts"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %q", msg, want)
		}
	}
}

func TestClientHonoursRetryAfter(t *testing.T) {
	s := specServer(t, Options{})
	var hits atomic.Int32
	s.Handle("busy_once", func(ctx context.Context, c *Call) (any, error) {
		if hits.Add(1) == 1 {
			return nil, AgentBusy("two queries are running", 80*time.Millisecond)
		}
		return "done", nil
	})
	ts := httptest.NewServer(s)
	defer ts.Close()
	start := time.Now()
	var got string
	if err := NewClient(ts.URL+Path, ts.Client(), fastRetry).Call(context.Background(), "busy_once", nil, &got); err != nil || got != "done" {
		t.Fatalf("got %q, %v", got, err)
	}
	if el := time.Since(start); el < 80*time.Millisecond {
		t.Fatalf("retried after %s, before the peer's retry_after_ms of 80", el)
	}
}

func TestClientRateLimitedRetries(t *testing.T) {
	ts := httptest.NewServer(specServer(t, Options{RatePerSec: 50, Burst: 1}))
	defer ts.Close()
	c := NewClient(ts.URL+Path, ts.Client(), ClientOptions{MaxAttempts: 5, BaseBackoff: time.Millisecond})
	for i := range 3 {
		if err := c.Call(context.Background(), "get_data", nil, nil); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
}

func TestClientNotifyAndCallWithID(t *testing.T) {
	s := specServer(t, Options{})
	seen := make(chan string, 2)
	s.Handle("note", func(ctx context.Context, c *Call) (any, error) {
		seen <- string(c.ID) + "/" + string(c.Params)
		return "ok", nil
	})
	ts := httptest.NewServer(s)
	defer ts.Close()
	c := NewClient(ts.URL+Path, ts.Client(), ClientOptions{})
	if err := c.Notify(context.Background(), "note", map[string]int{"n": 1}); err != nil {
		t.Fatalf("notify: %v", err)
	}
	if got := <-seen; got != `/{"n":1}` {
		t.Fatalf("notification arrived as %q", got)
	}
	var res string
	if err := c.CallWithID(context.Background(), "outbox-42", "note", []int{1}, &res); err != nil || res != "ok" {
		t.Fatalf("call with id: %q %v", res, err)
	}
	if got := <-seen; got != `"outbox-42"/[1]` {
		t.Fatalf("call arrived as %q", got)
	}
	if err := c.Call(context.Background(), "note", "not structured", nil); err == nil {
		t.Fatal("params that are not an object or array must be refused before sending")
	}
}

func TestClientTimeoutIsNotRetried(t *testing.T) {
	s := specServer(t, Options{})
	var hits atomic.Int32
	release := make(chan struct{})
	s.Handle("slow", func(ctx context.Context, c *Call) (any, error) {
		hits.Add(1)
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		return nil, nil
	})
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer close(release)
	start := time.Now()
	err := NewClient(ts.URL+Path, ts.Client(), ClientOptions{Timeout: 100 * time.Millisecond}).Call(context.Background(), "slow", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second || hits.Load() != 1 {
		t.Fatalf("want one attempt ending in a deadline error, got %v after %s (%d attempts)", err, time.Since(start), hits.Load())
	}
	if !strings.Contains(err.Error(), "ran out of time") {
		t.Errorf("timeout error does not say what happened: %v", err)
	}
}

// TestEncodeRequestAsJSONMarshal: the hand-written envelope is what
// json.Marshal of the request object gives, for a call with a number id,
// one with a string id, a notification and a call without params.
func TestEncodeRequestAsJSONMarshal(t *testing.T) {
	type request struct {
		JSONRPC string          `json:"jsonrpc"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params,omitempty"`
		ID      json.RawMessage `json:"id,omitempty"`
	}
	params := map[string]any{"query": "認証は？ \"quoted\" <b>", "n": 1}
	for _, c := range []struct {
		id     json.RawMessage
		method string
		params any
	}{
		{json.RawMessage(`42`), "aoi.query", params},
		{json.RawMessage(`"n-01a2"`), "aoi.notify", params},
		{nil, "aoi.ping", []int{1, 2}},
		{json.RawMessage(`7`), "odd \"method\"\n", nil},
	} {
		got, err := encodeRequest(c.id, c.method, c.params)
		if err != nil {
			t.Fatal(err)
		}
		want := request{JSONRPC: "2.0", Method: c.method, ID: c.id}
		if c.params != nil {
			want.Params, _ = json.Marshal(c.params)
		}
		wantBytes, _ := json.Marshal(want)
		if string(got) != string(wantBytes) {
			t.Errorf("encodeRequest(%s, %q) = %s; want %s", c.id, c.method, got, wantBytes)
		}
	}
	if _, err := encodeRequest(json.RawMessage(`1`), "aoi.query", "a string"); err == nil {
		t.Error("params encoding to a string were accepted")
	}
}
