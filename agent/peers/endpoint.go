package peers

import (
	"net"

	"github.com/aoi-protocol/aoi/agent/wire"
)

// FollowEndpoint is where a peer that called from remoteAddr and announced
// endpoint is called back, given where it was called so far (current). An
// endpoint on the calling host is followed. A peer pinned without one,
// and a trust request, get the calling host with the announced port:
// taking the announced host too would let a caller point this agent's
// heartbeats and deliveries at a third machine. An endpoint that is not
// HOST:PORT in printable ASCII is ignored. Otherwise nothing changes.
func FollowEndpoint(remoteAddr, endpoint, current string) string {
	switch {
	case endpoint == "" || !wire.ValidEndpoint(endpoint) || !printableASCII(endpoint):
		return current
	case sameHost(remoteAddr, endpoint):
		return endpoint
	case current != "":
		return current
	}
	host, _, err1 := net.SplitHostPort(remoteAddr)
	_, port, err2 := net.SplitHostPort(endpoint)
	if err1 != nil || err2 != nil || net.ParseIP(host) == nil {
		return current
	}
	return net.JoinHostPort(host, port)
}

// sameHost reports whether an announced endpoint is on the host the call
// came from. A pinned peer (known by its certificate) that comes back on
// another port is then called there; an announce naming another host is
// not followed, so a peer cannot point this agent at a third machine.
func sameHost(remoteAddr, endpoint string) bool {
	rh, _, err1 := net.SplitHostPort(remoteAddr)
	eh, _, err2 := net.SplitHostPort(endpoint)
	if err1 != nil || err2 != nil {
		return false
	}
	ra, ea := net.ParseIP(rh), net.ParseIP(eh)
	return ra != nil && ea != nil && ra.Equal(ea)
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
