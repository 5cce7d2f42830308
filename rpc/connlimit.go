package rpc

import (
	"crypto/tls"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Connection caps for the peer listener. Every connection costs a file
// descriptor and a goroutine before anyone is authenticated, so a caller
// that opens thousands (idle or stalled) must not exhaust the process:
// 20,400 idle connections once ran it out of descriptors.
const (
	DefaultMaxConns          = 512
	DefaultMaxConnsPerSource = 64
)

// maxProvenPerCaller bounds the connections one admitted caller keeps out
// of eviction: a pinned peer with no rights could otherwise open and prove
// every slot (a real peer pools a handful).
const maxProvenPerCaller = 16

// unprovenGrace is how long a connection that completed its TLS handshake
// may go without a request from a caller let in before, with the listener
// full, a new connection may take its place: time enough for a real
// peer's headers after its handshake.
const unprovenGrace = 2 * time.Second

// LimitConnections wraps ln so at most total connections are open at once,
// and at most perSource from one source (SourceOf: an IPv4 address, an IPv6
// /64). When a cap is reached, a connection under it (from that source, for
// the per-source cap) that has not yet carried a request from a caller let
// in (MarkProven) is closed to make room: first the one that completed its
// TLS handshake first, over unprovenGrace ago, and sent no such request,
// else the oldest that has not completed its handshake, whatever its age. A
// flood of connections that never start TLS, from many addresses or from a
// pinned peer's own, so only shortens how long each of them lives: a new one
// from a real peer, which completes its handshake promptly, gets a slot, and
// once handshaken it is not closed for a stranger's new connection within
// unprovenGrace (nor ever, once it carried a request of a caller let in).
// With no such connection the new one is closed as soon as it is accepted
// (the caller sees a reset, and retries later); accepting goes on, so one
// flooding source cannot stall the listener for others.
//
// The handshake is seen through the TLS configuration: serve TLS over the
// returned listener with trackHandshakes(cfg).
func LimitConnections(ln net.Listener, total, perSource int) net.Listener {
	if total <= 0 {
		total = DefaultMaxConns
	}
	if perSource <= 0 {
		perSource = DefaultMaxConnsPerSource
	}
	return &limitListener{Listener: ln, total: total, perSource: perSource, grace: unprovenGrace,
		bySource: map[string]int{}, unproven: map[*limitedConn]struct{}{}, provenBy: map[string]int{}}
}

type limitListener struct {
	net.Listener
	total, perSource int
	grace            time.Duration // unprovenGrace (tests shorten it)

	mu       sync.Mutex
	open     int
	bySource map[string]int
	unproven map[*limitedConn]struct{} // open connections no request of a caller let in has used
	provenBy map[string]int            // proven connections per caller
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		src := sourceOf(c.RemoteAddr())
		if lc := l.admit(c, src); lc != nil {
			return lc, nil
		}
		c.Close()
	}
}

// admit takes c when the caps allow, making room by closing an unproven
// connection (victim): one from the same source when the per-source cap
// is in the way (stalled connections from one address, or from behind one
// NAT, must not lock out a pinned peer calling from there), any when the
// total cap is.
func (l *limitListener) admit(c net.Conn, src string) *limitedConn {
	l.mu.Lock()
	for _, full := range []struct {
		at   func() bool
		from string
	}{
		{func() bool { return l.bySource[src] >= l.perSource }, src},
		{func() bool { return l.open >= l.total }, ""},
	} {
		if !full.at() {
			continue
		}
		victim := l.victim(time.Now(), full.from)
		l.mu.Unlock()
		if victim == nil {
			return nil
		}
		victim.Close() // gives its slot back
		l.mu.Lock()
		if full.at() {
			l.mu.Unlock()
			return nil
		}
	}
	l.open++
	l.bySource[src]++
	lc := &limitedConn{Conn: c, owner: l, src: src, accepted: time.Now()}
	l.unproven[lc] = struct{}{}
	l.mu.Unlock()
	return lc
}

// victim is the unproven connection from src ("": any source) to close
// for a new one, or nil: the one that completed its handshake first, if
// that was before now-grace (it has had time to send a request and sent
// none), else the oldest that has not completed its handshake, whatever
// its age (a flood of connections that never start TLS keeps every one
// of them young).
// The caller holds mu.
func (l *limitListener) victim(now time.Time, src string) *limitedConn {
	cutoff := now.Add(-l.grace)
	var stalled, pending, stranger *limitedConn
	for c := range l.unproven {
		switch {
		case src != "" && c.src != src:
		case c.handshaken.IsZero():
			if pending == nil || c.accepted.Before(pending.accepted) {
				pending = c
			}
		case c.stranger:
			// A certificate nobody pinned (a trust request, or a flood
			// of self-made ones): no grace, oldest first.
			if stranger == nil || c.handshaken.Before(stranger.handshaken) {
				stranger = c
			}
		case c.handshaken.Before(cutoff):
			if stalled == nil || c.handshaken.Before(stalled.handshaken) {
				stalled = c
			}
		}
	}
	switch {
	case stalled != nil:
		return stalled
	case pending != nil:
		return pending
	}
	return stranger
}

