package rpc

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

// rawTLS dials the peer with id's certificate, without checking the
// server (an attacker's client), and returns the connection.
func rawTLS(t *testing.T, addr string, id *Identity) *tls.Conn {
	t.Helper()
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, &tls.Config{
		Certificates: []tls.Certificate{id.Certificate}, InsecureSkipVerify: true, MinVersion: tls.VersionTLS13,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestUnpinnedCallerRefusedBeforeItsBody sends what the attack run sent —
// a self-signed certificate, `Content-Length: 1048576`, 1,048,575 bytes and
// then nothing — and expects the refusal at once (not after the body) and
// the connection closed, so nothing waits on the missing byte.
func TestUnpinnedCallerRefusedBeforeItsBody(t *testing.T) {
	server, friend, stranger := newIdentity(t, "eng-suzuki"), newIdentity(t, "pm-tanaka"), newIdentity(t, "mallory")
	peer := startMTLSPeer(t, server, Options{
		MaxBodyBytes: 2 << 20,
		Authenticate: func(ctx context.Context, c Caller) (Caller, error) {
			if c.Fingerprint != friend.Fingerprint {
				return c, PermissionDenied("certificate is not pinned; pin it with `aoi peers trust`", nil)
			}
			return c, nil
		},
	})
	c := rawTLS(t, peer.tr.Addr(), stranger)
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n", Path)
	// The server answers without reading the body, so write the body
	// concurrently (it may block once buffers fill) and read the reply.
	go func() { _, _ = c.Write([]byte(strings.Repeat("x", 1048575))) }()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no response before the body was sent: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !resp.Close {
		t.Fatalf("status %d close=%v, want 403 and the connection closed", resp.StatusCode, resp.Close)
	}
	buf := make([]byte, 1)
	if _, err := c.Read(buf); err == nil {
		t.Fatal("the connection is still open after the refusal")
	}
}

// TestConnectionCaps: over a real TCP listener on loopback, connections
// beyond the per-source cap are closed at once while none under it can be
// closed for them (all completed their handshakes within unprovenGrace),
// and a slot comes back when a connection closes.
func TestConnectionCaps(t *testing.T) {
	raw, _, accepted := limitedLoopback(t, 10, 3)
	var held []net.Conn
	for range 3 {
		_, s := dialAccepted(t, raw, accepted)
		handshook(s)
		held = append(held, s)
	}
	var clients []net.Conn
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, c)
	}
	// The 4th and 5th were closed by the listener: reading them ends.
	for _, c := range clients {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err == nil || isTimeout(err) {
			t.Fatalf("a connection over the cap was not closed: %v", err)
		}
	}
	select {
	case c := <-accepted:
		t.Fatalf("a 4th connection from one source was handed out: %v", c.RemoteAddr())
	default:
	}
	held[0].Close()                // frees a slot
	dialAccepted(t, raw, accepted) // the next connection gets it
}

// TestInvalidUTF8IsReplaced: an id of "a\xffb" (the attack run's bytes)
// comes back as valid JSON with U+FFFD in place of the bad byte.
func TestInvalidUTF8IsReplaced(t *testing.T) {
	server, friend := newIdentity(t, "eng-suzuki"), newIdentity(t, "pm-tanaka")
	peer := startMTLSPeer(t, server, Options{})
	c := rawTLS(t, peer.tr.Addr(), friend)
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	body := "{\"jsonrpc\":\"2.0\",\"method\":\"whoami\",\"id\":\"a\xffb\"}"
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", Path, len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if !utf8.Valid(got) || !json.Valid(got) || !strings.Contains(string(got), "\"id\":\"a\uFFFDb\"") {
		t.Fatalf("response is not valid JSON with the id repaired: %q", got)
	}
}

