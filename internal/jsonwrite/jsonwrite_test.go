package jsonwrite

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAppendStringMatchesEncodingJSON checks the escaper against encoding/json
// with HTML escaping off, as the audit hash scheme documents: every
// ASCII character, and random strings mixing runs to copy whole with
// characters to escape and invalid UTF-8.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	var cases []string
	for c := range 0x80 {
		cases = append(cases, "x"+string(rune(c))+"y")
	}
	cases = append(cases, "日本語", "\u2028\u2029", "a\xffb", "emoji 🎉", `"quoted" \back`)
	pieces := []string{"a", "認証", `"`, `\`, "\n", "\x00", "\x1f", "\x7f", "<&>", "\u2028", "\xff", "\xe8\xaa", "🦊", " ", "\t\b\f\r"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		var s string
		for range r.IntN(12) {
			s += pieces[r.IntN(len(pieces))]
		}
		cases = append(cases, s)
	}
	for _, s := range cases {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(buf.String(), "\n")
		if got := string(AppendString(nil, s)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestAppendStringsMatchesEncodingJSON: a list is written as encoding/json
// writes a []string without HTML escaping, an empty one as [].
func TestAppendStringsMatchesEncodingJSON(t *testing.T) {
	for _, list := range [][]string{{}, {"acme/webapp"}, {"a", "認証", "<&>", "q\"\\\n", "\xff"}} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(list); err != nil {
			t.Fatal(err)
		}
		if got, want := string(AppendStrings(nil, list)), strings.TrimSuffix(buf.String(), "\n"); got != want {
			t.Errorf("AppendStrings(%q) = %s, want %s", list, got, want)
		}
	}
}