// handshaken records that c completed its TLS handshake, and whether with
// a certificate nobody pinned: a pinned peer's connection is not closed
// for a new one within grace, a stranger's may be at once.
func (l *limitListener) handshaken(c *limitedConn, stranger bool) {
	l.mu.Lock()
	c.handshaken, c.stranger = time.Now(), stranger
	l.mu.Unlock()
}

// trackHandshakes returns a copy of cfg that tells a connection accepted
// by a LimitConnections listener when its TLS handshake completed (the
// client's certificate, if it must send one, verified), so a full
// listener closes connections still short of that first. Connections of
// other listeners are served as cfg would.
func trackHandshakes(cfg *tls.Config, pinned func(fingerprint string) bool) *tls.Config {
	base := cfg.Clone()
	out := cfg.Clone()
	out.GetConfigForClient = func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
		conf := base
		if base.GetConfigForClient != nil {
			c, err := base.GetConfigForClient(hello)
			if err != nil {
				return nil, err
			}
			if c != nil {
				conf = c
			}
		}
		lc, ok := hello.Conn.(*limitedConn)
		if !ok {
			return conf, nil
		}
		conf = conf.Clone()
		verify := conf.VerifyConnection
		conf.VerifyConnection = func(cs tls.ConnectionState) error {
			if verify != nil {
				if err := verify(cs); err != nil {
					return err
				}
			}
			stranger := false
			if pinned != nil && len(cs.PeerCertificates) > 0 {
				stranger = !pinned(Fingerprint(cs.PeerCertificates[0].Raw))
			}
			lc.owner.handshaken(lc, stranger)
			return nil
		}
		return conf, nil
	}
	return out
}

func (l *limitListener) release(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.unproven, c)
	if c.provenBy != "" {
		if l.provenBy[c.provenBy]--; l.provenBy[c.provenBy] <= 0 {
			delete(l.provenBy, c.provenBy)
		}
	}
	l.open--
	if l.bySource[c.src]--; l.bySource[c.src] <= 0 {
		delete(l.bySource, c.src)
	}
}

// prove takes c out of eviction for caller, unless the caller already
// holds maxProvenPerCaller proven connections (then c stays evictable).
func (l *limitListener) prove(c *limitedConn, caller string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.provenBy != "" || l.provenBy[caller] >= maxProvenPerCaller {
		return
	}
	if _, open := l.unproven[c]; !open {
		return // closed meanwhile
	}
	delete(l.unproven, c)
	c.provenBy = caller
	l.provenBy[caller]++
}

// MarkProven records that c carried a request from caller, who was let
// in, so a full listener does not close it to make room (up to
// maxProvenPerCaller connections a caller). c may be the *tls.Conn over a
// limited connection; other connections are left alone.
func MarkProven(c net.Conn, caller string) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if lc, ok := c.(*limitedConn); ok {
		lc.owner.prove(lc, caller)
	}
}

// sourceOf is the IP of an address (the whole address when it has no port).
// tailnetULA is the prefix Tailscale gives its nodes' IPv6 addresses.
var tailnetULA = netip.MustParsePrefix("fd7a:115c:a1e0::/48")

func sourceOf(a net.Addr) string {
	if a == nil {
		return ""
	}
	return SourceOf(hostOf(a.String()))
}

// SourceOf is the source a host address counts as for per-source limits:
// an IPv4 address itself (an IPv4-mapped IPv6 one as IPv4), an IPv6
// address's /64 written as a prefix ("2001:db8:1:2::/64"), since one host
// may hold every address of a /64 and rotate through them; anything that
// is no IP address as it is. A Tailscale address counts by itself: every
// node of a tailnet shares one /64, and each address is a node WireGuard
// vouched for.
func SourceOf(host string) string {
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	ip = ip.WithZone("").Unmap()
	if ip.Is4() || tailnetULA.Contains(ip) {
		return ip.String()
	}
	prefix, err := ip.Prefix(64)
	if err != nil {
		return host
	}
	return prefix.String()
}

// hostOf is the host of "host:port" (the whole string when it has no port).
func hostOf(hostport string) string {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return hostport
	}
	return host
}

// limitedConn gives its slot back exactly once, on the first Close.
type limitedConn struct {
	net.Conn
	owner      *limitListener
	src        string
	accepted   time.Time
	once       sync.Once
	provenBy   string    // the caller that proved it (guarded by owner.mu)
	handshaken time.Time // when its TLS handshake completed, or zero (guarded by owner.mu)
	stranger   bool      // handshaken with a certificate nobody pinned (guarded by owner.mu)
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.owner.release(c) })
	return err
}