// TestRefusalSummaries: within a window only the first refusal of a source
// is written; the next row after the window says how many it stands for.
func TestRefusalSummaries(t *testing.T) {
	var l refusalLog
	t0 := time.Unix(1000, 0)
	if w, n := l.note("10.0.0.1", t0); !w || n != 0 {
		t.Fatalf("first refusal: write=%v suppressed=%d", w, n)
	}
	for i := 1; i <= 5; i++ {
		if w, _ := l.note("10.0.0.1", t0.Add(time.Duration(i)*time.Second)); w {
			t.Fatalf("refusal %d inside the window was written", i)
		}
	}
	if w, _ := l.note("10.0.0.2", t0.Add(time.Second)); !w {
		t.Fatal("another source's first refusal was not written")
	}
	if w, n := l.note("10.0.0.1", t0.Add(refusalWindow+time.Second)); !w || n != 5 {
		t.Fatalf("after the window: write=%v suppressed=%d, want the 5 folded refusals counted", w, n)
	}
}

// TestRefusalWindowGrows: a caller refused every minute for a day (a
// refused peer's heartbeat) writes a row an hour once its window has grown,
// not 1,440, and the rows still count every refusal; after a quiet spell
// its window starts again at a minute.
func TestRefusalWindowGrows(t *testing.T) {
	var l refusalLog
	t0 := time.Unix(1000, 0)
	rows, counted := 0, 0
	const calls = 24 * 60
	for i := range calls {
		if w, n := l.note("10.0.0.1", t0.Add(time.Duration(i)*time.Minute+time.Second)); w {
			rows++
			counted += 1 + n
		}
	}
	if rows > 40 {
		t.Errorf("a day of refusals once a minute wrote %d rows; want the window to grow to an hour (about 30)", rows)
	}
	last := t0.Add(calls * time.Minute)
	if w, n := l.note("10.0.0.1", last.Add(2*time.Hour)); !w {
		t.Fatal("the first refusal after the last window was not written")
	} else if counted+n != calls {
		t.Errorf("rows counted %d refusals, want all %d", counted+n, calls)
	}
	quiet := last.Add(5 * time.Hour)
	if w, _ := l.note("10.0.0.1", quiet); !w {
		t.Fatal("a refusal after hours of quiet was not written")
	}
	if w, _ := l.note("10.0.0.1", quiet.Add(refusalWindow+time.Second)); !w {
		t.Error("after a quiet spell the window did not start again at a minute")
	}
}

// TestReplayAnsweredOnce: the same body posted three times by a pinned
// caller (the attack run re-ran an auto-approved task this way) runs the
// handler once and gets the first result each time; another id runs again.
func TestReplayAnsweredOnce(t *testing.T) {
	server, friend := newIdentity(t, "eng-suzuki"), newIdentity(t, "pm-tanaka")
	peer := startMTLSPeer(t, server, Options{Authenticate: func(ctx context.Context, c Caller) (Caller, error) {
		c.AgentID = "pm-tanaka"
		return c, nil
	}})
	post := func(id string) string {
		c := rawTLS(t, peer.tr.Addr(), friend)
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		body := `{"jsonrpc":"2.0","method":"whoami","params":{"task_type":"run_tests"},"id":"` + id + `"}`
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", Path, len(body), body)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	first := post("t-1")
	for i := 0; i < 2; i++ {
		if again := post("t-1"); again != first {
			t.Fatalf("replay answered differently:\n%s\n%s", first, again)
		}
	}
	if n := peer.calls.Load(); n != 1 {
		t.Fatalf("the handler ran %d times for one request id", n)
	}
	post("t-2")
	if n := peer.calls.Load(); n != 2 {
		t.Fatalf("a new id did not run (%d calls)", n)
	}
}

// TestMisdirectedRequestsDoNotHoldTheConnection: a request refused for its
// path, method or content type, declaring a body it never sends, is
// answered at once and its connection closed — the attack run held such
// connections open for minutes, up to the per-source cap.
func TestMisdirectedRequestsDoNotHoldTheConnection(t *testing.T) {
	server, stranger := newIdentity(t, "eng-suzuki"), newIdentity(t, "mallory")
	peer := startMTLSPeer(t, server, Options{})
	for _, req := range []string{
		"POST /zzz HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n",
		"PUT " + Path + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n",
		"POST " + Path + " HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n",
	} {
		c := rawTLS(t, peer.tr.Addr(), stranger)
		_ = c.SetDeadline(time.Now().Add(20 * time.Second))
		fmt.Fprintf(c, "%sContent-Length: 200000\r\n\r\n", req)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%q: no response: %v", req, err)
		}
		resp.Body.Close()
		buf := make([]byte, 1)
		_, err = c.Read(buf)
		var ne net.Error
		if err == nil || (errors.As(err, &ne) && ne.Timeout()) || !resp.Close {
			t.Fatalf("%q: status %d, the connection is still open after the reply (%v)", req, resp.StatusCode, err)
		}
	}
}

