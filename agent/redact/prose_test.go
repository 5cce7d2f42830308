package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

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
		"password manager: 1Password",
		"password length: 12chars",
	})
}

// TestPassAfterAVerb: "pass" names a password after "with" or "use", or
// before "is"; a test runner's "pass" and the verb stay.
func TestPassAfterAVerb(t *testing.T) {
	r := newRedactor(t)
	redactsAll(t, r, "password", map[string]string{
		"log in with pass Xk9!mQ2vL":          "Xk9!mQ2vL",
		"use pass Xk9!mQ2vL":                  "Xk9!mQ2vL",
		"use pass\tXk9!mQ2vL":                 "Xk9!mQ2vL",
		"Use pass 'Zr4Bx7kQ2Lm9' for staging": "Zr4Bx7kQ2Lm9",
		"the pass is Xk9!mQ2vL":               "Xk9!mQ2vL",
		"the wifi pass was hunter22 before":   "hunter22",
	})
	keepsAll(t, r, []string{
		"pass the tests before you merge",
		"use pass rates from the last run",
		"with pass 42/42 and no failures",
		"tests pass 12/12",
		"use pass show db/prod to read it",
		"the pass is required for entry",
		"PASS TestRedact 0.01s",
		"use pass $DB_PASS",
	})
}

// TestPswNames: psw, pswd and pswrd name a password as pwd does; the
// word alone, or a file named so, stays.
func TestPswNames(t *testing.T) {
	r := newRedactor(t)
	redactsAll(t, r, "password", map[string]string{
		"psw: Xk9!mQ2vL":             "Xk9!mQ2vL",
		"pswd=Xk9!mQ2vL":             "Xk9!mQ2vL",
		"DB_PSWD='hunter2hunter2'":   "hunter2hunter2",
		"the admin psw is Zr4Bx7kQ2": "Zr4Bx7kQ2",
		"pswrd: Xk9!mQ2vL":           "Xk9!mQ2vL",
	})
	keepsAll(t, r, []string{
		"psw file",
		"open the psw file and check it",
		"the psw is required",
		"psw: ${PSW}",
	})
}

// TestSetTo: a secret set to a value in prose, named by a variable or by
// words; a value that reads as words, a number or a variable stays.
func TestSetTo(t *testing.T) {
	r := newRedactor(t)
	redactsAll(t, r, "password", map[string]string{
		"set ADMIN_PASS to Xk9!mQ2vL":                  "Xk9!mQ2vL",
		"set ADMIN_PSW to Xk9!mQ2vL":                   "Xk9!mQ2vL",
		"set ADMIN_PASS\tto Xk9!mQ2vL":                 "Xk9!mQ2vL",
		"set ADMIN_PASSWORD to Xk9!mQ2vL":              "Xk9!mQ2vL",
		"set the DB password to Xk9!mQ2vL":             "Xk9!mQ2vL",
		"change the root password to Xk9!mQ2vL now":    "Xk9!mQ2vL",
		"I reset api_token to 'Zr4Bx7kQ2Lm9' for you.": "Zr4Bx7kQ2Lm9",
		"rotated the staging signing key to hunter22":  "hunter22",
	})
	keepsAll(t, r, []string{
		"set the password to something long",
		"change the password to a passphrase",
		"set MaxTokens to 4096",
		"set the key to sha256",
		"set GITHUB_TOKEN to $TOKEN in CI",
		"set the API key to your own key",
		"update the token to the new format",
		"set passwordPolicy to strict",
		"reset the key to /etc/ssl/private/key2.pem",
		"set the secret to v1.2.3-rc1",
		"commit 3f9a2c1: auth: rotate refresh tokens on use",
	})
}

