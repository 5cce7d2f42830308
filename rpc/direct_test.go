package rpc

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// newIdentity makes an identity in a fresh directory.
func newIdentity(t testing.TB, cn string) *Identity {
	t.Helper()
	id, created, err := LoadOrCreateIdentity(filepath.Join(t.TempDir(), "identity"), cn)
	if err != nil || !created {
		t.Fatalf("LoadOrCreateIdentity: created=%v err=%v", created, err)
	}
	return id
}

// mtlsPeer is an aoi peer server over direct mTLS on 127.0.0.1.
type mtlsPeer struct {
	tr    *DirectTransport
	url   string
	calls atomic.Int32
}

func startMTLSPeer(t testing.TB, id *Identity, opts Options) *mtlsPeer {
	t.Helper()
	p := &mtlsPeer{tr: NewDirectTransport(id, "127.0.0.1:0")}
	opts.Identify = p.tr.Identify
	s := specServer(t, opts)
	s.Handle("whoami", func(ctx context.Context, c *Call) (any, error) {
		p.calls.Add(1)
		got, _ := CallerFrom(ctx)
		return got, nil
	})
	ln, err := p.tr.Listen(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer(s, slog.New(slog.DiscardHandler)) // handshake failures are expected here
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close(); p.tr.Close() })
	p.url = "https://" + p.tr.Addr() + Path
	return p
}

func TestIdentityFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "identity")
	id, created, err := LoadOrCreateIdentity(dir, "eng-suzuki")
	if err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	for name, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, KeyFile): 0o600} {
		if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %#o (%v)", name, fi.Mode().Perm(), want, err)
		}
	}
	leaf := id.Certificate.Leaf
	if leaf == nil || leaf.Subject.CommonName != "eng-suzuki" || leaf.PublicKeyAlgorithm.String() != "Ed25519" {
		t.Fatalf("certificate: %+v", leaf)
	}
	if years := leaf.NotAfter.Sub(leaf.NotBefore).Hours() / 24 / 365; years < 9.9 {
		t.Errorf("certificate valid %.1f years, want 10", years)
	}
	again, created, err := LoadOrCreateIdentity(dir, "eng-suzuki")
	if err != nil || created || again.Fingerprint != id.Fingerprint || len(id.Fingerprint) != 64 {
		t.Fatalf("reload: created=%v err=%v fp %s vs %s", created, err, again.Fingerprint, id.Fingerprint)
	}
	os.Remove(filepath.Join(dir, CertFile))
	if _, _, err := LoadOrCreateIdentity(dir, "eng-suzuki"); err == nil || !strings.Contains(err.Error(), "incomplete") {
		t.Fatalf("half an identity must not be overwritten: %v", err)
	}
}

func TestFingerprintFormats(t *testing.T) {
	fp := Fingerprint([]byte("x"))
	if got := FormatFingerprint(fp); len(got) != 64+15 || got[4] != ':' {
		t.Fatalf("FormatFingerprint = %q", got)
	}
	if got := GroupFingerprint(fp); got != fp[:8]+" "+fp[8:16]+" "+fp[16:24]+" "+fp[24:32]+" "+fp[32:40]+" "+fp[40:48]+" "+fp[48:56]+" "+fp[56:] {
		t.Errorf("GroupFingerprint = %q", got)
	}
	if got := GroupFingerprint("not-a-fingerprint"); got != "not-a-fingerprint" {
		t.Errorf("GroupFingerprint changed what is not a fingerprint: %q", got)
	}
	// As the Peers pane shows it: groups of 8 over several lines.
	paneForm := fp[:8] + " " + fp[8:16] + " " + fp[16:24] + "\n" + fp[24:32] + " " + fp[32:40] + " " + fp[40:48] + "\n" + fp[48:56] + " " + fp[56:]
	for _, in := range []string{fp, strings.ToUpper(FormatFingerprint(fp)), "SHA256:" + fp, paneForm, GroupFingerprint(fp)} {
		if got, err := NormalizeFingerprint(in); err != nil || got != fp {
			t.Errorf("NormalizeFingerprint(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := NormalizeFingerprint("abc"); err == nil {
		t.Error("a short fingerprint must be refused")
	}
}

func TestMTLS(t *testing.T) {
	server, client, stranger := newIdentity(t, "eng-suzuki"), newIdentity(t, "pm-tanaka"), newIdentity(t, "mallory")
	peer := startMTLSPeer(t, server, Options{})
	ct := NewDirectTransport(client, "127.0.0.1:0")
	defer ct.Close()

	t.Run("pinned client ok and server sees its fingerprint", func(t *testing.T) {
		var got Caller
		c := NewClient(peer.url, ct.HTTPClient(server.Fingerprint), ClientOptions{Peer: "eng-suzuki"})
		if err := c.Call(context.Background(), "whoami", nil, &got); err != nil {
			t.Fatalf("call: %v", err)
		}
		if got.Kind != CallerTLS || got.Fingerprint != client.Fingerprint || !strings.HasPrefix(got.Addr, "127.0.0.1:") {
			t.Fatalf("server saw %+v, want the client's fingerprint %s", got, client.Fingerprint)
		}
	})
	t.Run("pin accepts the human format", func(t *testing.T) {
		c := NewClient(peer.url, ct.HTTPClient(FormatFingerprint(server.Fingerprint)), ClientOptions{})
		if err := c.Call(context.Background(), "whoami", nil, nil); err != nil {
			t.Fatalf("call: %v", err)
		}
	})
	before := peer.calls.Load()
	t.Run("wrong server fingerprint refused by client", func(t *testing.T) {
		c := NewClient(peer.url, ct.HTTPClient(stranger.Fingerprint), ClientOptions{Peer: "eng-suzuki", BaseBackoff: 1})
		err := c.Call(context.Background(), "whoami", nil, nil)
		var te *TransportError
		if !errors.As(err, &te) || te.Attempts != 1 || !strings.Contains(err.Error(), server.Fingerprint) || !strings.Contains(err.Error(), "is pinned") {
			t.Fatalf("want a non-retried pin mismatch naming the presented fingerprint, got %v", err)
		}
	})
	t.Run("unpinned peer refused with advice", func(t *testing.T) {
		err := NewClient(peer.url, ct.HTTPClient(""), ClientOptions{BaseBackoff: 1}).Call(context.Background(), "whoami", nil, nil)
		if err == nil || !strings.Contains(err.Error(), "aoi peers trust") || !strings.Contains(err.Error(), server.Fingerprint) {
			t.Fatalf("want advice to pin %s, got %v", server.Fingerprint, err)
		}
	})
	t.Run("client without a certificate refused at handshake", func(t *testing.T) {
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS13}}}
		err := NewClient(peer.url, hc, ClientOptions{MaxAttempts: 1}).Call(context.Background(), "whoami", nil, nil)
		if err == nil || !strings.Contains(err.Error(), "certificate required") {
			t.Fatalf("want a handshake failure, got %v", err)
		}
	})
	t.Run("TLS 1.2 refused", func(t *testing.T) {
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{
			InsecureSkipVerify: true, MaxVersion: tls.VersionTLS12, Certificates: []tls.Certificate{client.Certificate},
		}}}
		if err := NewClient(peer.url, hc, ClientOptions{MaxAttempts: 1}).Call(context.Background(), "whoami", nil, nil); err == nil {
			t.Fatal("a TLS 1.2 client must be refused")
		}
	})
	if n := peer.calls.Load(); n != before {
		t.Fatalf("refused connections reached the handler %d times", n-before)
	}
}

