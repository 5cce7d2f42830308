package peers

import "testing"

// An announced endpoint is followed only on the host the call came from.
func TestSameHost(t *testing.T) {
	for _, c := range []struct {
		remote, endpoint string
		want             bool
	}{
		{"127.0.0.1:51234", "127.0.0.1:8443", true},
		{"[::1]:51234", "[::1]:9000", true},
		{"127.0.0.1:51234", "127.0.0.2:8443", false}, // another machine
		{"127.0.0.1:51234", "0.0.0.0:8443", false},   // a wildcard is no address
		{"127.0.0.1:51234", "intranet.example:8443", false},
		{"127.0.0.1:51234", "127.0.0.1", false},
	} {
		if got := sameHost(c.remote, c.endpoint); got != c.want {
			t.Errorf("sameHost(%q, %q) = %v, want %v", c.remote, c.endpoint, got, c.want)
		}
	}
}

// TestFollowEndpoint: a pinned peer's announced endpoint is followed on the
// calling host; pinned without one, it gets the calling host with the
// announced port, never the announced host (the attack run pointed a first
// announce at localhost:18459 from 127.0.0.1, which could as well have been
// a third machine).
func TestFollowEndpoint(t *testing.T) {
	for _, c := range []struct{ remote, announced, current, want string }{
		{"127.0.0.1:51234", "127.0.0.1:8443", "", "127.0.0.1:8443"},
		{"127.0.0.1:51234", "127.0.0.1:9443", "127.0.0.1:8443", "127.0.0.1:9443"}, // came back on another port
		{"127.0.0.1:51234", "localhost:18459", "", "127.0.0.1:18459"},
		{"127.0.0.1:51234", "intranet.example:8443", "", "127.0.0.1:8443"},
		{"127.0.0.1:51234", "0.0.0.0:8443", "", "127.0.0.1:8443"},
		{"[::1]:51234", "evil.example:9000", "", "[::1]:9000"},
		{"127.0.0.1:51234", "intranet.example:8443", "127.0.0.1:8443", "127.0.0.1:8443"}, // another host: not followed
		{"127.0.0.1:51234", "", "127.0.0.1:8443", "127.0.0.1:8443"},
		{"127.0.0.1:51234", "nonsense", "", ""},
		// The re-check's: a port that is not a number, controls and marks.
		{"127.0.0.1:51234", "127.0.0.1:18472\u0085\u200bX", "", ""},
		{"127.0.0.1:51234", "127.0.0.1:99999", "127.0.0.1:8443", "127.0.0.1:8443"},
		{"127.0.0.1:51234", "127.0.0.1:1847x/y?z", "", ""},
		{"127.0.0.1:51234", "127.0.0.1:", "", ""},
	} {
		if got := FollowEndpoint(c.remote, c.announced, c.current); got != c.want {
			t.Errorf("FollowEndpoint(%q, %q, %q) = %q, want %q", c.remote, c.announced, c.current, got, c.want)
		}
	}
}
