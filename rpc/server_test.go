package rpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// auditLog collects audit records.
type auditLog struct {
	mu   sync.Mutex
	recs []CallRecord
	fail error
}

func (a *auditLog) hook(ctx context.Context, rec CallRecord) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.fail != nil {
		return a.fail
	}
	a.recs = append(a.recs, rec)
	return nil
}

func (a *auditLog) all() []CallRecord {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]CallRecord(nil), a.recs...)
}

// decodeError returns the error object of a single response.
func decodeError(t *testing.T, body []byte) *Error {
	t.Helper()
	var r struct {
		Error *Error `json:"error"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Error == nil {
		t.Fatalf("want an error response, got %q (%v)", body, err)
	}
	return r.Error
}

// TestHTTPRouting: a request that is no JSON-RPC call aoi serves (another
// path, another method, not JSON) is refused with its HTTP status and a
// JSON-RPC error saying what to send, and, from a caller let in, audited
// like any call (the attack re-check's GET, 404 and 415 left no row).
func TestHTTPRouting(t *testing.T) {
	audit := &auditLog{}
	ts := httptest.NewServer(specServer(t, Options{Audit: audit.hook}))
	defer ts.Close()
	tests := []struct {
		name, method, path, ctype string
		status                    int
	}{
		{"wrong path", http.MethodPost, "/other", "application/json", http.StatusNotFound},
		{"GET", http.MethodGet, Path, "", http.StatusMethodNotAllowed},
		{"text/plain", http.MethodPost, Path, "text/plain", http.StatusUnsupportedMediaType},
		{"no content type", http.MethodPost, Path, "", http.StatusUnsupportedMediaType},
		{"json with charset", http.MethodPost, Path, "application/json; charset=utf-8", http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, ts.URL+tt.path, strings.NewReader(`{"jsonrpc":"2.0","method":"get_data","id":1}`))
			if tt.ctype != "" {
				req.Header.Set("Content-Type", tt.ctype)
			}
			before := len(audit.all())
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if tt.status == http.StatusMethodNotAllowed && resp.Header.Get("Allow") != http.MethodPost {
				t.Errorf("Allow header %q, want POST", resp.Header.Get("Allow"))
			}
			if tt.status == http.StatusOK {
				return
			}
			if e := decodeError(t, body); e.Code != CodeInvalidRequest || !strings.Contains(e.Reason(), "POST") && !strings.Contains(e.Reason(), "application/json") {
				t.Errorf("error %+v does not say what to send", e)
			}
			recs := audit.all()[before:]
			if len(recs) != 1 || recs[0].Err == nil || recs[0].Err.Code != CodeInvalidRequest {
				t.Errorf("audit rows for the refusal: %+v, want one", recs)
			}
		})
	}
}

func TestBodyLimit(t *testing.T) {
	audit := &auditLog{}
	ts := httptest.NewServer(specServer(t, Options{MaxBodyBytes: 100, Audit: audit.hook}))
	defer ts.Close()
	big := `{"jsonrpc":"2.0","method":"sum","params":[` + strings.Repeat("1,", 100) + `1],"id":1}`
	t.Run("content length", func(t *testing.T) {
		resp, body := post(t, ts.URL+Path, big)
		checkTooLarge(t, resp.StatusCode, body)
	})
	t.Run("chunked", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+Path, struct{ *strings.Reader }{strings.NewReader(big)})
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		checkTooLarge(t, resp.StatusCode, buf.Bytes())
	})
	t.Run("under the limit", func(t *testing.T) {
		resp, _ := post(t, ts.URL+Path, `{"jsonrpc":"2.0","method":"sum","params":[1],"id":1}`)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
	})
	if recs := audit.all(); len(recs) != 3 || recs[0].Err == nil || recs[0].Err.Code != CodeInvalidRequest {
		t.Fatalf("want the refused bodies audited, got %+v", recs)
	}
}

func checkTooLarge(t *testing.T, status int, body []byte) {
	t.Helper()
	if status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", status)
	}
	e := decodeError(t, body)
	data, _ := e.Data.(map[string]any)
	if e.Code != CodeInvalidRequest || data["max_bytes"] != float64(100) || !strings.Contains(data["fix"].(string), "max_body_bytes") {
		t.Fatalf("error does not say the limit and the fix: %+v", e)
	}
}

func TestRateLimitHitThenRecovered(t *testing.T) {
	s := specServer(t, Options{RatePerSec: 20, Burst: 2})
	ts := httptest.NewServer(s)
	defer ts.Close()
	req := `{"jsonrpc":"2.0","method":"get_data","id":1}`
	for i := range 2 {
		if resp, body := post(t, ts.URL+Path, req); resp.StatusCode != http.StatusOK {
			t.Fatalf("call %d within burst: %d %s", i, resp.StatusCode, body)
		}
	}
	resp, body := post(t, ts.URL+Path, req)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("want 429 with Retry-After: 1, got %d %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	e := decodeError(t, body)
	wait := e.RetryAfter()
	if e.Code != CodeRateLimit || e.Message != "Rate limit exceeded" || wait <= 0 || wait > 100*time.Millisecond {
		t.Fatalf("want RATE_LIMIT with retry_after_ms in (0,100], got %+v", e)
	}
	time.Sleep(wait + 5*time.Millisecond)
	if resp, body := post(t, ts.URL+Path, req); resp.StatusCode != http.StatusOK {
		t.Fatalf("after waiting %s: %d %s", wait, resp.StatusCode, body)
	}
	s.SetRateLimit(0, 0)
	for i := range 10 {
		if resp, _ := post(t, ts.URL+Path, req); resp.StatusCode != http.StatusOK {
			t.Fatalf("limit disabled by SetRateLimit, call %d: %d", i, resp.StatusCode)
		}
	}
}

func TestRateLimitInBatch(t *testing.T) {
	s := specServer(t, Options{RatePerSec: 1, Burst: 2})
	resp, status := s.ServeRPC(context.Background(), []byte(`[
		{"jsonrpc":"2.0","method":"get_data","id":1},
		{"jsonrpc":"2.0","method":"get_data","id":2},
		{"jsonrpc":"2.0","method":"get_data","id":3}]`), Caller{Kind: "test", Addr: "a"})
	var rs []struct {
		Error *Error `json:"error"`
	}
	if err := json.Unmarshal(resp, &rs); err != nil || status != http.StatusOK || len(rs) != 3 {
		t.Fatalf("status %d body %s", status, resp)
	}
	if rs[0].Error != nil || rs[1].Error != nil || rs[2].Error == nil || rs[2].Error.Code != CodeRateLimit {
		t.Fatalf("want two results and one RATE_LIMIT, got %s", resp)
	}
	// Another caller has its own bucket.
	if _, status := s.ServeRPC(context.Background(), []byte(`{"jsonrpc":"2.0","method":"get_data","id":1}`), Caller{Kind: "test", Addr: "b"}); status != http.StatusOK {
		t.Fatalf("other caller limited: %d", status)
	}
}

func TestLimiterMapBounded(t *testing.T) {
	ls := newLimiterSet(1, 1, 3)
	now := time.Now()
	for i := range 10 {
		ls.allow("k"+strconv.Itoa(i), now.Add(time.Duration(i)*time.Millisecond))
	}
	if n := ls.size(); n != 3 {
		t.Fatalf("limiter map holds %d callers, want at most 3", n)
	}
}

func TestAuditHook(t *testing.T) {
	audit := &auditLog{}
	s := specServer(t, Options{Audit: audit.hook})
	s.Handle("self_audited", func(ctx context.Context, c *Call) (any, error) {
		c.MarkAudited()
		return "ok", nil
	})
	body := `[{"jsonrpc":"2.0","method":"sum","params":[1,2],"id":1},
		{"jsonrpc":"2.0","method":"update","params":[1]},
		{"jsonrpc":"2.0","method":"nope","id":2},
		{"jsonrpc":"2.0","method":"self_audited","id":3}]`
	s.ServeRPC(context.Background(), []byte(body), Caller{Kind: "test"})
	recs := audit.all()
	if len(recs) != 3 {
		t.Fatalf("want 3 audit records (self-audited one suppressed), got %d: %+v", len(recs), recs)
	}
	if recs[0].Method != "sum" || string(recs[0].ID) != "1" || recs[0].Result != 3.0 || recs[0].Err != nil {
		t.Errorf("success record wrong: %+v", recs[0])
	}
	if !recs[1].Notification || recs[1].Method != "update" {
		t.Errorf("notification record wrong: %+v", recs[1])
	}
	if recs[2].Err == nil || recs[2].Err.Code != CodeMethodNotFound {
		t.Errorf("refused call not audited with its error: %+v", recs[2])
	}

	audit.fail = errors.New("disk full")
	resp, _ := s.ServeRPC(context.Background(), []byte(`{"jsonrpc":"2.0","method":"sum","params":[1],"id":9}`), Caller{Kind: "test"})
	if e := decodeError(t, resp); e.Code != CodeInternalError || strings.Contains(string(resp), "disk full") {
		t.Fatalf("audit failure must turn the response into an internal error without internals: %s", resp)
	}
}

func TestInternalErrorsDoNotLeak(t *testing.T) {
	var logBuf bytes.Buffer
	s := specServer(t, Options{Logger: slog.New(slog.NewJSONHandler(&logBuf, nil))})
	s.Handle("fails", func(ctx context.Context, c *Call) (any, error) {
		return nil, errors.New("open /secret/db: permission denied")
	})
	s.Handle("panics", func(ctx context.Context, c *Call) (any, error) { panic("boom") })
	s.Handle("unencodable", func(ctx context.Context, c *Call) (any, error) { return func() {}, nil })
	for _, m := range []string{"fails", "panics", "unencodable"} {
		t.Run(m, func(t *testing.T) {
			logBuf.Reset()
			resp, _ := s.ServeRPC(context.Background(), []byte(`{"jsonrpc":"2.0","method":"`+m+`","id":1}`), Caller{Kind: "test"})
			e := decodeError(t, resp)
			ref, _ := e.Data.(map[string]any)["request_id"].(string)
			if e.Code != CodeInternalError || ref == "" || strings.Contains(string(resp), "secret") || strings.Contains(string(resp), "boom") {
				t.Fatalf("internal error leaked or lacks a request id: %s", resp)
			}
			if !strings.Contains(logBuf.String(), ref) {
				t.Fatalf("log does not carry request id %s: %s", ref, logBuf.String())
			}
		})
	}
}

func TestBindNamesTheField(t *testing.T) {
	tests := []struct {
		params, want string
	}{
		{`{"priority":5}`, "params.priority: want string, got number"},
		{`{"scope":"x"}`, "params.scope: want array, got string"},
		{`{"timeout":1.5}`, "params.timeout: want integer, got number 1.5"},
		{`{"async":"yes"}`, "params.async: want boolean, got string"},
		{`[1,2]`, "params: want object, got array"},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			var p struct {
				Priority string   `json:"priority"`
				Scope    []string `json:"scope"`
				Timeout  int      `json:"timeout"`
				Async    bool     `json:"async"`
			}
			c := &Call{Params: json.RawMessage(tt.params)}
			err := c.Bind(&p)
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeInvalidParams || e.Reason() != tt.want {
				t.Fatalf("got %v, want -32602 %q", err, tt.want)
			}
		})
	}
	var p struct{ A int }
	if err := (&Call{Params: json.RawMessage(`{"A":1,"unknown":true}`)}).Bind(&p); err != nil || p.A != 1 {
		t.Fatalf("unknown fields must be allowed: %v", err)
	}
}

func TestIdentifyAndAuthenticate(t *testing.T) {
	audit := &auditLog{}
	refuse := errors.New("no cert")
	s := specServer(t, Options{
		Identify: func(r *http.Request) (Caller, error) {
			if r.Header.Get("X-Test-Who") == "" {
				return Caller{}, refuse
			}
			return Caller{Kind: "test", Fingerprint: r.Header.Get("X-Test-Who")}, nil
		},
		Authenticate: func(ctx context.Context, c Caller) (Caller, error) {
			if c.Fingerprint != "pinned" {
				return c, PermissionDenied("certificate "+c.Fingerprint+" is not pinned; pin it with `aoi peers trust`", nil)
			}
			c.AgentID = "pm-tanaka"
			return c, nil
		},
		Audit: audit.hook,
	})
	s.Handle("whoami", func(ctx context.Context, c *Call) (any, error) {
		got, _ := CallerFrom(ctx)
		return got.AgentID, nil
	})
	ts := httptest.NewServer(s)
	defer ts.Close()
	send := func(who string) (int, []byte) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+Path, strings.NewReader(`{"jsonrpc":"2.0","method":"whoami","id":"w"}`))
		req.Header.Set("Content-Type", "application/json")
		if who != "" {
			req.Header.Set("X-Test-Who", who)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		return resp.StatusCode, buf.Bytes()
	}
	if status, body := send(""); status != http.StatusUnauthorized || decodeError(t, body).Code != CodePermissionDenied {
		t.Fatalf("unidentified: %d %s", status, body)
	}
	if status, body := send("stranger"); status != http.StatusForbidden || !strings.Contains(decodeError(t, body).Reason(), "aoi peers trust") {
		t.Fatalf("unpinned: %d %s", status, body)
	}
	if status, body := send("pinned"); status != http.StatusOK || !bytes.Contains(body, []byte(`"result":"pm-tanaka"`)) {
		t.Fatalf("pinned: %d %s", status, body)
	}
	recs := audit.all()
	// Refusals are audited without reading the body (no method), and as
	// one counted row per source address per minute: the stranger's
	// refusal from the same address is folded into the first one's window
	// (design §3: hostile input costs little).
	if len(recs) != 2 || recs[0].Err == nil || recs[0].Method != "" || recs[1].Caller.AgentID != "pm-tanaka" {
		t.Fatalf("want the first refusal and the pinned call audited: %+v", recs)
	}
}

func TestRefusedCallersAreRateLimited(t *testing.T) {
	audit := &auditLog{}
	s := specServer(t, Options{
		RatePerSec:   1,
		Burst:        1,
		Authenticate: func(ctx context.Context, c Caller) (Caller, error) { return c, PermissionDenied("not pinned", nil) },
		Audit:        audit.hook,
	})
	body := []byte(`{"jsonrpc":"2.0","method":"get_data","id":1}`)
	stranger := Caller{Kind: CallerTLS, Addr: "127.0.0.1:5000"}
	if resp, status := s.ServeRPC(context.Background(), body, stranger); status != http.StatusForbidden || decodeError(t, resp).Code != CodePermissionDenied {
		t.Fatalf("first call: %d %s", status, resp)
	}
	stranger.Addr = "127.0.0.1:5001" // a new connection from the same host
	if resp, status := s.ServeRPC(context.Background(), body, stranger); status != http.StatusTooManyRequests || decodeError(t, resp).Code != CodeRateLimit {
		t.Fatalf("second call: %d %s", status, resp)
	}
	if n := len(audit.all()); n != 2 {
		t.Fatalf("audited %d calls, want 2", n)
	}
}

func TestWholeRequestRefusalsAreRateLimited(t *testing.T) {
	s := specServer(t, Options{RatePerSec: 1, Burst: 1})
	caller := Caller{Kind: "test", Addr: "127.0.0.1:1"}
	if _, status := s.ServeRPC(context.Background(), []byte(`{bad`), caller); status != http.StatusOK {
		t.Fatalf("first parse error: status %d", status)
	}
	resp, status := s.ServeRPC(context.Background(), []byte(`{bad`), caller)
	if status != http.StatusTooManyRequests || decodeError(t, resp).Code != CodeRateLimit {
		t.Fatalf("second parse error within the limit: %d %s", status, resp)
	}
}

// TestRateLimitedRefusalsWriteOneRowAMinute: a known caller sending
// malformed requests past its rate left one audit row each (the re-check's
// 200 rows from 200 requests); past the rate it is one RATE_LIMIT row a
// minute that counts the rest, as for its calls.
func TestRateLimitedRefusalsWriteOneRowAMinute(t *testing.T) {
	audit := &auditLog{}
	s := specServer(t, Options{RatePerSec: 1, Burst: 1, Audit: audit.hook})
	caller := Caller{Kind: "test", AgentID: "pm", Addr: "127.0.0.1:1"}
	for range 50 {
		s.ServeRPC(context.Background(), []byte(`{bad`), caller)
	}
	limited := 0
	for _, r := range audit.all() {
		if r.Err != nil && r.Err.Code == CodeRateLimit {
			limited++
		}
	}
	if n := len(audit.all()); n > 3 || limited != 1 {
		t.Errorf("%d audit rows, %d of them RATE_LIMIT, for 50 malformed requests; want the first refusal and one RATE_LIMIT row", n, limited)
	}
}

// TestOptionsStarIsRefusedAndAudited: net/http answers "OPTIONS *" 200 by
// itself unless told not to; the peer server's http.Server lets the
// handler refuse and audit it like any request that is no call.
func TestOptionsStarIsRefusedAndAudited(t *testing.T) {
	audit := &auditLog{}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = NewHTTPServer(specServer(t, Options{Audit: audit.hook}), nil)
	ts.Start()
	defer ts.Close()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "OPTIONS * HTTP/1.1\r\nHost: aoi\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("OPTIONS * answered %d, want 404", resp.StatusCode)
	}
	if recs := audit.all(); len(recs) != 1 || recs[0].Err == nil {
		t.Errorf("audit rows %+v, want the refusal", recs)
	}
}
