package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
)

// TestPeersTableMarksAnExpiredCertificate: a pinned peer calling with a
// certificate that has expired is let in, and `aoi peers` (the table, not
// only --json and aoi doctor) marks its row and says under the table when
// it expired and what to do.
func TestPeersTableMarksAnExpiredCertificate(t *testing.T) {
	bin := buildAOI(t)
	eng := shortDir(t)
	initAgent(t, bin, eng, "eng-suzuki")
	engSt := startServeProc(t, bin, eng).waitServing(t, eng)
	old, notAfter := expiredIdentity(t, "pm-old")
	cli(t, bin, eng, "peers", "trust", "pm-old", old.Fingerprint)

	tr := rpc.NewDirectTransport(old, "127.0.0.1:0")
	t.Cleanup(func() { tr.Close() })
	c := rpc.NewClient("https://"+engSt.ListenAddr+rpc.Path, tr.HTTPClient(engSt.Fingerprint), rpc.ClientOptions{MaxAttempts: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Call(ctx, wire.MethodPing, wire.PingParams{From: "pm-old", AOIVersion: wire.ProtocolVersion}, nil); err != nil {
		t.Fatalf("pm-old's ping, expired but pinned: %v", err)
	}

	out := cli(t, bin, eng, "peers")
	if row := rowOf(out, "pm-old"); !strings.Contains(row, "pinned"+expiredMark) {
		t.Errorf("pm-old's row is not marked %q:\n%s", expiredMark, out)
	}
	want := expiredMark + " pm-old's certificate expired on " + notAfter.UTC().Format(time.DateOnly)
	if !strings.Contains(out, want) || !strings.Contains(out, "--replace") {
		t.Errorf("aoi peers does not say %q and how to replace it:\n%s", want, out)
	}
}

// expiredIdentity is a self-signed ed25519 identity for id whose
// certificate expired yesterday, and when it expired.
func expiredIdentity(t *testing.T, id string) (*rpc.Identity, time.Time) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	notAfter := time.Now().Add(-24 * time.Hour)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: id},
		NotBefore: notAfter.Add(-24 * time.Hour), NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	return &rpc.Identity{Certificate: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv}, Fingerprint: rpc.Fingerprint(der)}, notAfter
}
