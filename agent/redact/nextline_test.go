package redact

import "testing"

// TestValueUnderItsLabel: a secret written on the line under its name is
// still redacted when the name is a label (a prompt's "Password:", a
// note's "token") and the value stands alone under it looking made, or
// when a sentence wraps between its verb and the value.
func TestValueUnderItsLabel(t *testing.T) {
	r := newRedactor(t)
	redactsTo(t, r, map[string]string{
		"Password:\nHunter2pass!":                        "Password:\n[REDACTED:password]",
		"Password:\r\nhunter2\r\n":                       "Password:\r\n[REDACTED:password]\r\n",
		"\"password\":\n  \"Hunter2pass!\"":              "\"password\":\n  \"[REDACTED:password]\"",
		"**Password:**\nHunter2pass!":                    "**Password:**\n[REDACTED:password]",
		"- Admin password (prod):\n  'Hunter2pass!'":     "- Admin password (prod):\n  '[REDACTED:password]'",
		"Admin password —\nZr4Bx7kQ2Lm9":                 "Admin password —\n[REDACTED:password]",
		"Password:\nletmein":                             "Password:\n[REDACTED:password]",
		"db_password =\n  sunshine":                      "db_password =\n  [REDACTED:password]",
		"Passphrase:\ncorrect horse battery staple":      "Passphrase:\n[REDACTED:password]",
		"passphrase:\n  amber falcon meadow ripple":      "passphrase:\n  [REDACTED:password]",
		"Authorization: Bearer\nXb7Kq2Lm9Wz4Rt8Yp3Nc6Vd": "Authorization: Bearer\n[REDACTED:authorization-header]",
		"Algolia admin key for the search index:\nq8Zk2/Lm9+Wx4Tb7Np1Rv6Yc3Hd5Gf0Je8Ks2Ua4": "Algolia admin key for the search index:\n[REDACTED:generic-secret]",
		"login:\nadmin:Hunter2pass!":                 "login:\nadmin:[REDACTED:password]",
		"credentials:\nadmin / Hunter2pass!":         "credentials:\nadmin / [REDACTED:password]",
		"PIN:\n4821":                                 "PIN:\n[REDACTED:password]",
		"token\nq8Zx3kLm9PwR2vTy":                    "token\n[REDACTED:password]",
		"admin password\nZr4Bx7kQ2Lm9":               "admin password\n[REDACTED:password]",
		"GitHub API token:\nXb7Kq2Lm9Wz4Rt8Yp3Nc6Vd": "GitHub API token:\n[REDACTED:password]",
		"the new api token for staging is\nXk39aaPq7Lm2Zr, it expires Friday": "the new api token for staging is\n[REDACTED:password], it expires Friday",
	})
}

// TestLineAfterANameStays: a line that merely names a password or token
// (a sentence, a command, a comment) does not make the next line its
// value, nor does a label make code, a command, a word or a sentence
// under it one. The old reading took the first word of the next line
// whenever the name ended its line.
func TestLineAfterANameStays(t *testing.T) {
	r := newRedactor(t)
	keepsAll(t, r, []string{
		"Password:\nxargs -0 rm -f",
		"Password:\n$new_file",
		`Password:` + "\n" + `"$new_file" > "$dest_file.${NEW_SUFFIX}" || ret=$?`,
		"password=\nadd|merge|pull)",
		"Token:\n\"$output_distances\" <\"$TZ_ZONE_TABLE\" |",
		"token\ncat file | sort | uniq -c",
		"echo $PASSWORD\nZr4Bx7kQ2Lm9",
		"env | grep token\nq8Zx3kLm9PwR2vTy",
		"we rotate the token every month and keep it in the vault\nHunter2pass!",
		"# check password\nfind . -name '*.go' | xargs grep -n foo",
		"// token\nfoo2bar();",
		"Password:\n\nHunter2pass!",
		"the password\nmust be changed by admin2 tomorrow",
		"Password:\ngetPassword()",
		"password:\nstring",
		"Password:\nrequired",
		"password:\n  description: the SSH password",
		"Password:\ndone",
		"token:\nletmein",
		"Passphrase:\nsee the vault for it",
	})
}