// A caller whose bodies are costly to sanitise (text that sets off many
// of the redactor's rules costs twenty times what ordinary text does) is
// charged for the time, not only the bytes: within its budget of bytes,
// the attack pass's trusted peer kept a core busy with 8 KB queries of
// "key=key=…". Here each body takes 40 ms of CPU to sanitise: a second of that
// is four seconds of the budget, so a peer sending small bodies back to
// back over real mutual TLS is refused with RATE_LIMIT, and the bodies it
// got in keep SanitizeBody busy a quarter of the time at most.
func TestCostlySanitisingIsChargedToTheCaller(t *testing.T) {
	server, client := newIdentity(t, "eng-suzuki"), newIdentity(t, "pm-tanaka")
	var sanitised atomic.Int32
	peer := startMTLSPeer(t, server, Options{MaxBodyBytes: 16 << 10, BodyBytesPerSec: 128 << 10,
		SanitizeBody: func(b []byte) []byte {
			sanitised.Add(1)
			spinCPU(40 * time.Millisecond)
			return b
		}})
	ct := NewDirectTransport(client, "127.0.0.1:0")
	defer ct.Close()
	c := NewClient(peer.url, ct.HTTPClient(server.Fingerprint), ClientOptions{Peer: "eng-suzuki", MaxAttempts: 1})
	pad := strings.Repeat("key=", 256) // 1 KiB: 128 of them a second fit the bytes alone
	const sent = 20
	refused := 0
	start := time.Now()
	for range sent {
		err := c.Call(context.Background(), "whoami", map[string]string{"pad": pad}, nil)
		var e *Error
		if errors.As(err, &e) && e.Code == CodeRateLimit {
			refused++
		} else if err != nil {
			t.Fatalf("call: %v", err)
		}
	}
	// 40 ms × 128 KiB/s ÷ 0.25 ≈ 20 KiB charged a body: the caller is let
	// in about once each 160 ms, so SanitizeBody is busy a fifth of the
	// time at most (a quarter, plus the first body the bucket held).
	elapsed := time.Since(start)
	busy := time.Duration(sanitised.Load()) * 40 * time.Millisecond
	if refused == 0 || busy > elapsed/4+40*time.Millisecond {
		t.Fatalf("%d of %d costly bodies refused; SanitizeBody busy %v of %v; want at most a quarter", refused, sent, busy, elapsed)
	}
}

// spinCPU keeps the calling thread busy for d of its CPU time (of the
// time it takes where that cannot be read).
func spinCPU(d time.Duration) {
	start, ok := threadCPU()
	wall := time.Now()
	for n := 0; ; n++ {
		now, _ := threadCPU()
		if ok && now-start >= d || !ok && time.Since(wall) >= d {
			return
		}
	}
}

// A pinned peer that ignores Retry-After and sends again at once, on one
// connection, over real mutual TLS: its refusals are held until it could
// have been let in, so in a second it gets a handful, not thousands (the
// attack pass: about 4,300 refusals a second, 64% of a core).
func TestRateLimitedCallerIsHeldNotFlooded(t *testing.T) {
	server, client := newIdentity(t, "eng-suzuki"), newIdentity(t, "pm-tanaka")
	peer := startMTLSPeer(t, server, Options{RatePerSec: 2, Burst: 1})
	ct := NewDirectTransport(client, "127.0.0.1:0")
	defer ct.Close()
	hc := ct.HTTPClient(server.Fingerprint)
	body := `{"jsonrpc":"2.0","method":"whoami","id":1}`
	refused, answered := 0, 0
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		resp, err := hc.Post(peer.url, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") != "":
			refused++
		case resp.StatusCode == http.StatusOK:
			answered++
		default:
			t.Fatalf("%d %s", resp.StatusCode, got)
		}
	}
	if answered == 0 || refused > 10 {
		t.Fatalf("in a second: %d answered, %d refused; want the refusals held until the caller could be let in", answered, refused)
	}
}
