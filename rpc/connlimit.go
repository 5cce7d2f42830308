package rpc

import (
	"net"
	"sync"
)

// Connection caps for the peer listener. Every connection costs a file
// descriptor and a goroutine before anyone is authenticated, so a caller
// that opens thousands (idle or stalled) must not exhaust the process:
// 20,400 idle connections once ran it out of descriptors.
const (
	DefaultMaxConns          = 512
	DefaultMaxConnsPerSource = 64
)

// LimitConnections wraps ln so at most total connections are open at once,
// and at most perSource from one IP address. A connection over either cap
// is closed as soon as it is accepted (the caller sees a reset, and
// retries later); accepting goes on, so one flooding source cannot stall
// the listener for others.
func LimitConnections(ln net.Listener, total, perSource int) net.Listener {
	if total <= 0 {
		total = DefaultMaxConns
	}
	if perSource <= 0 {
		perSource = DefaultMaxConnsPerSource
	}
	return &limitListener{Listener: ln, total: total, perSource: perSource, bySource: map[string]int{}}
}

type limitListener struct {
	net.Listener
	total, perSource int

	mu       sync.Mutex
	open     int
	bySource map[string]int
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		src := sourceOf(c.RemoteAddr())
		if l.admit(src) {
			return &limitedConn{Conn: c, release: func() { l.release(src) }}, nil
		}
		c.Close()
	}
}

func (l *limitListener) admit(src string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.total || l.bySource[src] >= l.perSource {
		return false
	}
	l.open++
	l.bySource[src]++
	return true
}

func (l *limitListener) release(src string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	if l.bySource[src]--; l.bySource[src] <= 0 {
		delete(l.bySource, src)
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
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
