package redact

import (
	"strings"
	"testing"
)

// TestPlaceholdersAreNoSecrets: a placeholder where a secret would be
// (<your password here>, ********, xxxxxxxx, ${DB_PASSWORD},
// <REDACTED>, [FILTERED], {password}) is left as written, not redacted
// or cut in two (the re-check saw "[REDACTED:password] password here>"
// and "**[REDACTED:password]"); a value that only starts or ends like
// one is still redacted.
func TestPlaceholdersAreNoSecrets(t *testing.T) {
	r := newRedactor(t)
	for _, clean := range []string{
		"password: <your password here>",
		"token: <your token here>",
		"password: ********",
		"**Password:** ********",
		"password: xxxxxxxx",
		"PASSWORD=xxxxxxxxxxxx",
		"API_KEY=xxxx-xxxx-xxxx",
		"password: ${DB_PASSWORD}",
		"password: <REDACTED>",
		"Password: <REDACTED>",
		`{"password": "<REDACTED>", "user": "admin"}`,
		"password=[FILTERED]",
		"the password is ********",
		"password: •••••••",
		"DB_PASSWORD=<db-password>",
		"db_password: {password}",
		"password: ***REDACTED***",
		"| user | password |\n|---|---|\n| admin | ******** |\n| ci | <ci password> |",
		"mysql -u root -p<password> app",
		"--password <YOUR_PASSWORD>",
		"token: YOUR_TOKEN_HERE",
		"TS_AUTHKEY=YOUR_TAILSCALE_AUTHKEY",
		"client_secret: your_client_secret",
		"api_key: your-api-key",
	} {
		if out, f := r.Redact(clean); out != clean || len(f) != 0 {
			t.Errorf("placeholder changed: %q → %q (%v)", clean, out, f)
		}
	}
	for in, secret := range map[string]string{
		"password: <Xk9!mQ2vL>":    "Xk9!mQ2vL",
		"password: x8Fk3Lq9":       "x8Fk3Lq9",
		"password: ****hunter2":    "hunter2",
		"password: xxxhunter2":     "hunter2",
		"password: hunter2 <here>": "hunter2",
		"token: your_token_9Xk2Lm": "your_token_9Xk2Lm",
		"password: yourPass-word":  "yourPass-word",
	} {
		if out, _ := r.Redact(in); strings.Contains(out, secret) {
			t.Errorf("%q kept its secret: %q", in, out)
		}
	}
}
