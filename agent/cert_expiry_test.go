package agent_test

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

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// expiredIdentity is a self-signed ed25519 identity whose certificate
// expired yesterday.
func expiredIdentity(t *testing.T) *rpc.Identity {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "pm-old"},
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: time.Now().Add(-24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	return &rpc.Identity{Certificate: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: priv}, Fingerprint: rpc.Fingerprint(der)}
}

// expiredPeerOf starts eng-suzuki with pm-old pinned, whose certificate
// has expired, and returns a ping from pm-old to it.
func expiredPeerOf(t *testing.T) (*testAgent, func() error) {
	t.Helper()
	eng := newTestAgent(t, "eng-suzuki", "engineer", engConfig)
	old := expiredIdentity(t)
	if err := eng.Trust(context.Background(), agent.TrustRequest{AgentID: "pm-old", Fingerprint: old.Fingerprint}); err != nil {
		t.Fatal(err)
	}
	tr := rpc.NewDirectTransport(old, "127.0.0.1:0")
	t.Cleanup(func() { tr.Close() })
	return eng, func() error {
		c := rpc.NewClient("https://"+eng.Addr()+rpc.Path, tr.HTTPClient(eng.Fingerprint()), rpc.ClientOptions{MaxAttempts: 1})
		return c.Call(context.Background(), wire.MethodPing, wire.PingParams{From: "pm-old", AOIVersion: wire.ProtocolVersion}, nil)
	}
}

// TestExpiredPinnedCertificate: a pinned peer presenting an expired
// certificate is let in but flagged (Peers, doctor); with
// network.refuse_expired_certs it is refused, saying why.
func TestExpiredPinnedCertificate(t *testing.T) {
	ctx := context.Background()
	eng, ping := expiredPeerOf(t)
	if err := ping(); err != nil {
		t.Fatalf("expired but pinned, refuse_expired_certs off: %v", err)
	}
	peers, _ := eng.Peers(ctx)
	flagged := false
	for _, p := range peers {
		flagged = flagged || (p.AgentID == "pm-old" && !p.CertExpiredAt.IsZero())
	}
	if !flagged {
		t.Fatalf("Peers does not flag pm-old's expired certificate: %+v", peers)
	}
	rep, err := eng.Doctor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, c := range rep.Checks {
		warned = warned || (c.Name == "certificate of pm-old" && c.Status == agent.CheckWarn)
	}
	if !warned {
		t.Fatalf("doctor does not warn about pm-old's certificate: %+v", rep.Checks)
	}

	eng.Restart(func(c *config.Config) { c.Network.RefuseExpiredCerts = true })
	if err := ping(); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("with refuse_expired_certs the expired certificate must be refused: %v", err)
	}
}

// TestDoctorOnAnExpiredCertificateAfterAReload: once a reload sets
// network.refuse_expired_certs, aoi doctor says the expired peer is
// refused and how to let it back in (a new identity, pinned with
// --replace), no longer that it is let in or that the setting would
// refuse it.
func TestDoctorOnAnExpiredCertificateAfterAReload(t *testing.T) {
	ctx := context.Background()
	eng, ping := expiredPeerOf(t)
	if err := ping(); err != nil {
		t.Fatalf("expired but pinned, refuse_expired_certs off: %v", err)
	}
	if got := certCheck(t, eng.Core, "pm-old"); !strings.Contains(got.Detail, "still let in") || !strings.Contains(got.Fix, "set network.refuse_expired_certs") {
		t.Fatalf("before the reload doctor says %+v, want it let in and the setting that refuses it", got)
	}
	cfg, err := config.Load(eng.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Network.RefuseExpiredCerts = true
	if err := config.Write(eng.ConfigPath, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	got := certCheck(t, eng.Core, "pm-old")
	if !strings.Contains(got.Detail, "refused") || strings.Contains(got.Detail, "let in") || strings.Contains(got.Fix, "set network.refuse_expired_certs") ||
		!strings.Contains(got.Fix, "aoi peers trust pm-old FINGERPRINT --replace") {
		t.Errorf("after the reload doctor says %+v, want pm-old refused and the fix a new identity pinned with --replace", got)
	}
}

// certCheck is aoi doctor's check of a peer's certificate.
func certCheck(t *testing.T, core *agent.Core, peer string) agent.DoctorCheck {
	t.Helper()
	rep, err := core.Doctor(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if c.Name == "certificate of "+peer {
			return c
		}
	}
	t.Fatalf("doctor has no check of %s's certificate: %+v", peer, rep.Checks)
	return agent.DoctorCheck{}
}
