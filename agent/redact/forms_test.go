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

// TestKeyBodyIsNoNamedPathOrDigest: a URL's or a file's path whose parts
// are names rather than words (mesa3d, GNOME, T8037935, a temporary
// directory's tmpz2nikr4y), and a SHA-512 sum beside its file's name, are
// no private key's body; a key's line with slashes in it, and a hex key
// given under its name, still go.
func TestKeyBodyIsNoNamedPathOrDigest(t *testing.T) {
	r := newRedactor(t)
	keepsAll(t, r, []string{
		"<https://github.com/mesa3d/mesa/commit/759b94038987bb983398cd4b1d2cb1c8f79817a9>.",
		"https://gitlab.gnome.org/GNOME/libxml2/commit/c65c9e8ee07e2dab0647392c2bd1795a5bc99829",
		"[4] https://github.com/wolfSSL/wolfssl/blob/d60b16c5b8c19cc61db4a5c3f5e085a7a158cd28/wolfcrypt/src/asn.c#L9791",
		"copying the source tree into /tmp/tmpz2nikr4y/cpython/Lib/test/test_tools/test_freeze...",
		"Passed: tools/javac/lambda/T8037935/LambdaWithBinOpConstRefToConstString.java",
		"cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e  go1.22.0.linux-amd64.tar.gz",
	})
	for _, line := range []string{
		"Zq4Wm8Kt2Rx7Lp3V/b9Nc5Yd1Xe6Uf0T/g4Sh8Ri2Qj7Pk3Ol/9Nm5Mn1Lb6Kc0Jd4Ie8Hf2Gg7Fh3Ei9Dj5",
		"qv/Kd7x/Pm2Lr/Wz4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4Qw7Rt5Yu3Io1Pa9Sz4Xc6Vb8N",
	} {
		if out, f := r.Redact(line); strings.Contains(out, line[20:40]) || len(f) == 0 {
			t.Errorf("a key's line kept: %q → %q", line, out)
		}
	}
	hexKey := "private_key = \"cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e\""
	if out, f := r.Redact(hexKey); strings.Contains(out, "cf83e1357eefb8bd") || len(f) == 0 {
		t.Errorf("a hex key under its name kept: %q", out)
	}
}

// TestSecretIsRuleLeavesTypesMarkupNumbersAndFlags: after a secret's
// name, a type's name ("tokens of type token_type_string_literal"), HTML
// around a word ("<code>Hmac</code>.</p>"), a number in hex ("Change
// Token: 0x00000001") and a flag given a path stay; a password in bold,
// a long hex key and a flag given a password still go.
func TestSecretIsRuleLeavesTypesMarkupNumbersAndFlags(t *testing.T) {
	r := newRedactor(t)
	keepsAll(t, r, []string{
		"\t(phase5_get): For tokens of type token_type_string_literal, use a mixed_string.",
		"returns a new key object containing a secret key for symmetric encryption or <code>Hmac</code>.</p>",
		"<p>An invalid HTTP token was supplied.</p>",
		"\tChange Token: 0x00000001",
		"aoi import credentials --path=/path/to/dir/",
	})
	redactsTo(t, r, map[string]string{
		"the password is <b>Xk39aaPq7Lm2</b>":                                               "the password is [REDACTED:password]",
		"the token is token_Xk39aaPq7Lm2":                                                   "the token is [REDACTED:password]",
		"the api token: 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318": "the api token: [REDACTED:password]",
		"the secret --password=Xk39aaPq7Lm2":                                                "the secret [REDACTED:password]",
	})
}

// TestLinksFilesAndLookupOrderAreNoPasswords: a markdown reference link's
// URL after "credentials", nsswitch.conf's "passwd:" line and a password
// file's name stay; a pair after "credentials", a password in a URL and
// a password after "passwd:" or "password:" still go.
func TestLinksFilesAndLookupOrderAreNoPasswords(t *testing.T) {
	r := newRedactor(t)
	keepsAll(t, r, []string{
		"[set up the credentials]: https://github.com/nodejs/node-core-utils#setting-up-github-credentials",
		"passwd:         compat systemd",
		"passwd:         files",
		"  password_file: basic-auth-password",
		"  passwordPath: secrets/db-password",
	})
	redactsTo(t, r, map[string]string{
		"credentials: admin / Hunter2pass!":                       "credentials: admin / [REDACTED:password]",
		"credentials: https://deploy:Hunter2pass@git.example.com": "credentials: https://deploy:[REDACTED:url-credential]@git.example.com",
		"passwd: Hunter2pass!":                                    "passwd: [REDACTED:password]",
		"passwd: compat9x":                                        "passwd: [REDACTED:password]",
		"password: basic-auth-password":                           "password: [REDACTED:password]",
	})
}

// TestWifiPasswordOnOneLine: "wifi password" then its value on one line
// is redacted (secretIsRule read "wifi" as the name and "password" as its
// value, and went on after it); a sentence about the wifi password stays.
func TestWifiPasswordOnOneLine(t *testing.T) {
	r := newRedactor(t)
	redactsTo(t, r, map[string]string{
		"wifi password hunter22x":          "wifi password [REDACTED:password]",
		"Wi-Fi password: Blue42sky":        "Wi-Fi password: [REDACTED:password]",
		"the office wifi key is Zr4Bx7kQ2": "the office wifi key is [REDACTED:password]",
	})
	keepsAll(t, r, []string{"wifi password reset instructions are in the wiki", "the wifi password changed yesterday"})
}

// TestLoginDefsIsNoLogin: "login.defs" in a changelog's file list is a
// file's name, not a login and its pair; a login given as a pair still
// goes.
func TestLoginDefsIsNoLogin(t *testing.T) {
	r := newRedactor(t)
	keepsAll(t, r, []string{
		"\tman/login.defs.d/PASS_WARN_AGE.xml, man/login.defs.d/UMASK.xml,",
		"\t* NEWS, lib/getdef.c: move login.defs::MD5_CRYPT_ENAB to non-PAM part.",
	})
	redactsTo(t, r, map[string]string{
		"login admin:Hunter2pass!":    "login admin:[REDACTED:password]",
		"login: admin / Hunter2pass!": "login: admin / [REDACTED:password]",
		"creds. admin / Hunter2pass!": "creds. admin / [REDACTED:password]",
	})
}

// TestHasRunSkipsNoRun: hasRun, which reads every n-th byte first, finds
// a run exactly where a byte-by-byte count does, for every string of up
// to nine bytes over a small alphabet and every run length.
func TestHasRunSkipsNoRun(t *testing.T) {
	counted := func(s string, n int) bool {
		run := 0
		for i := 0; i < len(s); i++ {
			if !hexBytes[s[i]] {
				run = 0
				continue
			}
			if run++; run >= n {
				return true
			}
		}
		return n <= 0
	}
	var walk func(s string)
	walk = func(s string) {
		for n := 0; n <= len(s)+1; n++ {
			if got, want := hasRun(s, n, &hexBytes), counted(s, n); got != want {
				t.Fatalf("hasRun(%q, %d) = %v, want %v", s, n, got, want)
			}
		}
		if len(s) < 9 {
			for _, c := range "a-F" {
				walk(s + string(c))
			}
		}
	}
	walk("")
}