// TestLongIDRefusedBeforeAnythingRuns: an id longer than MaxIDBytes is an
// invalid request, answered with a null id, so a call whose id could not
// fit in its audit row never runs (the attack run cancelled a task with a
// 70,000-character id and was told it had failed).
func TestLongIDRefusedBeforeAnythingRuns(t *testing.T) {
	long := `"` + strings.Repeat("x", MaxIDBytes) + `"`
	element := func(id string) []byte { return []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"aoi.ping"}`) }
	r := decodeElement(element(long), "not an object")
	if r.err == nil || r.err.Code != CodeInvalidRequest || r.id != nil || r.method != "" {
		t.Fatalf("long id: err %v, id %d bytes, method %q; want an invalid request with no id and no method", r.err, len(r.id), r.method)
	}
	ok := decodeElement(element(`"`+strings.Repeat("x", MaxIDBytes-2)+`"`), "not an object")
	if ok.err != nil {
		t.Fatalf("an id of exactly %d bytes: %v", MaxIDBytes, ok.err)
	}
}

// TestFullListenerMakesRoomForPeers: the attack run's case — stalled
// connections from many addresses fill the listener; a new connection
// then takes the place of the oldest one no admitted caller has used,
// while a connection a caller let in has used (MarkProven) is kept.
func TestFullListenerMakesRoomForPeers(t *testing.T) {
	raw, ln, accepted := limitedLoopback(t, 3, 10)
	ln.grace = 0
	dial := func() (client, server net.Conn) { return dialAccepted(t, raw, accepted) }
	peer, peerSide := dial()
	MarkProven(peerSide, "pm")
	stalled, _ := dial()
	dial()
	dial() // the listener is full: the oldest unproven one (stalled) makes room
	_ = stalled.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := stalled.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Fatalf("the oldest stalled connection was not closed: %v", err)
	}
	_ = peer.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := peer.Read(make([]byte, 1)); !isTimeout(err) {
		t.Fatalf("the peer's proven connection was closed: %v", err)
	}
}

// TestStalledConnectionsFromOneSourceMakeRoom: the attack run's case —
// connections from one address that never speak fill its per-source cap;
// a pinned peer calling from that address (behind the same NAT, or on the
// same host) still gets in, in place of the oldest stalled one, and its
// proven connection is never the one closed.
func TestStalledConnectionsFromOneSourceMakeRoom(t *testing.T) {
	raw, ln, accepted := limitedLoopback(t, 100, 3)
	ln.grace = 0
	peer, peerSide := dialAccepted(t, raw, accepted)
	MarkProven(peerSide, "pm")
	stalled, _ := dialAccepted(t, raw, accepted)
	dialAccepted(t, raw, accepted)
	dialAccepted(t, raw, accepted) // over the cap: the oldest stalled one makes room
	_ = stalled.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := stalled.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Fatalf("the oldest stalled connection was not closed: %v", err)
	}
	_ = peer.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	if _, err := peer.Read(make([]byte, 1)); !isTimeout(err) {
		t.Fatalf("the peer's proven connection was closed: %v", err)
	}
}

// TestOneCallerCannotProveEverySlot: a pinned peer that opens and uses
// every slot keeps at most maxProvenPerCaller of them out of eviction, so
// another peer's new connection still gets in.
func TestOneCallerCannotProveEverySlot(t *testing.T) {
	const total = maxProvenPerCaller + 4
	raw, ln, accepted := limitedLoopback(t, total, 2*total)
	ln.grace = 0
	for range total {
		_, s := dialAccepted(t, raw, accepted)
		MarkProven(s, "mallory")
	}
	dialAccepted(t, raw, accepted) // with every slot used by one caller, another still gets in
}

// TestNeverHandshakingConnectionsMakeRoomWhateverTheirAge: the attack
// run's flood kept every slot younger than unprovenGrace, so nothing could
// be closed for a pinned peer's new connection. A connection that has not
// completed its TLS handshake now makes room however young it is (the
// oldest first), under the per-source cap and the total one, while one
// that completed its handshake is kept within unprovenGrace, and a proven
// one always.
func TestNeverHandshakingConnectionsMakeRoomWhateverTheirAge(t *testing.T) {
	for _, c := range []struct {
		name             string
		total, perSource int
	}{{"per source", 100, 4}, {"total", 4, 100}} {
		t.Run(c.name, func(t *testing.T) {
			raw, ln, accepted := limitedLoopback(t, c.total, c.perSource)
			if ln.grace != unprovenGrace {
				t.Fatalf("grace %v", ln.grace)
			}
			proven, provenSide := dialAccepted(t, raw, accepted)
			MarkProven(provenSide, "pm")
			shook, shookSide := dialAccepted(t, raw, accepted)
			handshook(shookSide)
			silent, _ := dialAccepted(t, raw, accepted)
			later, _ := dialAccepted(t, raw, accepted)
			dialAccepted(t, raw, accepted) // full: the oldest never-handshaking one (silent) makes room
			if !closedByServer(silent) {
				t.Fatal("the oldest connection that never started TLS was not closed for a new one")
			}
			if closedByServer(later) {
				t.Fatal("a younger never-handshaking connection was closed instead of the oldest")
			}
			for _, c := range []net.Conn{proven, shook} {
				if closedByServer(c) {
					t.Fatal("a connection that completed its handshake was closed for a stranger's")
				}
			}
		})
	}
}

// TestStrangersHandshakesMakeRoomAtOnce: the re-check filled one
// address's slots with connections that completed a handshake with
// self-made certificates and idled; each kept its 2 s grace, so a pinned
// peer from that address was closed on accept. A connection handshaken
// with a certificate nobody pinned now makes room at once (the oldest
// first), and a pinned peer's keeps its grace.
func TestStrangersHandshakesMakeRoomAtOnce(t *testing.T) {
	raw, _, accepted := limitedLoopback(t, 100, 3)
	pinned, pinnedSide := dialAccepted(t, raw, accepted)
	handshookAs(pinnedSide, false)
	first, firstSide := dialAccepted(t, raw, accepted)
	handshookAs(firstSide, true)
	second, secondSide := dialAccepted(t, raw, accepted)
	handshookAs(secondSide, true)
	dialAccepted(t, raw, accepted) // full: the oldest stranger makes room
	if !closedByServer(first) {
		t.Fatal("the oldest stranger's connection was not closed for a new one")
	}
	if closedByServer(second) || closedByServer(pinned) {
		t.Fatal("a younger stranger's or the pinned peer's connection was closed instead")
	}
}

// handshookAs marks c handshaken, with a certificate nobody pinned when
// stranger is set.
func handshookAs(c net.Conn, stranger bool) {
	lc := c.(*limitedConn)
	lc.owner.handshaken(lc, stranger)
}

// closedByServer reports whether c's server side was closed (reading c
// ends); a connection left open reports false after 200 ms.
func closedByServer(c net.Conn) bool {
	_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	_, err := c.Read(make([]byte, 1))
	return err != nil && !isTimeout(err)
}

// TestTrackHandshakes: a connection of a limited listener served with
// trackHandshakes(cfg) is marked once its TLS handshake (client
// certificate included) completes, and not before.
func TestTrackHandshakes(t *testing.T) {
	server, friend := newIdentity(t, "eng-suzuki"), newIdentity(t, "pm-tanaka")
	raw, ln, accepted := limitedLoopback(t, 10, 10)
	// Nobody is pinned: the friend's certificate marks its connection a
	// stranger's.
	cfg := trackHandshakes(NewDirectTransport(server, "").ServerTLSConfig(), func(fp string) bool { return fp != friend.Fingerprint })
	handshaken := func(s net.Conn) bool {
		ln.mu.Lock()
		defer ln.mu.Unlock()
		return !s.(*limitedConn).handshaken.IsZero()
	}
	type dialed struct {
		c   *tls.Conn
		err error
	}
	done := make(chan dialed, 1)
	var side net.Conn
	go func() {
		c, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", raw.Addr().String(), &tls.Config{
			Certificates: []tls.Certificate{friend.Certificate}, InsecureSkipVerify: true, MinVersion: tls.VersionTLS13,
		})
		done <- dialed{c, err}
	}()
	select {
	case side = <-accepted:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection was not accepted")
	}
	if handshaken(side) {
		t.Fatal("marked before its handshake")
	}
	sc := tls.Server(side, cfg)
	defer sc.Close()
	_ = sc.SetDeadline(time.Now().Add(5 * time.Second))
	if err := sc.Handshake(); err != nil {
		t.Fatal(err)
	}
	d := <-done
	if d.err != nil {
		t.Fatal(d.err)
	}
	defer d.c.Close()
	if !handshaken(side) {
		t.Fatal("a completed handshake was not marked")
	}
	ln.mu.Lock()
	stranger := side.(*limitedConn).stranger
	ln.mu.Unlock()
	if !stranger {
		t.Fatal("a certificate nobody pinned was not marked a stranger's")
	}
	silent, silentSide := dialAccepted(t, raw, accepted)
	silent.Write([]byte("GET / HTTP/1.1\r\n\r\n")) // not TLS
	_ = silentSide.SetDeadline(time.Now().Add(5 * time.Second))
	if err := tls.Server(silentSide, cfg).Handshake(); err == nil || handshaken(silentSide) {
		t.Fatalf("a failed handshake was marked (%v)", err)
	}
}

// handshook marks a connection the listener handed out as having
// completed its TLS handshake, as trackHandshakes does.
func handshook(c net.Conn) {
	lc := c.(*limitedConn)
	lc.owner.handshaken(lc, false)
}

// limitedLoopback listens on loopback behind LimitConnections(total,
// perSource) until the test ends and hands out what it accepts.
func limitedLoopback(t *testing.T, total, perSource int) (raw net.Listener, ln *limitListener, accepted <-chan net.Conn) {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln = LimitConnections(raw, total, perSource).(*limitListener)
	t.Cleanup(func() { ln.Close() })
	ch := make(chan net.Conn, 2*total+16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			ch <- c
		}
	}()
	return raw, ln, ch
}

// dialAccepted dials raw and waits for the listener to hand the
// connection out, failing the test when it does not within 5 s. Both ends
// are closed when the test ends, which also keeps the server's end
// reachable until then: a test that drops it would otherwise see the
// garbage collector's finalizer close it (CI once read EOF on a proven
// connection no eviction had touched).
func dialAccepted(t *testing.T, raw net.Listener, accepted <-chan net.Conn) (client, server net.Conn) {
	t.Helper()
	c, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	select {
	case s := <-accepted:
		t.Cleanup(func() { s.Close() })
		return c, s
	case <-time.After(5 * time.Second):
		t.Fatal("a connection was not accepted")
	}
	return nil, nil
}

// TestNewClientDoesNotReplayAnOldOne: a second client of the same caller
// (made after a restart) sending the same call gets a fresh answer, not
// the first client's from the replay cache: ids started at 1 in every
// client, so aoi doctor once read a ping's clock from minutes before and
// reported a skew of minutes between two agents on one machine.
func TestNewClientDoesNotReplayAnOldOne(t *testing.T) {
	server, friend := newIdentity(t, "eng-suzuki"), newIdentity(t, "pm-tanaka")
	peer := startMTLSPeer(t, server, Options{Authenticate: func(ctx context.Context, c Caller) (Caller, error) {
		c.AgentID = "pm-tanaka"
		return c, nil
	}})
	tr := NewDirectTransport(friend, "")
	for i := 1; i <= 2; i++ {
		c := NewClient(peer.url, tr.HTTPClient(server.Fingerprint), ClientOptions{MaxAttempts: 1})
		if err := c.Call(context.Background(), "whoami", map[string]any{"same": "params"}, nil); err != nil {
			t.Fatal(err)
		}
		if n := peer.calls.Load(); n != int32(i) {
			t.Fatalf("client %d's call was answered from the replay cache (%d handler runs)", i, n)
		}
	}
}

// TestBodyBytesBudget: a caller over its budget of request bytes is refused
// with RATE_LIMIT and a Retry-After before its body is sanitized or served
// (redaction costs CPU by the byte); another caller has its own budget.
func TestBodyBytesBudget(t *testing.T) {
	var sanitized atomic.Int64
	s := specServer(t, Options{MaxBodyBytes: 4096, BodyBytesPerSec: 100, SanitizeBody: func(b []byte) []byte {
		sanitized.Add(1)
		return b
	}, Identify: func(r *http.Request) (Caller, error) {
		return Caller{Kind: "test", Addr: r.RemoteAddr, Fingerprint: r.Header.Get("X-Test-From")}, nil
	}})
	ts := httptest.NewServer(s)
	defer ts.Close()
	pad := strings.Repeat("x", 2500)
	post := func(from string) (*http.Response, string) {
		body := `{"jsonrpc":"2.0","method":"subtract","params":{"minuend":3,"subtrahend":1,"pad":"` + pad + `"},"id":1}`
		req, _ := http.NewRequest(http.MethodPost, ts.URL+Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Test-From", from)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		got, _ := io.ReadAll(resp.Body)
		return resp, string(got)
	}
	if resp, got := post("a"); resp.StatusCode != http.StatusOK || !strings.Contains(got, `"result":2`) {
		t.Fatalf("first body: %d %s", resp.StatusCode, got)
	}
	resp, got := post("a")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(got, "request bytes a second") {
		t.Fatalf("second body within the second: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), got)
	}
	if n := sanitized.Load(); n != 1 {
		t.Fatalf("SanitizeBody ran %d times; the refused body must not reach it", n)
	}
	if resp, got := post("b"); resp.StatusCode != http.StatusOK {
		t.Fatalf("another caller's body: %d %s", resp.StatusCode, got)
	}
}

// TestDeclaredBodyIsNotAllocatedOnTheCallersWord: a pinned caller's
// connections each declare a body of the largest size the server takes
// and send one byte of it. The server allocated each body whole from its
// Content-Length before a byte of it came, so 32 such connections held
// 32 MiB for the 30 s a body may take (and a source may keep 64 open, the
// listener 512); a body is now read as it arrives.
func TestDeclaredBodyIsNotAllocatedOnTheCallersWord(t *testing.T) {
	server, friend := newIdentity(t, "eng-suzuki"), newIdentity(t, "pm-tanaka")
	var reading atomic.Int32
	peer := startMTLSPeer(t, server, Options{
		MaxBodyBytes: 1 << 20,
		Authenticate: func(ctx context.Context, c Caller) (Caller, error) {
			if c.Fingerprint != friend.Fingerprint {
				return c, PermissionDenied("not pinned", nil)
			}
			reading.Add(1) // the body is read next
			c.AgentID = "pm-tanaka"
			return c, nil
		},
	})
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	const conns = 32
	for range conns {
		c := rawTLS(t, peer.tr.Addr(), friend)
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", Path, 1<<20)
	}
	deadline := time.Now().Add(10 * time.Second)
	for reading.Load() < conns {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d requests reached the body", reading.Load(), conns)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // each handler is in its read now
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if grown := int64(ms.HeapAlloc) - int64(before); grown > 8<<20 {
		t.Fatalf("%d connections that declared 1 MiB bodies and sent a byte hold %d MiB of heap; want what they sent, not what they declared", conns, grown>>20)
	}
}
