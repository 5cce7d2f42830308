package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent/redact"
)

// TestRedactWireBodySeesThroughEscapes: the attack run's cases. A secret
// a JSON escape hides from the pass over the raw bytes — "<" written as
// \u003c by Go's encoder, a whole key written as \uXXXX — is redacted as
// it will be stored, and so is AWS_SECRET_ACCESS_KEY=…; a body with an
// escape somewhere keeps the redaction a pass over the raw bytes made
// (a password in one field named by its key), and stays valid JSON.
func TestRedactWireBodySeesThroughEscapes(t *testing.T) {
	red, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	escapeAll := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return b.String()
	}
	gh := "ghp_" + "9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S"
	for _, c := range []struct {
		name, body, secret string
	}{
		{"escaped angle brackets", `{"query":"LEAK8 password=\u003chunter13\u003e"}`, "hunter13"},
		{"aws secret variable", `{"query":"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`, "wJalrXUtnFEMI"},
		{"all escaped", `{"query":"` + escapeAll("token "+gh) + `"}`, gh[:12]},
		{"password by key, escape elsewhere", `{"params":{"password":"hunter2222"},"query":"line one\nline two"}`, "hunter2222"},
		{"secret in an escaped key", `{"data":{"summary":"k1","` + escapeAll("AKIA"+"K01K01K01K01K01Q") + `":"y"}}`, "K01K01K01"},
		{"duplicate keys", `{"data":{"summary":"dup ` + escapeAll(gh) + `","summary":"harmless"}}`, gh[:12]},
		// Split by what the display drops, the secret reads whole once
		// shown: an escape sequence, a zero-width space, a soft hyphen.
		{"split by an escape sequence", `{"query":"` + gh[:10] + `\u001b[0m` + gh[10:] + `"}`, gh[10:22]},
		{"split by a zero-width space", `{"query":"` + gh[:10] + "\u200b" + gh[10:] + `"}`, gh[10:22]},
		{"split by a soft hyphen", `{"query":"` + gh[:10] + "\u00ad" + gh[10:] + `"}`, gh[10:22]},
		{"split by a joiner", `{"query":"` + gh[:10] + "\u200d" + gh[10:] + `"}`, gh[10:22]},
		{"split by carriage returns", `{"query":"` + gh[:10] + `\r` + gh[10:] + `"}`, gh[10:22]},
		{"split by a Hangul filler and a Mongolian selector", `{"query":"` + gh[:10] + "\u3164" + gh[10:20] + "\u180b" + gh[20:] + `"}`, gh[10:20]},
	} {
		out := redactWireBody(red, []byte(c.body))
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Errorf("%s: not JSON after redaction: %s", c.name, out)
			continue
		}
		decoded, _ := json.Marshal(v)
		if strings.Contains(string(out), c.secret) || strings.Contains(strings.ReplaceAll(string(decoded), `\u003c`, "<"), c.secret) {
			t.Errorf("%s: the secret survived: %s", c.name, out)
		}
		if !strings.Contains(string(out), "REDACTED") {
			t.Errorf("%s: nothing marked redacted: %s", c.name, out)
		}
	}
	// Duplicate members stay in place (only the secret goes).
	if out := string(redactWireBody(red, []byte(`{"a":"`+escapeAll(gh)+`","a":"harmless"}`))); !strings.Contains(out, `"harmless"`) || strings.Count(out, `"a":`) != 2 {
		t.Errorf("duplicate members were not kept: %s", out)
	}
	for _, plain := range [][]byte{
		[]byte(`{"query":"how is auth going?\nand the docs?"}`),
		[]byte(`{"task_params":{"filter":"a\tb\u200dc \u200b"}}`), // kept exactly: no secret shows
	} {
		if out := redactWireBody(red, plain); !jsonEqual(out, plain) {
			t.Errorf("a body without secrets changed: %s → %s", plain, out)
		}
	}
}

// jsonEqual reports whether a and b decode to the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}
