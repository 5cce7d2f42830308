package redact

import (
	"strings"
	"testing"
)

// TestTableColumns: a password, token or API key in a markdown or CSV
// table whose header names its column loses the cells of that column
// alone; a table whose column names something else (a count of tokens, a
// policy) or whose cells hold no secret (yes/no, a variable, words) stays.
func TestTableColumns(t *testing.T) {
	r := newRedactor(t)
	for in, c := range map[string]struct{ secret, kept string }{
		"| user | password |\n|---|---|\n| admin | Hunter2pass! |": {"Hunter2pass!", "| admin |"},
		"user,password\nadmin,Hunter2pass!":                        {"Hunter2pass!", "admin,"},
		"Accounts:\n\n| User | Password | Role |\n| :--- | :---: | --- |\n| admin | `Hunter2pass!` | owner |\n| ci | Zr4Bx7kQ2Lm9 | bot |\n\nrotate monthly": {"Zr4Bx7kQ2Lm9", "| owner |"},
		"user | db password\n--- | ---\nadmin | Hunter2pass!":                                {"Hunter2pass!", "admin |"},
		"name;Password\nadmin;Hunter2pass!\nci;Zr4Bx7kQ2Lm9":                                 {"Zr4Bx7kQ2Lm9", "ci;"},
		"user\tpassword\nadmin\tHunter2pass!":                                                {"Hunter2pass!", "admin\t"},
		`service,api key,owner` + "\n" + `search,"Zq4Wm8Kt2Rx7Lp3Vb9Nc5Yd",ops`:              {"Zq4Wm8Kt2Rx7Lp3Vb9Nc5Yd", ",ops"},
		"| service | Token |\n|-|-|\n| deploy | Xb7Kq2Lm9Wz4Rt8Yp3Nc6Vd |":                   {"Xb7Kq2Lm9Wz4Rt8Yp3Nc6Vd", "| deploy |"},
		"| env | client_secret | note |\n|---|---|---|\n| prod | q8Zk2-Lm9Wx4Tb7 | rotate |": {"q8Zk2-Lm9Wx4Tb7", "| rotate |"},
	} {
		out, f := r.Redact(in)
		if strings.Contains(out, c.secret) || len(f) == 0 || !strings.Contains(out, c.kept) || !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%q → %q (%v)", in, out, f)
		}
		if again, more := r.Redact(out); again != out || len(more) != 0 {
			t.Errorf("not idempotent: %q → %q", out, again)
		}
	}
	keepsAll(t, r, []string{
		"| user | password |\n|---|---|\n| admin | see the vault |",
		"| user | password |\n|---|---|\n| admin | ${ADMIN_PASSWORD} |",
		"| field | description |\n|---|---|\n| password | the user's password |",
		"| model | tokens |\n|---|---|\n| gpt-4o | 128000 |",
		"| setting | secret |\n|---|---|\n| DB_URL | yes |\n| API_KEY | required |",
		"| name | token type |\n|---|---|\n| refresh | JWT2025opaque |",
		"| password policy | value |\n|---|---|\n| min length | 12 |",
		"model,tokens,cost\ngpt-4o,4096,0.12",
		"user,password\nalice,$ALICE_PASSWORD",
		"user,password_hash\nadmin,Hunter2pass",
		"Reset the password, then log in\nopen the admin page, click Save2Draft",
		"provider,api key\nOpenAI,OPENAI_API_KEY",
		"user,password\nadmin",
		"password, token\n",
	})
}

// TestTableColumnsNamedInOtherWords: a column named PW, pass, パスワード,
// contraseña or アクセストークン is a secret's column too (the redaction
// re-check's leaks); a test table's "pass" column of yes/no and counts
// stays.
func TestTableColumnsNamedInOtherWords(t *testing.T) {
	r := newRedactor(t)
	for _, in := range []string{
		"| ユーザー | パスワード |\n|---|---|\n| admin | Vh7rQp2Lx9Kz |",
		"| user | PW |\n|---|---|\n| admin | Vh7rQp2Lx9Kz |",
		"| user | contraseña |\n|---|---|\n| admin | Vh7rQp2Lx9Kz |",
		"| name | アクセストークン |\n|---|---|\n| ci | Vh7rQp2Lx9Kz |",
		"user,pass\nadmin,Vh7rQp2Lx9Kz",
	} {
		if out, _ := r.Redact(in); strings.Contains(out, "Vh7rQp2Lx9Kz") {
			t.Errorf("%q kept its secret: %q", in, out)
		}
	}
	for _, clean := range []string{"| test | pass |\n|---|---|\n| TestA | yes |\n| TestB | no |", "| step | pass |\n|---|---|\n| build | 12/12 |"} {
		if out, f := r.Redact(clean); out != clean || len(f) != 0 {
			t.Errorf("clean table changed: %q → %q", clean, out)
		}
	}
}

