package redact

import "testing"

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