// TestKeyIs: a key told in prose after "is" goes; a word, a name in code
// or a format after "the key is" stays.
func TestKeyIs(t *testing.T) {
	r := newRedactor(t)
	redactsAll(t, r, "password", map[string]string{
		"the key is Tr0pic4lSunr1se!":                    "Tr0pic4lSunr1se!",
		"the key\tis Tr0pic4lSunr1se!":                   "Tr0pic4lSunr1se!",
		"The ssh key is Tr0pic4lSunr1se! - keep it safe": "Tr0pic4lSunr1se!",
		"the license key for prod was Xk9mQ2vL7p.":       "Xk9mQ2vL7p",
		"the key is now: 'Zr4Bx7kQ2Lm9'":                 "Zr4Bx7kQ2Lm9",
		"the API key is sk-abc123def456ghi789":           "sk-abc123def456ghi789",
		"the token is Tr0pic4lSunr1se!":                  "Tr0pic4lSunr1se!",
	})
	keepsAll(t, r, []string{
		"the key is ready",
		"the key is JSON-encoded",
		"the cache key is userID2",
		"the map key is sha256Hash",
		"the key is XMLHttpRequest2",
		"the primary key is user_id",
		"the key is config.SigningKey",
		"the key is $HOME/.ssh/id_ed25519",
		"the sort key is created_at_v2",
		"the key is base64",
		"keys are strings, values are ints",
		"the key is utf8mb4",
		"the key is 0x1F2E",
	})
	for v, want := range map[string]bool{
		"sha256Hash": true, "userID2": true, "XMLHttpRequest": true, "created_at_v2": true, "fooBar": true,
		"Tr0pic4lSunr1se": false, "Xk9mQ2vL": false, "hunter2x": false, "a-b": false, "2fa": false,
	} {
		if got := codeIdentifier(v); got != want {
			t.Errorf("codeIdentifier(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestBareBasicCredentials: "Basic <base64 of user:password>" without
// the Authorization header; "Basic" before a word stays.
func TestBareBasicCredentials(t *testing.T) {
	r := newRedactor(t)
	redactsAll(t, r, "authorization-header", map[string]string{
		"Basic dXNlcjpwYXNzd29yZA==":                                   "dXNlcjpwYXNzd29yZA==",
		"curl -H 'X-Proxy-Auth: Basic dXNlcjpwYXNzd29yZA==' https://x": "dXNlcjpwYXNzd29yZA==",
		"send basic YWRtaW46WGs5IW1RMnZM to the proxy":                 "YWRtaW46WGs5IW1RMnZM",
		"Proxy: Basic YWRtaW46WGs5IW1RMnZM.":                           "YWRtaW46WGs5IW1RMnZM",
	})
	keepsAll(t, r, []string{
		"Basic usage:",
		"## Basic usage",
		"Basic Auth is supported",
		"basic auth with a token",
		"Basic dXNlcm5hbWU=",
		"the Basic scheme base64-encodes user:password",
		"see basic_test.go",
		"Basic QUJDREVGR0g=",
	})
}

// TestProsePrefiltersAreSound: the prose rules' prefilters never reject
// text their expressions match.
func TestProsePrefiltersAreSound(t *testing.T) {
	rules := []*rule{&passwordNoteRule, &passVerbRule, &setToRule, &keyIsRule, &basicCredentialRule}
	parts := []string{"password", "PW", "p@ssw0rd", "pass", "psw", "ADMIN_PASS", "api.token", "Signing-Key", "key", "KEY", "secret",
		" ", "\t", " reset", " for prod", ":", "=", " -> ", "→", " to ", "to", "\tto ", " is ", " was\t", " will be ", "now ",
		"set ", "Change ", "rotated the ", "with ", "use ", "the ", "basic ", "Basic\t", "dXNlcjpwYXNzd29yZA==", "Xk9!mQ2vL",
		"Tr0pic4lSunr1se!", "'Zr4Bx7kQ2Lm9'", ".", "ſ", "\u212a", "\n"}
	rng := rand.New(rand.NewPCG(5, 6))
	hits := map[*rule]int{}
	for range 150000 {
		var b strings.Builder
		for range 2 + rng.IntN(7) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		for _, ru := range rules {
			if ru.re.MatchString(s) {
				hits[ru]++
				if !ru.may(newText(s)) {
					t.Fatalf("rule %s matches %q but its prefilter rejects it", ru.re, s)
				}
			}
		}
	}
	for _, ru := range rules {
		if hits[ru] < 50 {
			t.Errorf("%d matches of %s: the generator does not exercise it", hits[ru], ru.re)
		}
	}
}

// TestMarkdownLinkIsNoSecret: a changelog's link after a line about
// credentials or tokens ("… credentials ([#1160](https://…))", "a Jenkins
// token from [@bot](https://…)") is no secret told in prose; a made value
// told after the name still is, link or not after it.
func TestMarkdownLinkIsNoSecret(t *testing.T) {
	r := newRedactor(t)
	keepsAll(t, r, []string{
		"* Adds new external account authorized user credentials ([#1160](https://github.com/googleapis/google-auth-library-python/issues/1160))",
		"* \\[[`5ccafa2a33`](https://github.com/nodejs/node/commit/5ccafa2a33)] - **crypto**: support Diffie-Hellman secrets [#31178](https://github.com/nodejs/node/pull/31178)",
		"requires a Jenkins token from [@nodejs-github-bot](https://github.com/nodejs/github-bot).",
		"Request a Jenkins token from\n[@nodejs-github-bot](https://github.com/nodejs/github-bot).",
	})
	redactsTo(t, r, map[string]string{
		"the deploy token is Xk39aaPq7Lm2Zr ([#12](https://example.com/12))": "the deploy token is [REDACTED:password] ([#12](https://example.com/12))",
		"the password is [Hunter2pass!":                                      "the password is [REDACTED:password]",
	})
}
