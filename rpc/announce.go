package rpc

import (
	"net"
	"net/http"
	"regexp"
	"sync"
)

// A caller says who it is and where it listens in two request headers.
// They are claims, never identity: the certificate fingerprint is what is
// pinned. They let an owner trust a new caller from its trust request
// (which is refused before its body is read) without asking it for its id
// and address out of band; the owner compares the fingerprint.
const (
	HeaderAgent    = "X-Aoi-Agent"
	HeaderEndpoint = "X-Aoi-Endpoint"
)

var announcedIDRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// maxAnnouncedEndpoint bounds the endpoint header (host:port).
const maxAnnouncedEndpoint = 255

// announced reads the caller's claims from r, dropping any that are not
// well formed (a bad header is ignored, not refused: the request is judged
// by its certificate).
func announced(r *http.Request) (id, endpoint string) {
	if v := r.Header.Get(HeaderAgent); announcedIDRE.MatchString(v) {
		id = v
	}
	if v := r.Header.Get(HeaderEndpoint); validEndpoint(v) {
		endpoint = v
	}
	return id, endpoint
}

func validEndpoint(v string) bool {
	if v == "" || len(v) > maxAnnouncedEndpoint {
		return false
	}
	// Printable ASCII only: a host name or address needs nothing else,
	// and C1 controls or bidi marks would show one endpoint and store
	// another.
	for i := 0; i < len(v); i++ {
		if v[i] <= ' ' || v[i] >= 0x7f {
			return false
		}
	}
	host, port, err := net.SplitHostPort(v)
	return err == nil && host != "" && port != ""
}

// announcer adds the announce headers to every request it sends.
type announcer struct {
	next http.RoundTripper
	mu   *sync.Mutex
	id   *string
	ep   *string
}

func (a announcer) RoundTrip(r *http.Request) (*http.Response, error) {
	a.mu.Lock()
	id, ep := *a.id, *a.ep
	a.mu.Unlock()
	if id == "" && ep == "" {
		return a.next.RoundTrip(r)
	}
	r = r.Clone(r.Context()) // a RoundTripper must not change the caller's request
	if id != "" {
		r.Header.Set(HeaderAgent, id)
	}
	if ep != "" {
		r.Header.Set(HeaderEndpoint, ep)
	}
	return a.next.RoundTrip(r)
}
