package rpc

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// DirectTransport is direct mode (design §4): mutual TLS 1.3 where each
// side presents its self-signed ed25519 certificate and peers are known
// by pinned certificate fingerprints. It verifies no CA chain: the agent
// layer maps the caller's fingerprint to a pinned peer, and the client
// side refuses any server whose fingerprint is not the pinned one.
type DirectTransport struct {
	id         *Identity
	listenAddr string

	mu      sync.Mutex
	addr    string
	clients map[string]*http.Client
	// announceID and announceEndpoint go out in every request's headers
	// (announce.go); SetAnnounce sets them once the listener is up.
	announceID, announceEndpoint string
	// pinned tells the listener which certificates are pinned peers'
	// (SetPinned), so a full listener closes a stranger's first.
	pinned func(fingerprint string) bool
	// fingerprints saves Identify hashing a connection's certificate
	// again for each of its requests.
	fingerprints fingerprintCache
}

// SetPinned gives the listener a way to tell a pinned peer's certificate
// from a stranger's at the handshake: with its connection caps full, a
// stranger's idle connection makes room at once, so a flood of
// connections with self-made certificates cannot lock a pinned peer out.
// Call it before Listen.
func (t *DirectTransport) SetPinned(pinned func(fingerprint string) bool) {
	t.mu.Lock()
	t.pinned = pinned
	t.mu.Unlock()
}

// SetAnnounce sets the agent id and listen endpoint this agent claims in
// the headers of its requests, so a peer that has not pinned it yet can
// show who asks to be trusted and where to call it back.
func (t *DirectTransport) SetAnnounce(agentID, endpoint string) {
	t.mu.Lock()
	t.announceID, t.announceEndpoint = agentID, endpoint
	t.mu.Unlock()
}

var _ Transport = (*DirectTransport)(nil)

// DefaultListenAddr is where the peer server listens unless configured:
// loopback only, the design's default port.
const DefaultListenAddr = "127.0.0.1:8443"

// NewDirectTransport returns a transport that listens on listenAddr
// (host:port; port 0 picks a free one; "" means DefaultListenAddr) with
// identity id.
func NewDirectTransport(id *Identity, listenAddr string) *DirectTransport {
	if listenAddr == "" {
		listenAddr = DefaultListenAddr
	}
	return &DirectTransport{id: id, listenAddr: listenAddr, clients: make(map[string]*http.Client)}
}

// Fingerprint returns this side's certificate fingerprint.
func (t *DirectTransport) Fingerprint() string { return t.id.Fingerprint }

// Addr returns the address bound by Listen ("" before).
func (t *DirectTransport) Addr() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.addr
}

// ServerTLSConfig is the listener's TLS configuration: TLS 1.3 only, a
// client certificate required but verified by the caller (by fingerprint).
func (t *DirectTransport) ServerTLSConfig() *tls.Config {
	return &tls.Config{
		MinVersion:   tls.VersionTLS13,
		Certificates: []tls.Certificate{t.id.Certificate},
		ClientAuth:   tls.RequireAnyClientCert,
		NextProtos:   []string{"http/1.1"},
	}
}

// listenAdvice says what to do about a listen error: the port is taken,
// the address is not one of this machine's, or (otherwise) the address.
func listenAdvice(err error) string {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return "is another aoi (or another program) already using that port? change network.listen_addr"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return "that address is not one of this machine's; use 127.0.0.1, 0.0.0.0 or an address of this machine in network.listen_addr"
	case errors.Is(err, syscall.EACCES):
		return "ports below 1024 need privileges; use a higher port in network.listen_addr"
	}
	return "check network.listen_addr (HOST:PORT, e.g. 127.0.0.1:8443)"
}

// Listen binds the TCP address and wraps it in TLS.
func (t *DirectTransport) Listen(ctx context.Context) (net.Listener, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", t.listenAddr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w; %s", t.listenAddr, err, listenAdvice(err))
	}
	t.mu.Lock()
	t.addr = ln.Addr().String()
	t.mu.Unlock()
	// Capped below TLS, so a connection over the cap costs no handshake;
	// the cap learns which connections completed theirs.
	t.mu.Lock()
	pinned := t.pinned
	t.mu.Unlock()
	return tls.NewListener(LimitConnections(ln, 0, 0), trackHandshakes(t.ServerTLSConfig(), pinned)), nil
}

// Identify returns the caller known by its client certificate.
func (t *DirectTransport) Identify(r *http.Request) (Caller, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return Caller{}, errors.New("no client certificate was presented; connect with the aoi client, which presents the agent's certificate")
	}
	cert := r.TLS.PeerCertificates[0]
	id, ep := announced(r)
	return Caller{Kind: CallerTLS, Fingerprint: t.fingerprints.of(cert), Addr: r.RemoteAddr, CertNotAfter: cert.NotAfter,
		AnnouncedID: id, AnnouncedEndpoint: ep}, nil
}

// HTTPClient returns a client that presents this agent's certificate and
// accepts only a server whose certificate fingerprint is
// expectFingerprint. With "" it refuses every server, saying which
// fingerprint was presented so the user can pin it. Clients are cached
// per fingerprint so connections are reused.
func (t *DirectTransport) HTTPClient(expectFingerprint string) *http.Client {
	if fp, err := NormalizeFingerprint(expectFingerprint); err == nil {
		expectFingerprint = fp
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.clients[expectFingerprint]; c != nil {
		return c
	}
	c := &http.Client{
		Transport: announcer{next: t.newRoundTripper(expectFingerprint), mu: &t.mu, id: &t.announceID, ep: &t.announceEndpoint},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
	t.clients[expectFingerprint] = c
	return c
}

func (t *DirectTransport) newRoundTripper(expect string) *http.Transport {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		DialContext: dialer.DialContext,
		TLSClientConfig: &tls.Config{
			MinVersion:   tls.VersionTLS13,
			Certificates: []tls.Certificate{t.id.Certificate},
			// The chain is not checked against CAs: the pin below is the check.
			InsecureSkipVerify: true,
			VerifyConnection:   pinVerifier(expect),
			NextProtos:         []string{"http/1.1"},
		},
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConns:        128,
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     90 * time.Second,
	}
}

// pinVerifier accepts only a server certificate whose fingerprint is expect.
func pinVerifier(expect string) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return errors.New("the server presented no certificate")
		}
		got := Fingerprint(cs.PeerCertificates[0].Raw)
		if expect == "" {
			return fmt.Errorf("peer %s is not pinned (it presented fingerprint %s); if that is the peer you expect, pin it with `aoi peers trust <agent-id> %s` or set peers[].fingerprint in the config", cs.ServerName, got, got)
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(expect)) != 1 {
			return fmt.Errorf("peer %s presented fingerprint %s but %s is pinned; refusing to connect (another process is answering there, or the peer made a new identity: re-pin it with `aoi peers trust ID FINGERPRINT --replace` only if its owner confirms the new fingerprint)", cs.ServerName, got, expect)
		}
		return nil
	}
}

// Close drops the idle client connections.
func (t *DirectTransport) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range t.clients {
		c.CloseIdleConnections()
	}
	return nil
}
