package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// records is what was logged, one decoded JSON object a line.
func (s *syncBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(s.b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// linesLike counts the records whose message holds sub.
func linesLike(recs []map[string]any, sub string) int {
	n := 0
	for _, r := range recs {
		if msg, _ := r["msg"].(string); strings.Contains(msg, sub) {
			n++
		}
	}
	return n
}

// TestErrorLogSummarisesFloods: of 100 handshake errors in a window, the
// first errorLogBurst are written and one line counts the other 97 when
// the window ends; another kind has its own allowance; after the window a
// line of the kind is written again.
func TestErrorLogSummarisesFloods(t *testing.T) {
	var buf syncBuffer
	el := newErrorLog(slog.New(slog.NewJSONHandler(&buf, nil)))
	el.window = 300 * time.Millisecond
	for i := range 100 {
		fmt.Fprintf(el, "http: TLS handshake error from 127.0.0.1:%d: EOF\n", 40000+i)
	}
	for i := range 5 {
		fmt.Fprintf(el, "http: TLS handshake error from [::1]:%d: tls: client didn't provide a certificate\n", 40000+i)
	}
	recs := buf.records(t)
	if n := linesLike(recs, ": EOF"); n != errorLogBurst {
		t.Fatalf("%d EOF lines written in the window, want %d", n, errorLogBurst)
	}
	if n := linesLike(recs, "didn't provide a certificate"); n != errorLogBurst {
		t.Fatalf("%d lines of another kind written, want %d (a kind of its own)", n, errorLogBurst)
	}
	if recs[0]["level"] != "WARN" {
		t.Fatalf("level %v, want WARN", recs[0]["level"])
	}
	// The window ends: one line each counts the rest.
	var counts map[string]float64
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		counts = map[string]float64{}
		for _, r := range buf.records(t) {
			if n, ok := r["suppressed"].(float64); ok {
				counts[r["kind"].(string)] += n
			}
		}
		if len(counts) == 2 || time.Now().After(end) {
			break
		}
	}
	if counts["http: TLS handshake error: EOF"] != 97 || counts["http: TLS handshake error: client didn't provide a certificate"] != 2 || len(counts) != 2 {
		t.Fatalf("counted %v, want 97 EOF and 2 without a certificate", counts)
	}
	// A new window: the kind is written again.
	before := linesLike(buf.records(t), ": EOF")
	fmt.Fprintf(el, "http: TLS handshake error from 127.0.0.1:1: EOF\n")
	if after := linesLike(buf.records(t), ": EOF"); after != before+1 {
		t.Fatalf("a line after the window was not written (%d → %d)", before, after)
	}
}

func TestErrorKindOf(t *testing.T) {
	for msg, want := range map[string]string{
		"http: TLS handshake error from 127.0.0.1:5555: EOF":                                                                  "http: TLS handshake error: EOF",
		"http: TLS handshake error from [::1]:5555: read tcp [::1]:8443->[::1]:5555: read: connection reset by peer":          "http: TLS handshake error: connection reset by peer",
		"http: TLS handshake error from 10.0.0.7:5555: tls: client didn't provide a certificate":                              "http: TLS handshake error: client didn't provide a certificate",
		"http: Accept error: accept tcp [::]:8443: accept4: too many open files; retrying in 5ms":                             "http: Accept error",
		"http: panic serving 10.0.0.7:5555: runtime error: index out of range [3] with length 3\ngoroutine 7 [running]:\n...": "http: panic serving",
		// The re-check filled the kinds table with ALPN names it made up.
		`http: TLS handshake error from 127.0.0.1:5555: tls: client requested unsupported application protocols (["xaab"])`: "http: TLS handshake error: client requested unsupported application protocols",
	} {
		if got := errorKindOf(msg); got != want {
			t.Errorf("errorKindOf(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestRefusedConnectionsDoNotFloodTheLog: the attack run's case over a
// real peer listener — 60 connections that close without a handshake
// write errorLogBurst "TLS handshake error" lines, not 60; the rest are
// counted for the line that ends the window.
func TestRefusedConnectionsDoNotFloodTheLog(t *testing.T) {
	var buf syncBuffer
	tr := NewDirectTransport(newIdentity(t, "eng-suzuki"), "127.0.0.1:0")
	ln, err := tr.Listen(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(specServer(t, Options{}), slog.New(slog.NewJSONHandler(&buf, nil)))
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	const conns = 60
	for range conns {
		c, err := net.DialTimeout("tcp", tr.Addr(), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	el, ok := srv.ErrorLog.Writer().(*errorLog)
	if !ok {
		n := 0
		for end := time.Now().Add(5 * time.Second); n < conns && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			n = linesLike(buf.records(t), "TLS handshake error")
		}
		t.Fatalf("%d handshake error lines written for %d failed handshakes (the error log writes to %T)", n, conns, srv.ErrorLog.Writer())
	}
	seen := func() (kinds map[string]*errorKind, written, suppressed int) {
		el.mu.Lock()
		defer el.mu.Unlock()
		kinds = map[string]*errorKind{}
		for name, k := range el.kinds {
			if strings.HasPrefix(name, "http: TLS handshake error") {
				kinds[name] = k
				written, suppressed = written+k.written, suppressed+k.suppressed
			}
		}
		return
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, w, s := seen(); w+s >= conns || time.Now().After(end) {
			break
		}
	}
	kinds, written, suppressed := seen()
	if n := linesLike(buf.records(t), "TLS handshake error"); n != written || n > errorLogBurst*len(kinds) || written+suppressed != conns {
		t.Fatalf("%d handshake error lines written for %d failed handshakes (%d counted as written, %d as not, kinds %d)", n, conns, written, suppressed, len(kinds))
	}
	for name, k := range kinds {
		el.count(name, k) // the window ends
	}
	counted := 0
	for _, r := range buf.records(t) {
		if n, ok := r["suppressed"].(float64); ok && strings.HasPrefix(r["kind"].(string), "http: TLS handshake error") {
			counted += int(n)
		}
	}
	if counted != suppressed {
		t.Fatalf("the lines ending the window count %d, want %d", counted, suppressed)
	}
}

// TestVitalErrorsAreNeverSummarised: a handler's panic and a listener
// that accepts no more connections are written every time, whatever came
// before (the re-check hid new kinds behind a full table).
func TestVitalErrorsAreNeverSummarised(t *testing.T) {
	var buf syncBuffer
	el := newErrorLog(slog.New(slog.NewJSONHandler(&buf, nil)))
	for range 2 * errorLogBurst {
		fmt.Fprintln(el, "http: Accept error: accept tcp [::]:8443: accept4: too many open files; retrying in 5ms")
		fmt.Fprintln(el, "http: panic serving 10.0.0.7:5555: runtime error: index out of range")
	}
	recs := buf.records(t)
	if n := linesLike(recs, "Accept error"); n != 2*errorLogBurst {
		t.Errorf("%d Accept error lines written, want all %d", n, 2*errorLogBurst)
	}
	if n := linesLike(recs, "panic serving"); n != 2*errorLogBurst {
		t.Errorf("%d panic lines written, want all %d", n, 2*errorLogBurst)
	}
}
