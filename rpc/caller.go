package rpc

import (
	"context"
	"net"
	"net/http"
	"time"
)

// Caller kinds: how the transport authenticated the caller.
const (
	CallerTLS     = "tls"     // direct mode: mutual TLS, known by certificate fingerprint
	CallerTailnet = "tailnet" // tailnet mode: known by the tailnet's WhoIs answer
	CallerLocal   = "local"   // control socket: the owner (same uid, 0600 socket)
)

// Caller is who the transport says sent a request. It is filled by the
// transport before any handler runs and cannot be influenced by the body.
type Caller struct {
	Kind        string   `json:"kind"`
	Addr        string   `json:"addr"`
	Fingerprint string   `json:"fingerprint,omitempty"` // direct mode: SHA256 of the peer cert (hex)
	NodeID      string   `json:"node_id,omitempty"`     // tailnet mode
	NodeName    string   `json:"node_name,omitempty"`   // tailnet mode (FQDN)
	UserLogin   string   `json:"user_login,omitempty"`  // tailnet mode
	Tags        []string `json:"tags,omitempty"`        // tailnet mode
	// AgentID is set by the authenticator once the caller is mapped to a
	// registered agent (empty until then).
	AgentID string `json:"agent_id,omitempty"`
	// CertNotAfter is when the caller's certificate expires (direct mode).
	CertNotAfter time.Time `json:"cert_not_after,omitzero"`
	// AnnouncedID and AnnouncedEndpoint are what the caller claims in its
	// headers (announce.go): shown to the owner deciding a trust request,
	// never used as identity.
	AnnouncedID       string `json:"announced_id,omitempty"`
	AnnouncedEndpoint string `json:"announced_endpoint,omitempty"`

	// key is Key's value, kept by the server once the transport has
	// identified the caller: the peer path asks for it half a dozen times
	// a request (rate limit, replay cache, registry), each time building
	// the same string.
	key string
}

// Key identifies the caller for rate limiting and registry binding.
func (c Caller) Key() string {
	if c.key != "" {
		return c.key
	}
	return c.newKey()
}

// withKey is c keeping its Key, for a caller whose identity fields are
// final (the server's, after the transport identified it).
func (c Caller) withKey() Caller {
	c.key = c.newKey()
	return c
}

func (c Caller) newKey() string {
	switch {
	case c.Fingerprint != "":
		return "fp:" + c.Fingerprint
	case c.NodeID != "":
		return "node:" + c.NodeID
	default:
		return c.Kind + ":" + c.Addr
	}
}

// Source is where the caller's call came from, as limits and budgets per
// machine count it (a fresh connection or certificate is still the same
// machine): its IPv4 address, or the /64 its IPv6 address is in (one host
// is given a /64 and may use any address in it).
func (c Caller) Source() string { return SourceOf(hostOf(c.Addr)) }

// Transport is how the peer server listens and how the client dials: direct
// mutual TLS or a tsnet node. Both give the server a way to identify callers.
type Transport interface {
	// Listen returns the listener the peer server serves on.
	Listen(ctx context.Context) (net.Listener, error)
	// Identify returns the authenticated caller of an HTTP request that
	// arrived on that listener; an error means the request is refused.
	Identify(r *http.Request) (Caller, error)
	// HTTPClient returns a client that dials peers through this transport.
	// expectFingerprint pins the server certificate in direct mode ("" in
	// tailnet mode, where WireGuard authenticates the node).
	HTTPClient(expectFingerprint string) *http.Client
	// Close releases the transport (stops the tsnet node).
	Close() error
}

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller stored in ctx by the server.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
