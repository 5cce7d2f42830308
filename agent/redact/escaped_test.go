package redact

import (
	"strings"
	"testing"
)

// TestSentryDSNWithoutSchemeOrEncoded: a Sentry DSN's key is redacted
// without the DSN's scheme (SENTRY_DSN=KEY@o1.ingest.sentry.io/2) and
// URL-encoded (https%3A%2F%2FKEY%40o1.ingest.sentry.io%2F2, a redirect's
// or a query's parameter); its host and project stay (the re-check saw
// these kept). Sentry's own ingest hosts take a key of any shape; 32 hex
// digits before a host that names no Sentry stay.
func TestSentryDSNWithoutSchemeOrEncoded(t *testing.T) {
	r := newRedactor(t)
	key := "3f9a2c1e0b7d4a6f" + "8e2c1b0a9d8e7f6a"
	redactsTo(t, r, map[string]string{
		"SENTRY_DSN=" + key + "@o123456.ingest.sentry.io/4567":               "SENTRY_DSN=[REDACTED:sentry-dsn]@o123456.ingest.sentry.io/4567",
		"dsn: " + key + "@o123.ingest.us.sentry.io/456":                      "dsn: [REDACTED:sentry-dsn]@o123.ingest.us.sentry.io/456",
		"https%3A%2F%2F" + key + "%40o1.ingest.sentry.io%2F2":                "https%3A%2F%2F[REDACTED:sentry-dsn]%40o1.ingest.sentry.io%2F2",
		"/setup?dsn=https%3a%2f%2f" + key + "%40sentry.example.com%2f3":      "/setup?dsn=https%3a%2f%2f[REDACTED:sentry-dsn]%40sentry.example.com%2f3",
		"https%3A%2F%2Fkey%40o1.ingest.sentry.io%2F2":                        "https%3A%2F%2F[REDACTED:sentry-dsn]%40o1.ingest.sentry.io%2F2",
		"SENTRY_DSN=abc123def456@o45.ingest.us.sentry.io/6":                  "SENTRY_DSN=[REDACTED:sentry-dsn]@o45.ingest.us.sentry.io/6",
		"?dsn=" + key + "%40o1.ingest.sentry.io%2F2&env=prod":                "?dsn=[REDACTED:sentry-dsn]%40o1.ingest.sentry.io%2F2&env=prod",
		`{"dsn":"https:\u002f\u002f` + key + `@o1.ingest.sentry.io\u002f2"}`: `{"dsn":"https:\u002f\u002f[REDACTED:sentry-dsn]@o1.ingest.sentry.io\u002f2"}`,
	})
	keepsAll(t, r, []string{
		"build " + key + "@builder.example.com",
		"https%3A%2F%2Fo123456.ingest.sentry.io%2Fapi%2F1234567%2Fenvelope%2F",
		"mailto%3Aops%40example.com",
	})
}

// TestURLCredentialEscaped: a URL's password is redacted when the URL's
// slashes are written as JSON's \u002f escapes (as some JSON encoders
// write them) or the URL is percent-encoded; the user and host stay.
func TestURLCredentialEscaped(t *testing.T) {
	r := newRedactor(t)
	redactsTo(t, r, map[string]string{
		`{"url":"https:\u002f\u002fuser:S3cr3tPass@host.example.com/x"}`:     `{"url":"https:\u002f\u002fuser:[REDACTED:url-credential]@host.example.com/x"}`,
		`{"url":"https:\u002F\u002Fdeploy:hunter22@git.example.com\u002Fa"}`: `{"url":"https:\u002F\u002Fdeploy:[REDACTED:url-credential]@git.example.com\u002Fa"}`,
		`"postgres:\u002f\u002fapp:pa55word\u0040db.internal\u002fprod"`:     `"postgres:\u002f\u002fapp:[REDACTED:url-credential]\u0040db.internal\u002fprod"`,
		"next=https%3A%2F%2Fapp%3AS3cr3tPass%40db.example.com%2Fprod":        "next=https%3A%2F%2Fapp%3A[REDACTED:url-credential]%40db.example.com%2Fprod",
		// A URL in a parameter of an encoded URL; then encoded twice.
		"/cb%3Fto%3Dhttps%3A%2F%2Fapp%3AS3cr3tPass%40db.example.com":                        "/cb%3Fto%3Dhttps%3A%2F%2Fapp%3A[REDACTED:url-credential]%40db.example.com",
		"login?next=%2Fcb%3Fto%3Dhttps%253A%252F%252Fapp%253AS3cr3tPass%2540db.example.com": "login?next=%2Fcb%3Fto%3Dhttps%253A%252F%252Fapp%253A[REDACTED:url-credential]%2540db.example.com",
	})
	keepsAll(t, r, []string{
		`{"url":"https:\u002f\u002fexample.com\u002fdocs"}`,
		"https%3A%2F%2Fexample.com%2Fpath%3Fq%3D1",
		"https%253A%252F%252Fexample.com%252Fpath%253Fq%253D1",
		`{"href":"https:\u002f\u002fgithub.com\u002facme\u002fwebapp"}`,
	})
	if strings.Contains(r.String(`https:\u002f\u002fuser:S3cr3tPass@h.example.com`), "S3cr3tPass") {
		t.Error("String kept the escaped URL's password")
	}
}
