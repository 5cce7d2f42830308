package redact

import (
	"strings"
	"testing"
)

// TestPasswordNameInCodeIsNoLabel: a function's name before its
// parameters ("def set_password(self, raw): pass", "validatePassword(pw)
// => isStrong"), a camel-case word holding "pword" only across its
// boundary (wrapWord), the shell's working directory ($PWD, OLDPWD) given
// a path, a boolean and a conversion in code are no password after its
// label; the same names as labels, and a password that merely starts
// like a literal, still go.
func TestPasswordNameInCodeIsNoLabel(t *testing.T) {
	r := newRedactor(t)
	keepsAll(t, r, []string{
		"def set_password(self, raw_password): pass",
		"validatePassword(pw) => isStrong",
		"t.wrapWord = wrapped",
		"\tt.wrapWord = false",
		`"NoPassword": true`,
		"`$PWD = /foo_real/bar`.",
		`docker run --rm -v "$PWD:/work" -w /work image`,
		`"OLDPWD": "/home/nodeuser/project/node/src",`,
		"\tfpsw := (*FPSoftwareFrame)(unsafe.Pointer(&s[FP_SW_FRAME_OFFSET]))",
	})
	redactsTo(t, r, map[string]string{
		"Password(prod): Xk39aaPq7Lm2":   "Password(prod): [REDACTED:password]",
		"password (prod): hunter2xyz":    "password (prod): [REDACTED:password]",
		"db_password: hunter22x":         "db_password: [REDACTED:password]",
		`dbPassword = "Tr0ub4dor&3"`:     `dbPassword = "[REDACTED:password]"`,
		"PWD=Tr0ub4dor&3":                "PWD=[REDACTED:password]",
		"password: truestory9":           "password: [REDACTED:password]",
		`user.Password = "Xk39aaPq7Lm2"`: `user.Password = "[REDACTED:password]"`,
		"wrap_pword = Xk39aaPq7Lm2":      "wrap_pword = [REDACTED:password]",
	})
}

// TestSecretNameBeforeCodeIsNoSecret: after a secret's name, code that
// calls, converts or builds something ("tokens = convertDNCL2(tokens)",
// "apiKey: []byte(apiKey)", "AccessToken: &accessToken{", "pw =
// append(pw, …)"), a qualified type in markdown emphasis ("(token:
// *Tokens.Space*)") and Japanese prose after 暗号 (cipher) are no secret;
// a made value after the same names, one in parentheses, and a password
// after 暗号 still go.
func TestSecretNameBeforeCodeIsNoSecret(t *testing.T) {
	r := newRedactor(t)
	keepsAll(t, r, []string{
		"-    tokens = convertDNCL2(tokens)",
		"+\t\t\tapiKey:        []byte(apiKey),",
		"\t\treturn &CredentialsAdapter{Credentials: aws.Credentials{}}, nil",
		"\t\tAccessToken: &loginTokenAccessToken{",
		"\tpw = append(pw, x[0])",
		"+- <code>**space**(token: *Tokens.Space*): *string*</code>",
		`     "description": "暗号強度の強い乱数のバイト配列(Uint8Array)を指定個数返す"`,
	})
	for in, secret := range map[string]string{
		"tokens = Xk39aaPq7Lm2Zr4Bx7kQ2":      "Xk39aaPq7Lm2Zr4Bx7kQ2",
		"apiKey: Zr4Bx7kQ2Lm9Wx4Tb7Np1Rv6Yc3": "Zr4Bx7kQ2Lm9Wx4Tb7Np1Rv6Yc3",
		"the password is (Xk39aaPq7Lm2)":      "Xk39aaPq7Lm2",
		"pw = Xk39aaPq7Lm2":                   "Xk39aaPq7Lm2",
		"暗号: Xk39aaPq7Lm2":                    "Xk39aaPq7Lm2",
	} {
		if out, f := r.Redact(in); strings.Contains(out, secret) || len(f) == 0 {
			t.Errorf("%q → %q (%v)", in, out, f)
		}
	}
}
