package rpc

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Identity file names inside the identity directory.
const (
	CertFile = "cert.pem"
	KeyFile  = "key.pem"
)

// certValidity is how long a generated certificate is valid. Peers pin
// the fingerprint, so expiry only matters to tools that check it.
const certValidity = 10 * 365 * 24 * time.Hour

// Identity is an agent's TLS certificate and its fingerprint.
type Identity struct {
	Certificate tls.Certificate
	Fingerprint string // lowercase hex SHA-256 of the certificate's DER
}

// LoadOrCreateIdentity loads cert.pem and key.pem from dir, or makes a
// self-signed ed25519 certificate for commonName (the agent id) when
// neither exists. created reports a new identity.
func LoadOrCreateIdentity(dir, commonName string) (id *Identity, created bool, err error) {
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	certOK, keyOK := exists(certPath), exists(keyPath)
	switch {
	case certOK && keyOK:
		id, err := LoadIdentity(dir)
		return id, false, err
	case certOK != keyOK:
		return nil, false, fmt.Errorf("identity in %s is incomplete: only one of %s and %s exists; restore the missing file from a backup, or remove both to make a new identity (peers must then pin the new fingerprint)", dir, CertFile, KeyFile)
	}
	if commonName == "" {
		return nil, false, errors.New("cannot create an identity without an agent id; set agent.id in the config")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("creating identity directory: %w", err)
	}
	certPEM, keyPEM, err := newSelfSigned(commonName)
	if err != nil {
		return nil, false, err
	}
	if err := writeFileAtomic(keyPath, keyPEM, 0o600); err != nil {
		return nil, false, err
	}
	if err := writeFileAtomic(certPath, certPEM, 0o644); err != nil {
		return nil, false, err
	}
	id, err = LoadIdentity(dir)
	return id, err == nil, err
}

// LoadIdentity loads an existing identity from dir.
func LoadIdentity(dir string) (*Identity, error) {
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	if fi, err := os.Stat(keyPath); err == nil && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("private key %s is readable by other users (mode %#o); run: chmod 600 %s", keyPath, fi.Mode().Perm(), keyPath)
	}
	cert, err := tls.LoadX509KeyPair(certPath, keyPath)
	if err != nil {
		return nil, fmt.Errorf("loading the TLS identity from %s: %w (remove %s and %s to make a new one)", dir, err, CertFile, KeyFile)
	}
	return &Identity{Certificate: cert, Fingerprint: Fingerprint(cert.Certificate[0])}, nil
}

// newSelfSigned makes an ed25519 key and a certificate usable for both
// TLS server and client authentication.
func newSelfSigned(cn string) (certPEM, keyPEM []byte, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: cn, Organization: []string{"aoi"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"aoi-" + cn},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		return nil, nil, fmt.Errorf("creating certificate: %w", err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, err
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	return certPEM, keyPEM, nil
}

// Fingerprint returns the lowercase hex SHA-256 of a certificate's DER.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
}

// GroupFingerprint writes a fingerprint for people: 64 hex digits in eight
// groups of eight ("9c41d207 5be8aa13 …"), as the interface, `aoi id` and
// `aoi peers` show it and NormalizeFingerprint takes it back. Anything else
// is returned as it is.
func GroupFingerprint(fp string) string {
	if len(fp) != sha256.Size*2 || strings.Trim(fp, "0123456789abcdef") != "" {
		return fp
	}
	var b strings.Builder
	for i := 0; i < len(fp); i += 8 {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(fp[i : i+8])
	}
	return b.String()
}

// FormatFingerprint groups a fingerprint by four with colons: "ab12:cd34:…".
func FormatFingerprint(fp string) string {
	var b strings.Builder
	for i := 0; i < len(fp); i += 4 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(fp[i:min(i+4, len(fp))])
	}
	return b.String()
}

// NormalizeFingerprint accepts a fingerprint as a person may paste it
// (any case, grouped with ':', '-', spaces or line breaks as the Peers
// pane and FormatFingerprint show it, optional "sha256:" prefix) and
// returns the canonical lowercase hex form.
func NormalizeFingerprint(s string) (string, error) {
	t := strings.ToLower(strings.Join(strings.Fields(s), ""))
	t = strings.TrimPrefix(t, "sha256:")
	t = strings.NewReplacer(":", "", "-", "").Replace(t)
	if len(t) != sha256.Size*2 {
		return "", fmt.Errorf("fingerprint %q has %d hex digits, want 64 (a SHA-256); copy it from `aoi id` on the peer", s, len(t))
	}
	if _, err := hex.DecodeString(t); err != nil {
		return "", fmt.Errorf("fingerprint %q is not hexadecimal; copy it from `aoi id` on the peer", s)
	}
	return t, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// writeFileAtomic writes data with perm via a temporary file and rename,
// so a crash never leaves a half-written key.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
