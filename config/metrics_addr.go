package config

import (
	"fmt"
	"net"
	"net/netip"
)

// Tailscale gives tailnet nodes addresses in these ranges; traffic to them
// travels inside WireGuard, readable by the tailnet's nodes only.
var tailnetPrefixes = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("fd7a:115c:a1e0::/48"),
}

// CheckMetricsAddr refuses a metrics address that would answer more than
// this machine and the tailnet: /metrics is plain HTTP, so on a LAN or
// every interface (":9464", "0.0.0.0:9464") anyone on the network would
// read it and see its bearer token pass by.
func CheckMetricsAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%q is not an IP address; /metrics listens on a loopback or tailnet address only", host)
	}
	ip = ip.Unmap()
	if ip.IsLoopback() {
		return nil
	}
	for _, p := range tailnetPrefixes {
		if p.Contains(ip) {
			return nil
		}
	}
	if ip.IsUnspecified() {
		return fmt.Errorf("%s listens on every interface; /metrics listens on a loopback or tailnet address only", addr)
	}
	return fmt.Errorf("%s is neither loopback nor a tailnet address; /metrics listens on those only", addr)
}

// checkMetricsAddr is CheckMetricsAddr as a config error.
func checkMetricsAddr(addr string) Errors {
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil // empty (off), or the schema already said what is wrong
	}
	if err := CheckMetricsAddr(addr); err != nil {
		return Errors{{Path: "/metrics/listen_addr", Problem: err.Error(),
			Fix: "use 127.0.0.1:9464 (or your tailnet address, e.g. 100.x.y.z:9464); Prometheus elsewhere reaches it through the tailnet"}}
	}
	return nil
}
