package redact

import (
	"regexp"
	"strings"
)

// The rules below catch secrets in the forms the fourth attack run found
// still readable: .env lines and flags that name a password "pass" or
// "pw", secrets assigned to names gitleaks' generic rule passes over, two
// token formats, cookies, prose without "is", and Japanese names of
// secrets other than パスワード.

// quotedOr is the value part shared by the assignment rules: a quoted
// value whole, or an unquoted one up to a space, quote or separator.
func quotedOr(unquoted string) string {
	return `(?:\\?"([^"\\\n]{4,1000})\\?"|\\?'([^'\\\n]{4,1000})\\?'|(` + unquoted + `))`
}

// envPassRule catches a password whose name says "pass" or "pw" as a
// word of an identifier (DB_PASS, SMTP_PASS, mysql-pw) or alone with "="
// (pass=…, pw=… in a query string or .env file), whatever the value
// looks like, except a flag word (pass=true). "PASS:" alone is what test
// runners print (--- PASS: TestX): only a lower-case "pass:" counts, by
// passColonRule.
var envPassRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)(?:\b(?:[a-z0-9]+[_-])+(?:pass|pw)\b["']?\s*(?::=|=|:)|\b(?:pass|pw)\s*=)\s*` +
		quotedOr(`[^\s"'\x60,;&]{4,200}`)),
	may:       func(t text) bool { return t.has("pass") || t.has("pw") },
	secretish: notAFlagWord,
}

// passColonRule is "pass: VALUE" in lower case (a YAML file, a note),
// when the value looks made: "tests pass: 42/42" stays.
var passColonRule = rule{
	id:        "password",
	re:        regexp.MustCompile(`\b(?:pass|pw):\s*` + quotedOr(`[^\s"'\x60,;&]{4,200}`)),
	may:       func(t text) bool { return strings.Contains(t.raw, "pass:") || strings.Contains(t.raw, "pw:") },
	secretish: madeNotWritten,
}

// notAFlagWord rejects the values a switch named "pass" takes.
func notAFlagWord(v string) bool {
	switch strings.ToLower(strings.Trim(v, `"'`)) {
	case "true", "false", "yes", "no", "none", "null", "nil", "empty", "skip", "required", "optional":
		return false
	}
	return true
}

// flagPasswordRule catches a password given to a command-line flag with
// a space (--password VALUE, --pass VALUE; "--password=…" is
// passwordRule's), and to the registry logins' -p (docker login -u me -p
// VALUE). A value starting with "-" is the next flag.
var flagPasswordRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?:(?:^|[\s"'])--(?:password|passwd|pass|pw)\s+|\b(?:docker|podman|nerdctl|buildah|skopeo|helm(?:\s+registry)?)\s+login\b[^\n]{0,200}?\s-p\s+)` +
		`(?:'([^'\n]{3,200})'|"([^"\n]{3,200})"|([^\s'"\x60-][^\s'"\x60]{2,200}))`),
	may: func(t text) bool { return t.has("--pass") || t.has("--pw") || t.has("login") },
}

// secretAssignRule catches a value assigned to a name that says it is a
// secret (SECRET_KEY, APP_KEY, client_secret, api-key, auth_token) when
// the value looks made: gitleaks' generic rule wants its own alphabet and
// entropy (Django's 'django-insecure-…' and Laravel's base64:… pass it
// by). Code reading the value from elsewhere (os.environ[…], ${…}) stays.
var secretAssignRule = rule{
	id: "generic-secret",
	re: regexp.MustCompile(`(?i)\b[a-z0-9_.-]*?(?:secret|token|api[_-]?key|app[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key)[a-z0-9_-]*\b` +
		`["']?\s*(?::=|=>|=|:)\s*` + quotedOr(`[^\s"'\x60,;()\[\]{}<>$%][^\s"'\x60,;()\[\]{}<>]{7,1000}`)),
	may:       func(t text) bool { return t.has("secret") || t.has("token") || t.has("key") },
	secretish: madeNotWritten,
	fallback:  true,
}

// tokenFormatRule catches secrets known by their shape that gitleaks'
// rules leave: Stripe's webhook signing secrets and Discord webhook URLs
// (the token after the id).
var tokenFormatRule = rule{
	id: "token",
	re: regexp.MustCompile(`\b(whsec_[A-Za-z0-9+/=]{20,})|\bdiscord(?:app)?\.com/api/webhooks/[0-9]{5,30}/([A-Za-z0-9_-]{30,200})`),
	may: func(t text) bool {
		return strings.Contains(t.raw, "whsec_") || strings.Contains(t.raw, "/api/webhooks/")
	},
}

// cookieRule catches a Cookie or Set-Cookie header's value: a session
// cookie is a credential as much as a bearer token is.
var cookieRule = rule{
	id:  "cookie",
	re:  regexp.MustCompile(`(?i)\b(?:set-)?cookie["']?\s*:\s*["']?([^\s=;"']{1,100}=[^\n"']{8,1000})`),
	may: func(t text) bool { return t.has("cookie") },
}

// jaSecretRule catches a secret told in Japanese under a name other than
// パスワード's rules cover (APIキーは…, トークン：…, 秘密鍵は…), and パスワード
// followed by the value with only a space: the value must look made, so
// "トークンは有効期限切れ" (has expired) stays.
var jaSecretRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?:API\s?キー|ＡＰＩキー|アクセストークン|トークン|シークレット(?:キー)?|秘密鍵|認証情報|` + jaPasswordWords + `)` +
		`[\s\x{00a0}\x{3000}]*(?:(?:は|が)[、,]?|:=|=|:|＝|：)?[\s\x{00a0}\x{3000}]*` +
		`(?:["'「]([!-~]{6,200})["'」]|([!-~]{6,200}))`),
	may: func(t text) bool {
		s := t.raw
		return strings.Contains(s, "キー") || strings.Contains(s, "トークン") || strings.Contains(s, "シークレット") ||
			strings.Contains(s, "秘密鍵") || strings.Contains(s, "認証情報") || mayHoldJAPassword(t)
	},
	secretish: madeNotWritten,
}
