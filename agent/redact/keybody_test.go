package redact

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	mrand "math/rand/v2"
	"strings"
	"testing"
	"time"
)

// testKeyPair makes a real key and a certificate for it, PEM-encoded: the
// private key, the certificate and the public key.
func testKeyPair(t *testing.T) (key, cert, pub string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "eng-suzuki.example.com"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(typ string, b []byte) string { return string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b})) }
	return enc("PRIVATE KEY", keyDER), enc("CERTIFICATE", der), enc("PUBLIC KEY", pubDER)
}

// pemBodyLines is a PEM block's base64 lines, without BEGIN and END.
func pemBodyLines(block string) []string {
	lines := strings.Split(strings.TrimSpace(block), "\n")
	return lines[1 : len(lines)-1]
}

// TestKeyBodyOfACertificateOrPublicKeyStays: a certificate's or a public
// key's body, under its BEGIN line or without one (an XML signature's
// X509Certificate, a pasted block), and an encrypted message's are no
// private key; a private key's body lines alone, also after a
// certificate's END line, and an encrypted key's still go.
func TestKeyBodyOfACertificateOrPublicKeyStays(t *testing.T) {
	r := newRedactor(t)
	key, cert, pub := testKeyPair(t)
	certBody := strings.Join(pemBodyLines(cert), "\n")
	keepsAll(t, r, []string{
		cert,
		pub,
		"+" + strings.ReplaceAll(strings.TrimSpace(cert), "\n", "\n+"),
		"const ca = `" + cert + "`",
		"<ds:X509Data>\n<ds:X509Certificate>" + certBody + "</ds:X509Certificate>\n</ds:X509Data>",
		certBody,
		strings.Join(pemBodyLines(pub), "\n"),
		"-----BEGIN PGP MESSAGE-----\n\nhQGMA3muqimBu2IIAQwAkhR19/6roLq06oaD12vqDMes3/8FweAHxa6TLKg+LRjp\n-----END PGP MESSAGE-----",
	})
	keyLines := pemBodyLines(key)
	for _, in := range []string{
		"secrets/tls.key:2:" + keyLines[0] + "\nsecrets/tls.key:3:" + keyLines[1],
		strings.Join(keyLines, "\n"),
		cert + "secrets/tls.key:2:" + keyLines[0] + "\nsecrets/tls.key:3:" + keyLines[1],
		cert + key,
	} {
		if out, f := r.Redact(in); strings.Contains(out, keyLines[0][20:50]) || strings.Contains(out, keyLines[1][20:50]) || len(f) == 0 {
			t.Errorf("a private key's body kept:\n%s", out)
		}
	}
	// An encrypted PKCS #8 key opens as a certificate does (a SEQUENCE in
	// a SEQUENCE); its PBES2 identifier tells it apart.
	encrypted := append([]byte{0x30, 0x82, 0x01, 0x00, 0x30, 0x4e, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05, 0x0d}, randomBytes(t, 40)...)
	line := base64.StdEncoding.EncodeToString(encrypted)[:64]
	if out, f := r.Redact("backup/key.p8:2:" + line); strings.Contains(out, line[20:50]) || len(f) == 0 {
		t.Errorf("an encrypted key's first line kept: %q", out)
	}
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestKeyBodyIsNoEncodedDataOrName: data a test or a build encodes (JSON
// or text in base64, a WebAssembly module), an XML signature's value, a
// value sops or Travis CI encrypted, generated names glued into one
// string and a URL's path after its host are no private key; a key
// written as text (an S-expression naming private-key) still goes.
func TestKeyBodyIsNoEncodedDataOrName(t *testing.T) {
	r := newRedactor(t)
	json := base64.StdEncoding.EncodeToString([]byte("{\n  \"signatures\": [\n    {\n      \"keyid\": \"e71a54d543835ba86adad9460379c7641fb8726d164ea766801a1c522aba7ea2\"\n    }\n  ]\n}\n"))
	keepsAll(t, r, []string{
		`{"root.json":"` + json + `"}`,
		`"tpmPrivate": "` + base64.StdEncoding.EncodeToString([]byte("sensitive-tpm-data-that-only-works-on-original-node")) + `",`,
		"module.exports = Buffer.from('AGFzbQEAAAABJwdgAX8Bf2ADf39/AX9gAX8AYAJ/fwBgBH9/f38Bf2AAAGADf39/AALLAQgDZW52GHdhc21f', 'base64')",
		"<dsig:SignatureValue>cj28Qr33wTqwHJzpI+7Mth7HUTr9MKACSH4x/1/AO64FEGiQRoOBB8XuUHZ8tzkP</dsig:SignatureValue>",
		"<CipherValue>WXlDyktaADlUe+PywKwS3KdKlahCteEKxi/hRlHcXNQlGwNGrYKy8aQ6dLtX1bKg</CipherValue>",
		"    mac: ENC[AES256_GCM,data:Tl1V1PuI5tZ0Hu3qxxzpDNeKQkuW0g/x/Mlp1yM6HaBqDr+r2FukLdYSYqjjJ3A8g+YkpvMib50M7j0V7zoX9sgCvMKE=,iv:n7HVI13o]",
		"    - secure: pNtiVeWTe/kPWmERJURFoCVfzDVOc19IPbr9rK9CDJHo9aFtBPXkRwYzXfjlIwnzzkrAnfowxNNerHxYXuiNK7z+xNT9H79pmYtd1Qap9fNZ=",
		`const _EventType_name = "RuneCtrlACtrlBCtrlCCtrlDCtrlECtrlFCtrlGCtrlHTabCtrlJCtrlKCtrlLEnterCtrlNCtrlOCtrlPCtrlQCtrlRCtrlSCtrlTCtrlUCtrlVCtrlWCtrlXCtrlYCtrlZEscCtrlSpaceCtrlDeleteCtrlBackSlashCtrlRightBracketCtrlCaretCtrlSlashShiftTabBackspaceDeletePageUpPageDownF1F2F3F4"`,
		"\t\t// https://github.com/DragonFlyBSD/DragonFlyBSD/commit/43a373152df2d405c9940983e584e6a25e76632d",
		"ssh-rsa-cert-v01@openssh.com AAAAHHNzaC1yc2EtY2VydC12MDFAb3BlbnNzaC5jb20AAAAgWcP1x+t9PQTxkt/fRa8v5HXz0FFW/fwN3mpR5jdGo3UAAAAD host",
	})
	for _, secret := range []string{
		base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7Kq2Lm9Wz4Rt8Yp3Nc6Vd1Zx5Cb8Mn0Lk2Jh4Gf6Ds9Aa3Ss7Dd1F\n")),
		base64.StdEncoding.EncodeToString([]byte(`{"auths":{"registry.example.com":{"auth":"ZGVwbG95OlhrMzlhYVBxN0xtMg=="}}}`)),
	} {
		if out, f := r.Redact("  tls.key: " + secret); strings.Contains(out, secret[10:40]) || len(f) == 0 {
			t.Errorf("an encoded secret kept: %q", out)
		}
	}
	webhook := "https://hooks.slack.com/workflows/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"
	if out, _ := r.Redact(webhook); strings.Contains(out, "F6Vm03re") || strings.Contains(out, "N6OW9") {
		t.Errorf("a webhook's token kept: %q", out)
	}
	sexp := base64.StdEncoding.EncodeToString([]byte("(11:private-key(14:rsa-pkcs1-sha1(1:n129:\x00\xf7\x4f\x8a\xe4\x49\xa3\x6c\x52\x41\x78\x90"))
	if out, f := r.Redact(`"{` + sexp + `"`); strings.Contains(out, sexp[10:40]) || len(f) == 0 {
		t.Errorf("a private key written as text kept: %q", out)
	}
}

// TestRandomKeyLinesAreNoDataOrNames: a key body's line is never taken
// for encoded text or glued names, nor its block's first line for a
// certificate's, whatever characters fall in it.
func TestRandomKeyLinesAreNoDataOrNames(t *testing.T) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	r := mrand.New(mrand.NewPCG(3, 4))
	for n := range 100000 {
		b := make([]byte, 64+64*(n%2)) // a PEM line, a longer run
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if v := string(b); encodedData(v) || gluedNames(v) || strings.HasPrefix(v, "MII") && publicDER(v) && b[6] == 'A' {
			t.Fatalf("a random key line read as data or names: %s", b)
		}
	}
}

// TestEncodedCredentialsStayRedacted: base64 of printable text is data
// only when the text names no secret and holds no encoded run itself. A
// service account's JSON (its private_key a few hundred bytes in), bare,
// labelled or wrapped at 76 columns, and an encoded JSON holding a key's
// body under a plain name are still taken, every line of them.
func TestEncodedCredentialsStayRedacted(t *testing.T) {
	r := newRedactor(t)
	account := base64.StdEncoding.EncodeToString([]byte(`{
  "type": "service_account",
  "project_id": "demo-project-123456",
  "private_key_id": "4f1c2b9e8d7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e",
  "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n",
  "client_email": "ci@demo-project-123456.iam.gserviceaccount.com"
}`))
	plainName := base64.StdEncoding.EncodeToString([]byte(`{"note": "the deploy bundle", "blob": "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7Kq2Lm9Wz4Rt8Yp3Nc6Vd1Zx5Cb8Mn0Lk2Jh4Gf6Ds9Aa3Ss7Dd1F"}`))
	for _, enc := range []string{account, plainName} {
		for _, in := range []string{enc, "creds:\n" + enc + "\n"} {
			out, _ := r.Redact(in)
			for i := 0; i+60 <= len(enc); i += 60 {
				if strings.Contains(out, enc[i:i+60]) {
					t.Errorf("part of an encoded credential stays at %d: %q", i, out)
					break
				}
			}
		}
	}
	// Wrapped at 76 columns, each line is judged alone: none left holds
	// the key (a line of the email alone may stay).
	var wrapped []string
	for i := 0; i < len(account); i += 76 {
		wrapped = append(wrapped, account[i:min(i+76, len(account))])
	}
	out, _ := r.Redact(strings.Join(wrapped, "\n") + "\n")
	for _, line := range strings.Split(out, "\n") {
		text, _ := base64.StdEncoding.DecodeString(line)
		if strings.Contains(string(text), "PRIVATE") || strings.Contains(string(text), "BKcwggSjAgEAAoI") {
			t.Errorf("a wrapped line of the account's key stays: %q (%q)", line, text)
		}
	}
}

// TestEllipticKeyFirstLineGoes: an elliptic-curve key is shorter than 256
// bytes, so its DER opens "MIG…" or "MHc…", not "MII…", and its first
// line is a fixed header and a few random characters: taken by how random
// it looks alone, it was kept one time in a few (a CI run's P-384 key).
// Every first line of 100 keys of each kind goes, alone as grep shows it.
func TestEllipticKeyFirstLineGoes(t *testing.T) {
	r := newRedactor(t)
	for _, c := range []struct {
		name  string
		curve elliptic.Curve
		der   func(*ecdsa.PrivateKey) ([]byte, error)
	}{
		{"P-256 PKCS #8", elliptic.P256(), func(k *ecdsa.PrivateKey) ([]byte, error) { return x509.MarshalPKCS8PrivateKey(k) }},
		{"P-256 SEC 1", elliptic.P256(), x509.MarshalECPrivateKey},
		{"P-384 PKCS #8", elliptic.P384(), func(k *ecdsa.PrivateKey) ([]byte, error) { return x509.MarshalPKCS8PrivateKey(k) }},
		{"P-384 SEC 1", elliptic.P384(), x509.MarshalECPrivateKey},
	} {
		for range 100 {
			k, err := ecdsa.GenerateKey(c.curve, rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			der, err := c.der(k)
			if err != nil {
				t.Fatal(err)
			}
			first := pemBodyLines(string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))[0]
			if len(first) < 60 {
				continue // a one-line body shorter than a run the rule takes
			}
			if out, _ := r.Redact("secrets/tls.key:2:" + first); strings.Contains(out, first[40:]) {
				t.Fatalf("%s: the first line %s kept: %q", c.name, first, out)
			}
		}
	}
}
