package rpc

import (
	"crypto/x509"
	"sync"
)

// maxCachedFingerprints bounds fingerprintCache: past it the cache starts
// over (one hash per open connection again), so closed connections'
// certificates are not kept for ever.
const maxCachedFingerprints = 1024

// fingerprintCache remembers the fingerprints of the client certificates
// it was asked about. Every request on a connection presents the same
// parsed *x509.Certificate, and hashing its DER (SHA-256) for every
// request was about 0.6% of aoi bench's CPU. The key is the certificate
// itself: the cache holds it, so its address cannot be reused for another
// certificate while the entry lives, and a parsed certificate's Raw is
// never changed.
type fingerprintCache struct {
	mu sync.Mutex
	m  map[*x509.Certificate]string
}

func (c *fingerprintCache) of(cert *x509.Certificate) string {
	c.mu.Lock()
	fp, ok := c.m[cert]
	c.mu.Unlock()
	if ok {
		return fp
	}
	fp = Fingerprint(cert.Raw)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedFingerprints {
		c.m = make(map[*x509.Certificate]string)
	}
	c.m[cert] = fp
	c.mu.Unlock()
	return fp
}
