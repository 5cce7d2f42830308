package rpc

import (
	"crypto/tls"
	"net"
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

// unprovenGrace is how long a connection may go without a request from a
// caller let in before, with the listener full, a new connection may take
// its place: time enough for a real peer's handshake and headers.
const unprovenGrace = 2 * time.Second

// LimitConnections wraps ln so at most total connections are open at once,
// and at most perSource from one IP address. When a cap is reached, the
// oldest connection under it (from that address, for the per-source cap)
// that has not yet carried a request from a caller let in (MarkProven),
// and is older than unprovenGrace, is closed to make room: stalled
// connections cannot lock pinned peers out, from many addresses or from
// theirs. With no such connection the new one is closed as soon as it is
// accepted (the caller sees a reset, and retries later); accepting goes
// on, so one flooding source cannot stall the listener for others.
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

// admit takes c when the caps allow, making room by closing the oldest
// unproven connection: one from the same source when the per-source cap
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
		victim := l.oldestUnproven(time.Now().Add(-l.grace), full.from)
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

// oldestUnproven is the unproven connection accepted longest ago, before
// cutoff, from src ("": any source), or nil. The caller holds mu.
func (l *limitListener) oldestUnproven(cutoff time.Time, src string) *limitedConn {
	var oldest *limitedConn
	for c := range l.unproven {
		if (src == "" || c.src == src) && c.accepted.Before(cutoff) && (oldest == nil || c.accepted.Before(oldest.accepted)) {
			oldest = c
		}
	}
	return oldest
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
func sourceOf(a net.Addr) string {
	if a == nil {
		return ""
	}
	return hostOf(a.String())
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
	owner    *limitListener
	src      string
	accepted time.Time
	once     sync.Once
	provenBy string // the caller that proved it (guarded by owner.mu)
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.owner.release(c) })
	return err
}
