package redact

import (
	"strings"
	"testing"
)

// TestValueInACommentAfterAnEmptyAssignment: a secret's name assigned
// nothing, with the value given in the comment after it, loses the value;
// a comment saying where the value comes from stays.
func TestValueInACommentAfterAnEmptyAssignment(t *testing.T) {
	r := newRedactor(t)
	for in, secret := range map[string]string{
		`DB_PASSWORD="" # current: realvalue123`:                     "realvalue123",
		`DB_PASSWORD= # current: realvalue123`:                       "realvalue123",
		"db:\n  password: '' # prod was Hunter2pass!\n":              "Hunter2pass!",
		`"api_key": "", // old: Zr4Bx7kQ2Lm9`:                        "Zr4Bx7kQ2Lm9",
		`SECRET_TOKEN = ""  # real value is q8Zk2Lm9Wx4Tb7Np1Rv6Yc3`: "q8Zk2Lm9Wx4Tb7Np1Rv6Yc3",
		`smtp_pass= # hunter22x`:                                     "hunter22x",
		`redis_password: "" # Zr4-Bx7-kQ2-Lm9`:                       "Zr4-Bx7-kQ2-Lm9",
	} {
		out, f := r.Redact(in)
		if strings.Contains(out, secret) || len(f) == 0 {
			t.Errorf("%q → %q (%v)", in, out, f)
		}
		if again, more := r.Redact(out); again != out || len(more) != 0 {
			t.Errorf("not idempotent: %q → %q", out, again)
		}
	}
	keepsAll(t, r, []string{
		`DB_PASSWORD="" # set in CI`,
		`DB_PASSWORD="" # see docs/setup.md`,
		`API_TOKEN= # required`,
		`SECRET_KEY="" # format: base64`,
		`SECRET_KEY="" # e.g. 32 random characters`,
		`password: "" # min length: 12`,
		`TOKEN="" # expires: 2026-01-01`,
		`DB_PASSWORD="" # from: ${VAULT_DB_PASSWORD}`,
		`OAUTH_TOKEN= # docs: https://example.com/Docs2Token`,
		`token: # see the vault`,
		"max_tokens: 4096 # default: 1024",
		"Set-Cookie: auth_token=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/",
	})
}

// TestSentryDSN: a Sentry DSN's key is redacted, its host and project
// stay; a URL with a user that is no key, and a commit's hex in a path,
// stay.
func TestSentryDSN(t *testing.T) {
	r := newRedactor(t)
	key := "3f9a2c1e0b7d4a6f" + "8e2c1b0a9d8e7f6a"
	for _, in := range []string{
		"https://" + key + "@o123456.ingest.sentry.io/1234567",
		"SENTRY_DSN=https://" + key + "@o123456.ingest.us.sentry.io/1234567",
		`{"dsn":"https:\/\/` + key + `@o123456.ingest.sentry.io\/42"}`,
		"dsn: https://" + key + ":" + strings.ToUpper(key) + "@sentry.example.com/3",
		"Sentry.init({ dsn: 'https://" + strings.ToUpper(key[:16]) + key[16:] + "@errors.example.com/12' })",
	} {
		out, f := r.Redact(in)
		if strings.Contains(strings.ToLower(out), key) || len(f) == 0 || !strings.Contains(out, "[REDACTED:sentry-dsn]@") {
			t.Errorf("%q → %q (%v)", in, out, f)
		}
		if host := strings.Split(strings.SplitN(in, "@", 2)[1], "/")[0]; !strings.Contains(out, host) {
			t.Errorf("%q → %q: the host went too", in, out)
		}
		if again, more := r.Redact(out); again != out || len(more) != 0 {
			t.Errorf("not idempotent: %q → %q", out, again)
		}
	}
	keepsAll(t, r, []string{
		"https://o123456.ingest.sentry.io/api/1234567/envelope/",
		"see https://sentry.io/organizations/acme/issues/4242/",
		"https://github.com/acme/webapp/commit/" + key[:12],
		"git@github.com:acme/webapp.git",
		"https://deploy@" + key + ".example.com/x",
	})
}
