package rpc

import (
	"crypto/x509"
	"fmt"
	"testing"
)

// TestFingerprintCacheNamesEachCertificate: each certificate gets its own
// fingerprint, asked once or many times, and the cache stays bounded
// however many certificates pass through it.
func TestFingerprintCacheNamesEachCertificate(t *testing.T) {
	var c fingerprintCache
	a := &x509.Certificate{Raw: []byte("certificate a")}
	b := &x509.Certificate{Raw: []byte("certificate b")}
	for range 3 {
		if got, want := c.of(a), Fingerprint(a.Raw); got != want {
			t.Fatalf("a: got %s, want %s", got, want)
		}
		if got, want := c.of(b), Fingerprint(b.Raw); got != want {
			t.Fatalf("b: got %s, want %s", got, want)
		}
	}
	for i := range 3 * maxCachedFingerprints {
		cert := &x509.Certificate{Raw: fmt.Appendf(nil, "certificate %d", i)}
		if got, want := c.of(cert), Fingerprint(cert.Raw); got != want {
			t.Fatalf("certificate %d: got %s, want %s", i, got, want)
		}
		if len(c.m) > maxCachedFingerprints {
			t.Fatalf("the cache holds %d entries, more than its bound %d", len(c.m), maxCachedFingerprints)
		}
	}
}