// TestTableCellOfWords: a passphrase of words in a password or token
// column is redacted whole (the re-check saw "| prod | correct horse
// battery staple |" kept, the cell having spaces); a note in words ("see
// the vault", "stored in 1Password", "rotate every month") stays.
func TestTableCellOfWords(t *testing.T) {
	r := newRedactor(t)
	for in, want := range map[string]string{
		"| env | password |\n|---|---|\n| prod | correct horse battery staple |":  "| env | password |\n|---|---|\n| prod | [REDACTED:password] |",
		"| service | token |\n|---|---|\n| deploy | velvet orbit lantern quiet |": "| service | token |\n|---|---|\n| deploy | [REDACTED:generic-secret] |",
		"env,passphrase\nstaging,\"amber falcon meadow ripple\"":                  "env,passphrase\nstaging,\"[REDACTED:password]\"",
	} {
		if out, _ := r.Redact(in); out != want {
			t.Errorf("%q\n → %q\nwant %q", in, out, want)
		}
	}
	for _, clean := range []string{
		"| user | password |\n|---|---|\n| admin | stored in 1Password |",
		"| user | password |\n|---|---|\n| admin | ask the ops team |",
		"| user | password |\n|---|---|\n| ci | rotate every month |",
		"| user | password |\n|---|---|\n| admin | same as above |",
		"| user | token |\n|---|---|\n| bot | not set yet |",
	} {
		if out, f := r.Redact(clean); out != clean || len(f) != 0 {
			t.Errorf("clean table changed: %q → %q", clean, out)
		}
	}
}

// TestTablesWithoutMarkdownDelimiter: a table framed by "|" without its
// "|---|" line, and psql's and mysql's tables (a "-----+-----" line under
// the header, or "+----+----+" borders around it), lose the cells of a
// password, token or API key column (the re-check saw them kept); a row
// that does not fit the header's frame ends the table.
func TestTablesWithoutMarkdownDelimiter(t *testing.T) {
	r := newRedactor(t)
	for in, want := range map[string]string{
		"| user | password |\n| admin | Hunter2pass! |": "| user | password |\n| admin | [REDACTED:password] |",
		"+-------+--------------+\n| user  | password     |\n+-------+--------------+\n| admin | Hunter2pass! |\n| ci    | Zr4Bx7kQ2Lm9 |\n+-------+--------------+": "+-------+--------------+\n| user  | password     |\n+-------+--------------+\n| admin | [REDACTED:password] |\n| ci    | [REDACTED:password] |\n+-------+--------------+",
		" user  | password\n-------+--------------\n admin | Hunter2pass!\n ci    | Zr4Bx7kQ2Lm9\n(2 rows)":                                                          " user  | password\n-------+--------------\n admin | [REDACTED:password]\n ci    | [REDACTED:password]\n(2 rows)",
		" id | name | api_key\n----+------+-------------------------\n  1 | ci   | Xb7Kq2Lm9Wz4Rt8Yp3Nc6Vd\n":                                                        " id | name | api_key\n----+------+-------------------------\n  1 | ci   | [REDACTED:generic-secret]\n",
		"+----+--------+\n| id | secret |\n+====+========+\n| 1  | q8Zk2-Lm9Wx4Tb7 |\n+----+--------+":                                                               "+----+--------+\n| id | secret |\n+====+========+\n| 1  | [REDACTED:generic-secret] |\n+----+--------+",
		// psql's unicode line style, and a box drawn with box-drawing characters.
		" user  │ password\n───────┼──────────────\n admin │ Hunter2pass!\n ci    │ Zr4Bx7kQ2Lm9\n(2 rows)":                                   " user  │ password\n───────┼──────────────\n admin │ [REDACTED:password]\n ci    │ [REDACTED:password]\n(2 rows)",
		"┌───────┬──────────────┐\n│ user  │ password     │\n├───────┼──────────────┤\n│ admin │ Hunter2pass! │\n└───────┴──────────────┘":    "┌───────┬──────────────┐\n│ user  │ password     │\n├───────┼──────────────┤\n│ admin │ [REDACTED:password] │\n└───────┴──────────────┘",
		"╔════╦═════════════════╗\n║ id ║ api_key         ║\n╠════╬═════════════════╣\n║ 1  ║ Xb7Kq2Lm9Wz4Rt8Yp3 ║\n╚════╩═════════════════╝": "╔════╦═════════════════╗\n║ id ║ api_key         ║\n╠════╬═════════════════╣\n║ 1  ║ [REDACTED:generic-secret] ║\n╚════╩═════════════════╝",
	} {
		if out, _ := r.Redact(in); out != want {
			t.Errorf("%q\n → %q\nwant %q", in, out, want)
		}
	}
	keepsAll(t, r, []string{
		"| user | password |\n| admin | see the vault |",
		"| user | password |\n| this line | has | more cells |",
		"| user | password |\nadmin | Hunter2pass!",
		" id | password_hash\n----+--------------\n  1 | Zr4Bx7kQ2Lm9",
		"---\npassword | set in CI\n---",
		" user  │ password\n───────┼──────────────\n admin │ see the vault",
		"├── password\n│   └── README.md\n└── token.go",
	})
}

