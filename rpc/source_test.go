package rpc

import (
	"net"
	"testing"
	"time"
)

// One host is given a /64 and may use every address in it: per-source
// limits (the connection cap per source, the audit row per stranger
// source, the trust-request budget) count an IPv6 caller by its /64, so
// rotating addresses buys nothing. IPv4 counts by address.
func TestSourceBucketsIPv6ByItsSlash64(t *testing.T) {
	for _, c := range []struct{ addr, want string }{
		{"[2001:db8:1:2::1]:4000", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff:ffff:ffff:fffe]:4001", "2001:db8:1:2::/64"},
		{"[2001:db8:1:3::1]:4000", "2001:db8:1:3::/64"},
		{"[fe80::1%eth0]:4000", "fe80::/64"},
		{"[fd7a:115c:a1e0:ab12:4843:cd96:6258:b240]:4000", "fd7a:115c:a1e0:ab12:4843:cd96:6258:b240"}, // a tailnet node
		{"[::ffff:192.0.2.7]:4000", "192.0.2.7"},
		{"192.0.2.7:4000", "192.0.2.7"},
		{"127.0.0.2:4000", "127.0.0.2"},
		{"not-an-ip", "not-an-ip"},
	} {
		if got := (Caller{Addr: c.addr}).Source(); got != c.want {
			t.Errorf("Caller{Addr: %q}.Source() = %q, want %q", c.addr, got, c.want)
		}
		if tcp, err := net.ResolveTCPAddr("tcp", c.addr); err == nil {
			if got := sourceOf(tcp); got != c.want {
				t.Errorf("the connection cap counts %s as %q, want %q", c.addr, got, c.want)
			}
		}
	}
}

// A stranger rotating through its /64 writes one refusal row a window,
// as one rotating ports does.
func TestStrangerRotatingIPv6AddressesIsOneRefusalSource(t *testing.T) {
	var log refusalLog
	now := time.Now()
	rows := 0
	for i := range 1000 {
		caller := Caller{Addr: net.JoinHostPort(net.IP{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 2, 0, 0, 0, 0, byte(i >> 8), byte(i), 0, 1}.String(), "4000")}
		if write, _ := log.note(caller.Source(), now); write {
			rows++
		}
	}
	if rows != 1 {
		t.Fatalf("%d refusal rows for 1,000 addresses of one /64, want 1", rows)
	}
}
