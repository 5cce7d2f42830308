package redact

import (
	"strings"
	"testing"
)

// redactsAll checks that each text loses its secret to [REDACTED:id].
func redactsAll(t *testing.T, r *Redactor, id string, cases map[string]string) {
	t.Helper()
	for in, secret := range cases {
		out, f := r.Redact(in)
		if strings.Contains(out, secret) || len(f) == 0 || !strings.Contains(out, "[REDACTED:"+id+"]") {
			t.Errorf("%q → %q (%v)", in, out, f)
		}
	}
}

// keepsAll checks that each text comes back unchanged.
func keepsAll(t *testing.T, r *Redactor, clean []string) {
	t.Helper()
	for _, s := range clean {
		if out, f := r.Redact(s); out != s || len(f) != 0 {
			t.Errorf("clean text changed: %q → %q (%v)", s, out, f)
		}
	}
}

// TestPasswordNote: a word or two between a password's name and the
// colon ("password reset: …") hides nothing; prose after such a label
// stays.
func TestPasswordNote(t *testing.T) {
	r := newRedactor(t)
	redactsAll(t, r, "password", map[string]string{
		"password reset: Xk9!mQ2vL":                 "Xk9!mQ2vL",
		"root pw reset: Xk9!mQ2vL":                  "Xk9!mQ2vL",
		"Password changed today: hunter22":          "hunter22",
		"db password staging = 'Zr4Bx7kQ2Lm9'":      "Zr4Bx7kQ2Lm9",
		"wifi passphrase reset -> Kangaroo-Jump-88": "Kangaroo-Jump-88",
	})
	keepsAll(t, r, []string{
		"password reset: click the link in the email",
		"Password reset: see the runbook",
		"password hash: sha256",
		"password policy: minimum length 12",
		"password reset: https://example.com/reset?id=42",
		"password reset: ${RESET_URL}",
		"pw reset: done",
		"password field: user.password",
	})
}