// TestFramelessPipeTables: a table whose cells "|" splits with no "|" at
// either end and no border under its header (sqlite3's and `psql -A`'s
// output, notes aligned by hand) loses its password or token cells (the
// re-check saw "alice | hunter2" kept); shell pipelines, which look the
// same, stay, and a row that is one ends the table.
func TestFramelessPipeTables(t *testing.T) {
	r := newRedactor(t)
	redactsTo(t, r, map[string]string{
		"user  | password\nalice | hunter2":                                         "user  | password\nalice | [REDACTED:password]",
		"id|user|password\n1|alice|Hunter2pass!\n2|bob|Zr4Bx7kQ2Lm9":                "id|user|password\n1|alice|[REDACTED:password]\n2|bob|[REDACTED:password]",
		"service | API key | owner\ndeploy | Xb7Kq2Lm9Wz4Rt8Yp3Nc6Vd | ops":         "service | API key | owner\ndeploy | [REDACTED:generic-secret] | ops",
		"ユーザー | パスワード\nadmin | Vh7rQp2Lx9Kz":                                        "ユーザー | パスワード\nadmin | [REDACTED:password]",
		"user | password\nalice | Hunter2pass!\ncat notes.txt | grep Zr4Bx7kQ2Lm9x": "user | password\nalice | [REDACTED:password]\ncat notes.txt | grep Zr4Bx7kQ2Lm9x",
		// Accounts named like commands are values, not a pipeline's stages.
		"id | service | password\n1 | mysql | Hunter2pass!\n2 | git | Zr4Bx7kQ2Lm9": "id | service | password\n1 | mysql | [REDACTED:password]\n2 | git | [REDACTED:password]",
		"env | password\ntest | Hunter2pass!":                                       "env | password\ntest | [REDACTED:password]",
	})
	keepsAll(t, r, []string{
		"cat x | grep password\nenv | sort",
		"env | grep token\nhistory | tail -n 50",
		"ps aux | grep secret\ncat app.log | awk '{print $2}'",
		"echo $TOKEN | base64\nfoo | bar",
		"printenv | grep -i api_key\nkubectl get secrets | grep token",
		"docker logs api | grep password\nsort -u | head",
		"user | password\ncat secrets.txt | grep Hunter2pass",
		"user | password\nalice | see the vault",
		"user | password\nadmin | ${ADMIN_PASSWORD}",
		"model | tokens\ngpt-4o | 128000",
		"a | b | token\nx | y",
		// Code whose "|" sits inside brackets, after a real header.
		"user | password\n$x =~ /^(on|off)$/",
		"service | token\nL<foo|http://example.com/>",
		"user | password\nDEB_HOST_ARCH_OS => INFO_HOST_ARCH_NAME | INFO_HOST_ARCH_TUPLE,",
		// A row of a bordered table that names a secret column is no
		// header of a frameless one (base-passwd's README).
		"    uid   | name   | description\n    ------+--------+------------\n    64017 | qmailp | qmail pw\n    64045 | ceph   | ceph object storage",
	})
}
