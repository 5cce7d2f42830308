package redact

import (
	"math/rand"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWindowsCoverWithOverlap: the windows of a long text cover it from end
// to end, each starts at a character's first byte, and consecutive windows
// share more than the longest secret (an RSA-4096 PEM key, about 3.3 KiB).
func TestWindowsCoverWithOverlap(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for _, text := range []string{
		strings.Repeat("a", 100<<10),        // no line breaks
		strings.Repeat("認証トークンの更新\n", 8000), // multibyte characters and lines
		strings.Repeat("x", windowBytes),    // exactly one window
		randomLines(rng, 300<<10),
	} {
		ws := windows(text)
		if ws[0].start != 0 || ws[len(ws)-1].end != len(text) {
			t.Fatalf("windows %v do not cover 0..%d", ws, len(text))
		}
		for i, w := range ws {
			if w.end-w.start > windowBytes || !utf8.RuneStart(text[w.start]) || (w.end < len(text) && !utf8.RuneStart(text[w.end])) {
				t.Fatalf("window %d %v: too long or not on a character's boundary", i, w)
			}
			if i > 0 && ws[i-1].end-w.start < 5<<10 {
				t.Fatalf("windows %d and %d share %d bytes, fewer than 5 KiB", i-1, i, ws[i-1].end-w.start)
			}
		}
	}
	if ws := windows("short"); len(ws) != 1 || ws[0] != (window{0, 5}) {
		t.Fatalf("a short text: %v", ws)
	}
}

func randomLines(rng *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		for range 20 + rng.Intn(100) {
			b.WriteByte(byte('a' + rng.Intn(26)))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// TestSecretAcrossAWindowEdge: a private key and a token placed at every
// few hundred bytes around the first windows' edges of a long text are
// redacted as in a short one.
func TestSecretAcrossAWindowEdge(t *testing.T) {
	r := newRedactor(t)
	rng := rand.New(rand.NewSource(3))
	filler := randomLines(rng, windowBytes+8<<10)
	token := "ghp_" + strings.Repeat("A1b2C3d4E5", 3) + "zzzzzz"
	pem := "-----BEGIN RSA " + "PRIVATE KEY-----\n" + strings.Repeat("MIIEpAIBAAKCAQEAx3Vq8Lr2T0mZk9QwFz5Yb1Nc7Hd4Jy6Ge0Aq2Sx9Pv3Mt8Ko\n", 50) + "-----END RSA " + "PRIVATE KEY-----\n"
	for _, secret := range []string{token, pem} {
		for at := windowBytes - windowOverlap - len(secret); at < windowBytes+len(secret); at += 613 {
			text := filler[:at] + "\n" + secret + "\n" + filler[at:]
			got, _ := r.Redact(text)
			if strings.Contains(got, secret[len(secret)/2-8:len(secret)/2+8]) {
				t.Fatalf("a secret of %d bytes at %d (window edge %d) kept its middle", len(secret), at, windowBytes)
			}
		}
	}
}

// BenchmarkRedactLongBlob redacts 400 KiB of random letters and digits on
// one line, a peer's worst body (make bench): the windows keep its cost in
// proportion to its length.
func BenchmarkRedactLongBlob(b *testing.B) {
	r := newRedactor(b)
	rng := rand.New(rand.NewSource(1))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	blob := make([]byte, 400<<10)
	for i := range blob {
		blob[i] = alphabet[rng.Intn(len(alphabet))]
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"aoi.notify","params":{"data":"` + string(blob) + `"}}`
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for range b.N {
		r.Redact(body)
	}
}
