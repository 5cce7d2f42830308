package peerapi

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestIDStringAsUnquote: the plain-string path gives what the general one
// (strconv.Unquote of the trimmed id) gives, for every kind of id a
// client may send.
func TestIDStringAsUnquote(t *testing.T) {
	general := func(raw json.RawMessage) string {
		s := strings.TrimSpace(string(raw))
		if strings.HasPrefix(s, `"`) {
			if u, err := strconv.Unquote(s); err == nil {
				return u
			}
		}
		return s
	}
	for _, raw := range []string{`"7"`, `""`, `"q_01J"`, `"認証"`, `"a\"b"`, `"a\\b"`, `"\u00e9"`, `"\/"`, "\"a\nb\"", "\"bad\xff\"", `"a"b"`, ` "x" `, `12`, `-1.5e3`, `null`, `"`, `"x`} {
		if got, want := IDString(json.RawMessage(raw)), general(json.RawMessage(raw)); got != want {
			t.Errorf("IDString(%q) = %q, want %q", raw, got, want)
		}
	}
}
