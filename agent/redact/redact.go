// Package redact removes secrets from text before aoi stores or sends it.
// It combines gitleaks' built-in rules (used as a library), a PEM private-key
// rule that also catches diff-prefixed and truncated blocks, and patterns the
// owner configures. Each secret becomes "[REDACTED:<rule-id>]".
package redact

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/internal/kana"
	"github.com/aoi-protocol/aoi/internal/termtext"
	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// Pattern is an owner-defined secret pattern (Go RE2 syntax). When the
// regex has capture groups, only the first group that took part in the
// match is redacted.
type Pattern struct {
	ID    string
	Regex string
}

// Finding is one secret that was removed. It never holds the secret itself.
type Finding struct {
	RuleID string
	Start  int // byte offset in the input
	End    int
}

// Redactor removes secrets. It is safe for concurrent use; build one and
// share it, because building gitleaks' detector takes tens of milliseconds.
type Redactor struct {
	detector *detect.Detector
	// lite is detector without gitleaks' generic-api-key rule, whose
	// regular expression costs more than all the others together. It scans
	// only text that rule provably cannot match (see mayHoldGenericKey).
	lite *detect.Detector
	// split is lite taken apart rule by rule, so one call runs only the
	// rules whose keywords the text holds (nil when lite is nil).
	split *splitDetector
	rules []rule // built-in extras first, then custom patterns
}

// genericRuleID is gitleaks' catch-all rule for key = value assignments.
const genericRuleID = "generic-api-key"

type rule struct {
	id string
	re *regexp.Regexp
	// may, when set, is a cheap necessary condition for a match: text it
	// rejects skips the expression.
	may func(t *text) bool
	// secretish, when set, must accept the redacted value: for rules on
	// prose ("the password is …"), where a plain word follows as often as
	// a secret does.
	secretish func(string) bool
	// whole, when set, must accept the whole match, what led to the value
	// too ("ssh-rsa " before a key body: a public key).
	whole func(string) bool
	// inText, when set, must accept the value where it stands in the text
	// (s[start:end]): for what only the words after it tell ("password:
	// must contain a digit" goes on describing one).
	inText func(s string, start, end int) bool
	// fallback marks a broad rule whose finding gives way to any other
	// rule's that overlaps it, which names the secret better
	// (github-pat rather than generic-secret).
	fallback bool
	// anchor, when set, tries re only where a match can start (anchors.go;
	// New derives it).
	anchor *anchoring
	// find, when set, stands for re: it returns the matches as
	// re.FindAllStringSubmatchIndex would (the whole match, then the
	// value's), for a rule no expression can say (a table's column).
	find func(t *text) [][]int
	// acrossLines marks a rule whose secret is written on a line after
	// its name by design (a YAML block scalar, a table's cell); any other
	// rule's value found there must pass nextLineValue.
	acrossLines bool
}

// matches is ru.re.FindAllStringSubmatchIndex over t, tried only where a
// match can start when the rule has an anchoring (and folding kept the
// text's offsets).
func (ru *rule) matches(t *text) [][]int {
	if ru.find != nil {
		return ru.find(t)
	}
	if ru.anchor == nil || len(t.folded) != len(t.raw) {
		return ru.re.FindAllStringSubmatchIndex(t.raw, -1)
	}
	return ru.anchor.matches(t)
}

// hostAfterAt is "@host.domain" then a port, a path or the end: what
// follows a URL's credentials.
var hostAfterAt = regexp.MustCompile(`@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+(?:[:/]|$)`)

// isSpace is \s in Go's expressions.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

// pemRule matches a private-key block, tolerating diff prefixes ("+", "-",
// " ") on its lines, and a block whose END line was cut off (bounded output)
// up to the end of the text.
var pemRule = rule{
	id: "private-key",
	re: regexp.MustCompile(`(?s)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|\z)`),
}

// awsKeyRule catches AWS access key ids even when they fall outside the
// base32 alphabet gitleaks' stricter rule requires (hand-made or mangled
// keys still look like credentials to a reader).
var awsKeyRule = rule{
	id: "aws-access-token",
	re: regexp.MustCompile(`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`),
	may: func(t *text) bool {
		return t.hasRaw("A3T") || t.hasRaw("AKIA") || t.hasRaw("ASIA") ||
			t.hasRaw("ABIA") || t.hasRaw("ACCA")
	},
}

// awsSecretRule catches a 40-character AWS secret access key written in
// prose near the words "aws" and "secret" ("the aws secret for the bucket
// is …") or as the variable (AWS_SECRET_ACCESS_KEY=…, where "aws" is
// followed by an underscore, not a word boundary): gitleaks' generic rule
// wants an assignment and skips values holding EXAMPLE, and the key alone
// has no prefix to recognise it by.
var awsSecretRule = rule{
	id: "aws-secret-key",
	re: regexp.MustCompile(`(?i)(?:(?:(?:\b|_)aws(?:\b|_)|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b)[^\n]{0,40}?secret|\b(?:AKIA|ASIA)[A-Z0-9]{16}\b)[^\n]{0,40}?(?:^|[^A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
	// Every match holds "aws", or an access key id ("key AKIA… secret
	// wJalr…" names no AWS), under (?i), which folds "a" and "w" only to
	// their ASCII capitals and "s" also to U+017F (ſ).
	may: func(t *text) bool { return t.has("aws") || t.has("akia") || t.has("asia") },
}

// passwordRule catches a password assignment whatever its value looks
// like: gitleaks' generic rule wants an entropic value of its own
// character set ("Hunter2SuperSecret!9" and "Tr0ub4dor&3xyzzy" are not),
// and skips a match whose text holds the word "password" ("creds:
// password=…"). The name may be shortened (pwd, psw, pswd) and carry a
// prefix (db_password, dbPassword) or a suffix (password2,
// password_hash); spaces around the operator may be non-breaking. Only the value is redacted: a quoted one whole (up to
// 1000 characters), spaces included, an unquoted one up to a space,
// quote, comma or semicolon (backslashes included). Quotes may be escaped
// (\"), as they are inside a JSON string.
var passwordRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b[\w-]*?(?:p[a@4]ssw[o0]rd|passwd|pass\s?phrase|pwd|pword|pswr?d|psw)(?:\d+|[_-]\w+)?\b(?:\\?["'\x60])?` + labelExtras +
		`[\s\x{00a0}\x{3000}]*(?::=|=>|=|:|＝|：)[\s\x{00a0}\x{3000}]*` + markdownEmphasis +
		`(?:\\?"([^"\\\n]{4,1000})\\?"|\\?'([^'\\\n]{4,1000})\\?'|` + entityQuoted + `|([^\s\x{00a0}"'\x60,;]{4,}))`),
	// Every match holds "pass", "pwd", "psw" (pswd, pswrd) or an
	// obfuscation of "password" under (?i).
	may: func(t *text) bool {
		return t.has("pass") || t.has("pwd") || t.has("pword") || t.has("psw") || obfuscatedPassword(t)
	},
	// password: ${DB_PASSWORD} names where the password is; "password:
	// string" declares it.
	secretish: func(v string) bool {
		return notAVariable(v) && !codeReference(v) && !commandSubstitution(v) && !codeLiteral(v)
	},
	inText: func(s string, start, end int) bool { return !describing(s, start, end) },
	whole:  func(m string) bool { return !namesAFile(m) && !nsswitchSources(m) && !codeName(m) },
}

// namesAFile reports whether the name passwordRule's match m starts with
// says its value is a file's name or path: "password_file:
// basic-auth-password", "passwordPath = …". The file holds the password;
// its name is none.
func namesAFile(m string) bool {
	end := 0
	for end < len(m) && (isWordByte(m[end]) || m[end] == '-') {
		end++
	}
	name := strings.ToLower(m[:end])
	for _, suffix := range []string{"file", "filename", "path", "dir"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// nsswitchSources reports whether m is nsswitch.conf's "passwd:" line,
// where the values are the sources user names are looked up in
// ("passwd: compat systemd"), not a password.
func nsswitchSources(m string) bool {
	name, value, ok := strings.Cut(m, ":")
	fields := strings.Fields(value)
	return ok && name == "passwd" && len(fields) > 0 && nsswitchSource[fields[len(fields)-1]]
}

// nsswitchSource are the sources nsswitch.conf names.
var nsswitchSource = setOfWords(`files compat systemd nis nisplus ldap sss winbind db dns hesiod extrausers cache mymachines myhostname resolve`)

// describing reports whether the unquoted word s[start:end] opens a
// description: a word descriptions start with ("must", "should",
// "minimum", "cannot", "your"), and another word after it on its line.
// "password: must contain a digit" says what a password must be, and
// "password: mustang99" or "password: never" alone is one.
func describing(s string, start, end int) bool {
	if start > 0 && strings.IndexByte(`"'`+"`;", s[start-1]) >= 0 {
		return false // quoted: "must be" is the password
	}
	if !descriptionStarts[strings.ToLower(s[start:end])] {
		return false
	}
	i := end
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i > end && i < len(s) && isAlnum(s[i])
}

// descriptionStarts are the words of four letters or more (a shorter one
// is no value of passwordRule's) a description of a password starts with.
var descriptionStarts = setOfWords(`must should shall will would could cannot can't might needs need requires require required
contains contain minimum maximum your this that these never only uses used enter type length between with without when which
invalid incorrect wrong expired missing empty unknown leave same been have from also here does more less least longer shorter field`)

// passwordJARule is passwordRule for Japanese text: パスワード (also in
// half-width katakana), 暗証番号, or "password" in full-width letters,
// then "は" or an operator (ASCII or full-width), then the value up to a
// space or punctuation.
var passwordJARule = rule{
	id: "password",
	re: regexp.MustCompile(`(?:` + jaPasswordWords + `)[\s\x{00a0}\x{3000}]*(?:(?:は|が)[、,]?|:=|=|:|＝|：)[\s\x{00a0}\x{3000}]*` +
		`(?:["'「]([^"'」\n]{4,1000})["'」]|([^\s\x{00a0}\x{3000}"'「」、。，．,;]{4,}))`),
	may: mayHoldJAPassword,
	// "パスワードはbcryptでハッシュ化", "パスワード: 8文字以上" go on in
	// Japanese: prose about the password, not one. Kana with digits and
	// no kanji (ほしぞら７７) is a password made of a word.
	secretish: func(v string) bool { return !kana.HasJapanese(v) || kanaWithDigits(v) },
}

// passwordJAQuotedRule is passwordJARule's quoted value made of kana
// alone: 「ほしぞら」 after パスワードは is the password, a word as it may be
// (unquoted, kana goes on as prose: パスワードはこちら).
var passwordJAQuotedRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?:` + jaPasswordWords + `)[\s\x{00a0}\x{3000}]*(?:(?:は|が)[、,]?|:=|=|:|＝|：)[\s\x{00a0}\x{3000}]*` +
		`["'「『]([^"'」』\n]{2,1000})["'」』]`),
	may: mayHoldJAPassword,
	secretish: func(v string) bool {
		return !strings.ContainsFunc(v, func(r rune) bool { return unicode.Is(unicode.Han, r) })
	},
}

// passwordCJKRule is a password named in Chinese or Korean: 密码是 …,
// 口令：…, 비밀번호는 … (Japanese has its own rules above).
var passwordCJKRule = rule{
	id:        "password",
	re:        regexp.MustCompile(`(?:密码|密碼|口令|비밀번호)\s*(?:是|为|為|:|：|는|은|=)?\s*["'「]?([^\s"'」，。,.;；]{4,100})`),
	may:       func(t *text) bool { return t.hasRaw("密") || t.hasRaw("口令") || t.hasRaw("비밀번호") },
	secretish: func(v string) bool { return (madeNotWritten(v) || passphraseLike(v)) && notAVariable(v) },
}

// basicAuthRule is the password given to a basic-auth call in code:
// HTTPBasicAuth('admin', '…'), req.SetBasicAuth("ci", "…").
var basicAuthRule = rule{
	id:        "password",
	re:        regexp.MustCompile(`(?i)\b\w*auth\w*\(\s*["'][^"'\n]{1,100}["']\s*,\s*["']([^"'\n]{4,200})["']`),
	may:       func(t *text) bool { return t.has("auth") && t.has("(") && authCallOpens(t.folded) },
	secretish: func(v string) bool { return (madeNotWritten(v) || passphraseLike(v)) && notAVariable(v) },
}

// authCallOpens reports whether some "auth" in lower is in a name that a
// parenthesis and a quote follow (the rule's `\w*auth\w*\(\s*["']`): a
// commit naming auth/ files or "auth: …" skips the expression, which Go
// tries at every position of the text.
func authCallOpens(lower string) bool {
	for i := 0; ; {
		j := strings.Index(lower[i:], "auth")
		if j < 0 {
			return false
		}
		p := i + j + len("auth")
		for p < len(lower) && isWordByte(lower[p]) {
			p++
		}
		if p < len(lower) && lower[p] == '(' {
			p++
			for p < len(lower) && isSpace(lower[p]) {
				p++
			}
			if p < len(lower) && (lower[p] == '"' || lower[p] == '\'') {
				return true
			}
		}
		i += j + 1
	}
}

// kanaWithDigits reports whether v, less a closing です or だ, is kana
// and digits (ASCII or full-width) with no kanji: a password made of a
// Japanese word, where prose about a password names things in kanji
// (8文字以上, 変更済み).
func kanaWithDigits(v string) bool {
	for _, end := range []string{"です", "でした", "だ"} {
		v = strings.TrimSuffix(v, end)
	}
	digits := false
	for _, r := range v {
		switch {
		case unicode.Is(unicode.Han, r):
			return false
		case unicode.IsDigit(r):
			digits = true
		}
	}
	return digits && utf8.RuneCountInString(v) >= 4
}

// passwordChangeJARule catches a new password in "パスワードを X に変更"
// (changed / set / updated the password to X): quoted, or unquoted in
// ASCII or full-width letters, so "パスワードを安全なものに変更" (to a safe
// one) stays.
var passwordChangeJARule = rule{
	id: "password",
	re: regexp.MustCompile(`(?:` + jaPasswordWords + `|` + jaSecretWords + `)[\s\x{00a0}\x{3000}]*を[\s\x{00a0}\x{3000}]*` +
		`(?:["'「]([^"'」\n]{4,1000})["'」]|([!-~\x{ff01}-\x{ff5e}]{4,200}?))[\s\x{00a0}\x{3000}]*[にへ](?:変更|変え|設定|更新|し)`),
	may: func(t *text) bool { return mayHoldJAPassword(t) || mayHoldJASecret(t) },
}

// jaPasswordWords are the names of a password in Japanese text.
const jaPasswordWords = `パスワード|ﾊﾟｽﾜｰﾄﾞ|暗証番号|(?i:ｐａｓｓ(?:ｗｏｒｄ|ｗｄ)?)`

// mayHoldJAPassword is the Japanese rules' prefilter. (strings.ContainsAny
// with non-ASCII characters walks the text rune by rune: a microsecond on
// every peer body.)
func mayHoldJAPassword(t *text) bool {
	return t.hasRaw("パスワード") || t.hasRaw("ﾊﾟｽﾜｰﾄﾞ") || t.hasRaw("暗証番号") ||
		t.hasRaw("ｐ") || t.hasRaw("Ｐ")
}

// urlCredentialRule catches the password in a URL's user information
// (postgres://app:s3cret@db/prod, https://deploy:TOKEN@git.example.com):
// no assignment names it, and gitleaks has no rule for it. The user name
// stays, so the reader still sees which account it was.
var urlCredentialRule = rule{
	id: "url-credential",
	// The user may be empty (redis://:PASSWORD@host); the password runs
	// to the last "@" before the host, so one holding a raw "@" is taken
	// whole; the slashes may be JSON-escaped (https:\/\/…).
	//
	// A raw "/" in the password (pa/ss@db, s3cr3t9/x@db) is taken too,
	// unless what comes before it is all digits: that is a port and a
	// path (host:8443/users/@me), not a password.
	re: regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]{0,20}:\\?/\\?/[^\s/:@"'<>\x60\\]{0,256}:` +
		`([^\s/"'<>\x60\\]{0,500}[^\s/"'<>\x60\\0-9][^\s/"'<>\x60\\]{0,500}(?:/[^\s/"'<>\x60\\@]{1,200}){1,4}|[^\s/"'<>\x60\\]{1,1000})@`),
	may: func(t *text) bool {
		return (t.hasRaw("://") || t.hasRaw(`:\/\/`)) && strings.ContainsRune(t.raw, '@')
	},
	// A user redacted already (https://[REDACTED:url-credential]@host,
	// tokenUserRule's) is no user and password: redacting twice gives
	// what once did.
	whole: func(m string) bool {
		_, user, _ := strings.Cut(strings.ReplaceAll(m, `\/`, "/"), "//")
		return !strings.HasPrefix(user, "[REDACTED:")
	},
}

// labelExtras is what may stand between a secret's name and what follows:
// a parenthesis ("Password (prod): …") and markdown emphasis closing
// around the label ("**Password**: …").
const labelExtras = `(?:\s*\([^)\n]{1,30}\))?(?:\*{1,2}|_{1,2})?`

// markdownEmphasis is emphasis closing after the operator ("**Password:**
// …").
const markdownEmphasis = `(?:(?:\*{1,2}|_{1,2})[\s\x{00a0}]*)?`

// obfuscatedPassword reports whether t names a password with a digit or
// symbol for a letter (p@ssword, passw0rd, p4ssword).
func obfuscatedPassword(t *text) bool {
	return t.has("p@ss") || t.has("p4ss") || t.has("ssw0rd")
}

// secretIsRule catches a secret told in prose: "the admin password is
// XsiVpzz63Ffk", "Password is: letmein999", "the password for prod is now
// …", "the api token was changed to …", "log in with password Lj2…". The value must look made rather
// than written (madeNotWritten), so "the password is required", "the
// token is JWT-based" and "set the secret to v1.2.3-rc1" stay.
var secretIsRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b(?:pass\s?word|p[a@4]ssw[o0]rd|pword|passwd|pass\s?phrase|passcode|pwd|pw|pswr?d|psw|pin|token|api[ _-]?key|secret(?:[ _-]?key)?|credentials?|creds|` +
		`master[ _-]?key|access[ _-]?key|(?:totp|otp|2fa|mfa)[ _-]?(?:seed|secret)|(?:recovery|backup)[ _-]?codes?|wi-?fi(?:[ _-]?(?:pass\s?word|passphrase|key))?|` +
		`passwort|kennwort|mot de passe|contrase[ñn]a|senha|wachtwoord)s?` + labelExtras +
		`(?:\s+(?:for|of|on)(?:\s+[^\s(]{1,40}){1,3}(?:\s*\([^)\n]{1,40}\))?)?` +
		`(?:\s+(?:is|are|was|were|will be|to|ist|lautet|est|es|é|è|changed to|set to|reset to)(?:\s+(?:now|still|set to|changed to|reset to))?(?:,[^,\n]{1,30},)?)?` +
		`(?:[\s\x{3000}]*(?::|：|＝|->|→|=>|⇒|—|–|\|)[\s\x{3000}]*|[\s\x{3000}]+)` + markdownEmphasis +
		"(?:\"([^\"\\n]{6,200})\"|'([^'\\n]{6,200})'|`([^`\\n]{6,200})`|" + entityQuoted + "|([^\\s\"'`,;|。、]{6,200}))"),
	// An unquoted value ends at a space or at Japanese punctuation (。、
	// end a sentence or clause as a space does): the secretary's summary
	// "(refresh tokens 75%)。未完了: なし" read "75%)。未完了:" as a token.
	// Every match names one of the secrets ("is" and the like may be
	// left out: "with password Lj2…", "credentials are admin:Uo09…").
	// "wifi password" is one name: read as "wifi" then the value
	// "password", it hid the password after it.
	may: func(t *text) bool {
		return t.has("pass") || t.has("pwd") || t.has("pw") || t.has("psw") || t.has("pin") || t.has("token") || t.has("key") || t.has("secret") || t.has("cred") ||
			t.has("wort") || t.has("contrase") || t.has("senha") || t.has("wachtwoord") || t.has("pword") || obfuscatedPassword(t) ||
			t.has("seed") || t.has("code") || t.has("wifi") || t.has("wi-fi")
	},
	// A short value mixing letters and digits (hunter2) after a secret's
	// name and "is" is one too, unless a technical name (sha256).
	secretish: func(v string) bool {
		if codeReference(v) || hostAfterAt.MatchString(v) || markdownLink(v) || hexNumber(v) || flagWithPath(v) {
			// Code, or a URL's credential and the host after it
			// (token:…@github.com/acme/app.git): url-credential takes
			// the credential alone, and the host and path stay.
			return false
		}
		v = strings.TrimRight(withoutTags(v), ".!?:)")
		return (madeNotWritten(v) || passphraseLike(v) || shortMade(v)) && notAVariable(v) && !techNameRE.MatchString(v) &&
			!versionRE.MatchString(v)
	},
	inText: func(s string, start, end int) bool { return !afterTypeWord(s, start) && !codeExpression(s, start, end) },
}

// htmlTagRE is an HTML tag, opening or closing ("<code>", "</p>").
var htmlTagRE = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9]*>`)

// withoutTags is v less its HTML tags: documentation's "secret key for
// <code>Hmac</code>.</p>" is judged by "Hmac.", and a password shown in
// bold (<b>Xk39aaPq7Lm2</b>) is still one.
func withoutTags(v string) string {
	if strings.IndexByte(v, '<') < 0 {
		return v
	}
	return htmlTagRE.ReplaceAllString(v, "")
}

// hexNumber reports whether v is a 32-bit number written in hex, eight
// digits or fewer ("Change Token: 0x00000001", a register's value). A
// longer one (0x and 64 digits, a wallet's private key) is still a
// secret.
func hexNumber(v string) bool {
	digits, ok := strings.CutPrefix(strings.TrimRight(v, ".,)"), "0x")
	return ok && len(digits) >= 1 && len(digits) <= 8 && strings.Trim(digits, "0123456789abcdefABCDEF") == ""
}

// flagWithPath reports whether v is a command-line flag given a path or
// nothing ("--path=/path/to/dir/", "--no-password"): what a command
// takes, not a secret. A flag given another value (--password=Xk39…)
// is judged by that value as before.
func flagWithPath(v string) bool {
	flag, ok := strings.CutPrefix(v, "--")
	if !ok || flag == "" || !isAlnum(flag[0]) {
		return false
	}
	_, value, hasValue := strings.Cut(flag, "=")
	return !hasValue || pathLike(value)
}

// afterTypeWord reports whether the word before s[start:] is "type" or
// "types": "tokens of type token_type_string_literal" names a type.
func afterTypeWord(s string, start int) bool {
	before := strings.TrimRight(s[max(0, start-8):start], " \t")
	lower := strings.ToLower(before)
	if !strings.HasSuffix(lower, "type") && !strings.HasSuffix(lower, "types") {
		return false
	}
	word := strings.TrimSuffix(strings.TrimSuffix(lower, "s"), "type")
	return word == "" || !isWordByte(word[len(word)-1])
}

// markdownLinkRE is a markdown link or a link reference's label, perhaps
// in parentheses: "[#1160](https://…)", "([@bot](https://…))",
// "[set-up]:". Changelogs put one after every line about credentials or
// tokens, and the brackets and the URL made it look made.
var markdownLinkRE = regexp.MustCompile(`^\(?\\?\[[^\]\n]*\\?\](?:\(|:)`)

// markdownLink reports whether v starts with a markdown link: text that
// links somewhere, no secret. (The first byte is checked first: secretIsRule
// asks about every word after "token" in a peer's body.)
func markdownLink(v string) bool {
	return v != "" && strings.IndexByte(`([\`, v[0]) >= 0 && markdownLinkRE.MatchString(v)
}

// passphraseRule catches a password told in prose that is words joined
// by dashes or underscores after the bare name "pass" too: "the pass is
// Zr4-Bx7-kQ2-Lm9". secretIsRule takes such a value after a password's
// full name ("the password is hunter2-hunter2") but not after "pass",
// which it leaves out because a test runner's "pass" is followed by
// made-looking text ("pass 42/42"); here "is" must come between, and the
// value must be passphraseLike.
var passphraseRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b(?:pass\s?word|passwd|passphrase|passcode|pass|pwd|pw)s?(?:\s+(?:for|of|on)\s+\S{1,40})?` +
		`\s+(?:is|are|was|were)(?:\s+(?:now|still|set to|changed to|reset to))?\s*:?\s*["'\x60]?` +
		`([a-z0-9]+(?:[-_][a-z0-9]+){1,7})\b`),
	may:       func(t *text) bool { return t.has("pass") || t.has("pw") },
	secretish: passphraseLike,
}

// passphraseLike reports whether v, words joined by dashes or
// underscores, reads as a passphrase rather than a description: two
// pieces mixing letters and digits (hunter2-hunter2), or three or more
// pieces that all are such pieces, numbers of two digits or more, or words
// of four letters or more other than the ones prose describes a password
// with, two of them not numbers (Kangaroo-Jump-88 is one; SHA-256,
// auto-generated-daily, bcrypt-hashed-and-salted stay).
func passphraseLike(v string) bool {
	pieces := strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' })
	mixed, words, numbers := 0, 0, 0
	for _, p := range pieces {
		letters := strings.IndexFunc(p, unicode.IsLetter) >= 0
		digits := strings.IndexFunc(p, unicode.IsDigit) >= 0
		switch {
		case letters && digits:
			mixed++
		case letters && len(p) >= 4 && !describesAPassword[strings.ToLower(p)]:
			words++
		case digits && len(p) >= 2: // Kangaroo-Jump-88
			numbers++
		}
	}
	return mixed >= 2 || (len(pieces) >= 3 && mixed+words+numbers == len(pieces) && mixed+words >= 2)
}

// describesAPassword are words prose uses about a password, not in one.
var describesAPassword = map[string]bool{
	"auto": true, "generated": true, "based": true, "encoded": true, "hashed": true, "salted": true,
	"encrypted": true, "protected": true, "sensitive": true, "insensitive": true, "case": true,
	"only": true, "time": true, "random": true, "rotated": true, "managed": true, "stored": true,
	"required": true, "optional": true, "length": true, "character": true, "characters": true,
	"long": true, "strong": true, "weak": true, "default": true, "never": true, "expires": true,
}

// madeNotWritten reports whether v looks like a made-up secret rather
// than words: at least 8 characters, and two of lower-case letters,
// capitals and digits (or a symbol like ! @ # $). Letters alone are a word
// or camelCase ("HttpOnly"), digits alone a number; a hyphen or slash in
// a short value joins words ("JWT-based", "SHA-256", "invalid/expired").
// Trailing sentence punctuation does not count.
func madeNotWritten(v string) bool {
	v = strings.TrimRight(v, ".!?:)")
	if len(v) < 20 && strings.ContainsAny(v, "-/") {
		// Words joined ("JWT-based", "SHA-256") unless one piece is made
		// itself (sk-abc123def456ghi).
		for _, p := range strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '/' }) {
			if len(p) >= 8 && madeNotWritten(p) {
				return true
			}
		}
		return false
	}
	if len(v) < 8 {
		return false
	}
	var lower, upper, digit, symbol bool
	for _, r := range v {
		switch {
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune("!@#$%^&*+=~|<>{}[]", r):
			symbol = true
		}
	}
	classes := 0
	for _, b := range []bool{lower, upper, digit} {
		if b {
			classes++
		}
	}
	return classes >= 2 && digit || classes == 3 || (symbol && (lower || upper || digit))
}

// authHeaderRule catches the credential of an HTTP Authorization header
// pasted as it is (curl -H, a log line): gitleaks knows some tokens by
// their prefix, not an opaque bearer token or Basic credentials.
var authHeaderRule = rule{
	id:  "authorization-header",
	re:  regexp.MustCompile(`(?i)(?:\bauthorization["']?\s*[:=]\s*["']?(?:bearer|basic|token|digest|apikey|negotiate)\s+|--oauth2-bearer\s+["']?)([A-Za-z0-9._~+/=-]{8,})`),
	may: func(t *text) bool { return t.has("authorization") || t.has("oauth2-bearer") },
}

// cliPasswordRule catches a password given on a command line to the
// tools that take it as a flag: mysql -pSECRET (no space), sshpass -p SECRET.
var cliPasswordRule = rule{
	id: "password",
	re: regexp.MustCompile(`\b(?:(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{0,200}?\s-p(?:'([^'\n]{3,200})'|"([^"\n]{3,200})"|([^\s'"\x60]{3,200}))` +
		`|sshpass\b[^\n]{0,100}?\s-p\s*(?:'([^'\n]{3,200})'|"([^"\n]{3,200})"|([^\s'"\x60]{3,200}))` +
		`|\bSSHPASS=(?:'([^'\n]{3,200})'|"([^"\n]{3,200})"|([^\s'"\x60]{3,200}))` +
		// redis-cli -a PASS, zip -P PASS, 7z -pPASS, openssl … -k PASS /
		// -pass pass:PASS, htpasswd -b FILE USER PASS.
		`|\bredis-cli\b[^\n]{0,200}?\s-a\s+` + cliValue +
		`|\bzip\b[^\n]{0,200}?\s-P\s*` + cliValue +
		`|\b7z\b[^\n]{0,200}?\s-p` + cliValue +
		`|\bopenssl\b[^\n]{0,200}?\s-(?:k|pass)\s+(?:pass:)?` + cliValue +
		`|\bhtpasswd\b(?:\s+-\w+)*\s+-\w*b\w*(?:\s+-\w+)*\s+\S+\s+\S+\s+` + cliValue +
		// mongo/mongosh … -p PASS; echo PASS | sudo -S (shellFedRule
		// has the here-string and the process substitution).
		`|\bmongo(?:sh|dump|restore|export|import)?\b[^\n]{0,200}?\s-p\s*` + cliValue +
		`|\b` + echoed + `\s*\|\s*` + readsStdin + `)`),
	may: func(t *text) bool {
		return t.hasRaw("mysql") || t.hasRaw("mariadb") || t.hasRaw("sshpass") || t.hasRaw("SSHPASS") ||
			t.hasRaw("redis-cli") || t.hasRaw("zip") || t.hasRaw("7z") || t.hasRaw("openssl") || t.hasRaw("htpasswd") ||
			t.hasRaw("mongo") || t.hasRaw("sudo") || t.hasRaw("-stdin") || t.hasRaw("passphrase-fd")
	},
	secretish: func(v string) bool { return notAVariable(v) && !strings.HasPrefix(v, "-") && !commandSubstitution(v) },
}

// cliValue is a command-line value: quoted whole, or up to a space.
const cliValue = `(?:'([^'\n]{3,200})'|"([^"\n]{3,200})"|([^\s'"\x60]{3,200}))`

// echoed is echo or printf writing a value to its output: the value
// quoted (two characters are a password too: echo 'pw' | sudo -S), or up
// to a space, pipe or parenthesis; printf's format first, perhaps.
const echoed = `(?:echo|printf)(?:\s+-[neE]+)*(?:\s+(?:'%s(?:\\n)?'|"%s(?:\\n)?"))?\s+` +
	`(?:'([^'\n]{1,200})'|"([^"\n]{1,200})"|([^\s'"\x60|;&<>()]{2,200}))`

// readsStdin is a command reading a password from its input: sudo -S,
// docker login --password-stdin and its kind, passwd --stdin, gpg
// --passphrase-fd 0.
const readsStdin = `(?:sudo\b(?:\s+-\w+)*\s+-\w*S\b|[^\n|]{0,100}?--pass(?:word)?-stdin\b|passwd\b[^\n|]{0,40}?--stdin\b|[^\n|]{0,100}?--passphrase-fd\s+0\b)`

// shellFedRule is a secret a shell line feeds a command: through a
// process substitution after a flag that names it
// (--vault-password-file <(echo '…'), --from-file=password=<(printf …)),
// or a here-string to a command that reads it (sudo -S … <<< '…',
// docker login --password-stdin <<< '…'). A command in the substitution
// (<(pass show x)) and a variable stay.
var shellFedRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i:pass|secret|token|key|cred)[\w.=-]*(?:=|\s+)<\(\s*` + echoed + `\s*\)` +
		`|` + readsStdin + `[^\n<|]{0,200}?<<<\s*(?:'([^'\n]{1,200})'|"([^"\n]{1,200})"|([^\s'"\x60|;&<>()]{2,200}))`),
	may: func(t *text) bool {
		return (t.hasRaw("<(") && (t.hasRaw("echo") || t.hasRaw("printf"))) || t.hasRaw("<<<")
	},
	secretish: func(v string) bool { return notAVariable(v) && !strings.HasPrefix(v, "-") && !commandSubstitution(v) },
}

// commandSubstitution reports whether v is a shell command's output
// ($(cat ~/.pw), <(pass show x)): where a secret comes from, not one.
func commandSubstitution(v string) bool {
	return strings.HasPrefix(v, "$(") || strings.HasPrefix(v, "<(")
}

// tokenUserRule is a token given as a URL's user with no password:
// https://TOKEN@github.com/acme/app.git (urlCredentialRule wants the
// colon); the user must look random, so git@host and me@host stay.
var tokenUserRule = rule{
	id:  "url-credential",
	re:  regexp.MustCompile(`\bhttps?:(?://|\\/\\/)([A-Za-z0-9_.~-]{20,300})@`),
	may: func(t *text) bool { return (t.hasRaw("://") || t.hasRaw(`:\/\/`)) && strings.ContainsRune(t.raw, '@') },
	// 32 hex digits are a Sentry DSN's key, sentryDSNRule's.
	secretish: func(v string) bool {
		return (randomLooking(v) || tokenPrefixRE.MatchString(v)) && !(len(v) == 32 && hasRun(v, 32, &hexBytes))
	},
}

// tokenPrefixRE is a token named by its prefix (GitHub's, GitLab's).
var tokenPrefixRE = regexp.MustCompile(`^(?:gh[pousr]_|github_pat_|glpat-)`)

// yamlBlockSecretRule is a secret written as a YAML block scalar, the
// value on the line after its name: "password: |" then the value.
var yamlBlockSecretRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?mi)^[ \t-]*[\w.-]*(?:password|passwd|secret|token|api_?key|private_?key)[\w.-]*\s*:\s*[|>][-+]?[ \t]*\n[ \t]+(\S[^\n]{3,200})$`),
	may: func(t *text) bool {
		return (t.has("pass") || t.has("secret") || t.has("token") || t.has("key")) && (t.hasRaw(": |") || t.hasRaw(": >") || t.hasRaw(":|"))
	},
	secretish:   func(v string) bool { return notAVariable(v) && !strings.HasPrefix(v, "-----BEGIN") },
	acrossLines: true,
}

// text is what the rules' prefilters look at: the input, and the input as
// (?i) sees it, folded once per call for all of them, each with the set of
// its byte pairs when it is short (pairs.go).
type text struct {
	raw, folded             string
	rawPairs, foldedPairs   *pairSet
	rawPairSet, foldPairSet pairSet
	// hits is the gitleaks keywords found in it (splitDetector), kept
	// with the text so a pooled text's slice is reused.
	hits []keywordHit
}

// newText folds s (foldASCII) and, when it is short, pairs it.
func newText(s string) *text {
	t := new(text)
	t.init(s)
	return t
}

// textPool keeps texts for reuse: a text's two pair sets are a kilobyte
// to allocate and clear, and every peer request body is redacted
// (Redactor.spans borrows one per call).
var textPool = sync.Pool{New: func() any { return new(text) }}

// borrowText is newText from textPool; give it back with release once
// nothing reads it (the spans found keep no reference to it).
func borrowText(s string) *text {
	t := textPool.Get().(*text)
	t.init(s)
	return t
}

func (t *text) release() {
	t.raw, t.folded = "", "" // keep no caller's text alive in the pool
	textPool.Put(t)
}

func (t *text) init(s string) {
	t.raw = s
	folded, changed := foldASCII(s)
	t.folded = folded
	t.rawPairs, t.foldedPairs = nil, nil
	if len(s) <= maxPairedText {
		t.rawPairSet = pairSet{}
		t.rawPairSet.fill(t.raw)
		t.rawPairs, t.foldedPairs = &t.rawPairSet, &t.rawPairSet
		if changed {
			t.foldPairSet = pairSet{}
			t.foldPairSet.fill(t.folded)
			t.foldedPairs = &t.foldPairSet
		}
	}
}

// asciiFolds are the non-ASCII letters foldASCII takes to ASCII ones.
var asciiFolds = strings.NewReplacer("\u017f", "s", "\u212a", "k", "\u0130", "i")

// foldASCII folds s for every search of ASCII words in it: A–Z to a–z and
// the non-ASCII letters that (?i) or strings.ToLower take to ASCII ones:
// ſ (U+017F) to s, the Kelvin sign (U+212A) to k, İ (U+0130) to i. Every
// other byte stays, so the result holds an ASCII word wherever (?i) or
// strings.ToLower(s) would find it (and, for ſ and İ, a little more: a
// prefilter may say yes where the expression then says no). It reports
// whether anything changed; text without any of these is s itself.
func foldASCII(s string) (string, bool) {
	needs := false
	for i := 0; i < len(s) && !needs; i++ {
		needs = foldsByte[s[i]]
	}
	if !needs {
		return s, false
	}
	f := asciiFolds.Replace(s)
	b := []byte(f)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b), true
}

// foldsByte marks the bytes foldASCII changes or may change: A–Z, and
// the lead bytes of ſ, İ (0xc4, 0xc5) and the Kelvin sign (0xe2). A table
// read per byte is a third of the comparisons' cost on every request body.
var foldsByte = func() (t [256]bool) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	t[0xc4], t[0xc5], t[0xe2] = true, true, true
	return t
}()

// has reports whether the folded text holds sub (lower-case ASCII).
func (t *text) has(sub string) bool { return contains(t.folded, t.foldedPairs, sub) }

// hasRaw reports whether the text as written holds sub.
func (t *text) hasRaw(sub string) bool { return contains(t.raw, t.rawPairs, sub) }

// buildMu serialises detector construction: gitleaks loads its default
// config through viper's process-wide instance, which is not goroutine-safe.
var buildMu sync.Mutex

// New builds a Redactor with gitleaks' default rules plus custom patterns.
// An invalid pattern is an error naming its id.
func New(custom []Pattern) (*Redactor, error) {
	rules := []rule{pemRule, awsKeyRule, awsSecretRule, passwordRule, passwordJARule, passwordChangeJARule, urlCredentialRule,
		secretIsRule, passphraseRule, authHeaderRule, cliPasswordRule, xmlSettingRule, passwordJAQuotedRule, basicAuthRule,
		tokenUserRule, yamlBlockSecretRule, passwordCJKRule, pinRule, itsSecretRule, spacedTokenRule, passwordIntlRule, credentialPairRule, passwordFromRule, passwordToRule, valueFirstRule, hexKeyRule,
		envPassRule, passColonRule, flagPasswordRule, secretAssignRule, tokenFormatRule, cookieRule, jaSecretRule, capsPassRule, envSecretRule, labelledSecretRule, keyBodyRule,
		tablePasswordRule, tableSecretRule, slashPairRule, useSlashPairRule, commentValueRule, seedPhraseRule, sentryDSNRule, envListRule, jaProseSecretRule, pwJAProseRule, spacedPassphraseRule,
		shellFedRule, passwordNoteRule, passVerbRule, setToRule, keyIsRule, basicCredentialRule}
	for i, p := range custom {
		if p.ID == "" {
			return nil, fmt.Errorf("redaction pattern #%d has no id; give it a short name such as \"internal-hostname\"", i+1)
		}
		re, err := regexp.Compile(p.Regex)
		if err != nil {
			return nil, fmt.Errorf("redaction pattern %q is not a valid Go regular expression (%v); fix secretary.redaction.patterns", p.ID, err)
		}
		rules = append(rules, rule{id: p.ID, re: re})
	}
	for i := range rules {
		if rules[i].re != nil && rules[i].find == nil {
			rules[i].anchor = anchoringFor(rules[i].re)
		}
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	// gitleaks logs through a global zerolog logger writing to stderr, which
	// belongs to the TUI; it must also never echo a secret. Silence it.
	logging.Logger = zerolog.Nop()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, fmt.Errorf("load gitleaks' default rules: %w", err)
	}
	lite := withoutRule(d, genericRuleID)
	r := &Redactor{detector: d, lite: lite, rules: rules}
	if lite != nil {
		r.split = splitRules(lite)
	}
	return r, nil
}

// withoutRule returns a detector with d's configuration minus one rule, or
// nil when d has no such rule.
func withoutRule(d *detect.Detector, id string) *detect.Detector {
	if _, ok := d.Config.Rules[id]; !ok {
		return nil
	}
	cfg := d.Config
	cfg.Rules = make(map[string]config.Rule, len(d.Config.Rules))
	for k, r := range d.Config.Rules {
		if k != id {
			cfg.Rules[k] = r
		}
	}
	lite := detect.NewDetector(cfg)
	lite.MaxDecodeDepth = d.MaxDecodeDepth
	return lite
}

// span is a byte range of the input to replace.
type span struct {
	start, end int
	id         string
	fallback   bool // from a fallback rule
}

// dropFallbacks removes the fallback rules' spans that another span
// overlaps.
func dropFallbacks(spans []span) []span {
	out := spans[:0]
	for _, sp := range spans {
		if !sp.fallback || !slices.ContainsFunc(spans, func(o span) bool {
			return !o.fallback && o.start < sp.end && sp.start < o.end
		}) {
			out = append(out, sp)
		}
	}
	return out
}

// Redact returns s with every detected secret replaced by
// "[REDACTED:<rule-id>]", and what was replaced. Text without secrets is
// returned unchanged; redacting twice gives the same result as once.
func (r *Redactor) Redact(s string) (string, []Finding) {
	if s == "" {
		return s, nil
	}
	var spans []span
	if len(s) <= windowBytes {
		spans = r.spans(s)
	} else {
		spans = r.windowedSpans(s)
	}
	if len(spans) == 0 {
		return s, nil
	}
	return apply(s, merge(dropFallbacks(spans)))
}

// spans finds every rule's matches in s, read as written and in the other
// ways it may be written.
func (r *Redactor) spans(s string) []span {
	t := borrowText(s)
	defer t.release()
	spans := r.ownSpans(t)
	spans = append(spans, r.gitleaksSpans(t)...)
	if narrow, at, ok := narrowFullWidth(s); ok {
		// A token in full-width letters: the rules run on it in ASCII.
		spans = append(spans, r.viewSpans(narrow, at)...)
	}
	if view, at, ok := unescapeURL(t); ok {
		// A URL percent- or \u-escaped: the rules run on it decoded.
		spans = append(spans, r.viewSpans(view, at)...)
	}
	return spans
}

// viewSpans finds the spans in view, the input written another way, and
// maps them back onto the input: at is the input's offset of each of
// view's bytes, and the input's length after them.
func (r *Redactor) viewSpans(view string, at []int) []span {
	vt := newText(view)
	spans := append(r.ownSpans(vt), r.gitleaksSpans(vt)...)
	for i := range spans {
		spans[i].start, spans[i].end = at[spans[i].start], at[spans[i].end]
	}
	return spans
}

// ownSpans finds the PEM rule's and the custom patterns' matches.
func (r *Redactor) ownSpans(t *text) []span {
	var out []span
	s := t.raw
	for i := range r.rules {
		// By pointer: a rule is a dozen words, and copying each of the
		// fifty-odd per text was most of this loop's own time.
		ru := &r.rules[i]
		if ru.may != nil && !ru.may(t) {
			continue
		}
		for _, m := range ru.matches(t) {
			start, end := m[0], m[1]
			for g := 2; g+1 < len(m); g += 2 { // the first group that matched
				if m[g] >= 0 {
					start, end = m[g], m[g+1]
					break
				}
			}
			// A value already redacted ("[REDACTED:…]") is not found again:
			// redacting twice gives what once did.
			if end > start && !strings.HasPrefix(s[start:end], "[REDACTED:") && (ru.secretish == nil || ru.secretish(s[start:end])) &&
				(ru.whole == nil || ru.whole(s[m[0]:m[1]])) && (ru.inText == nil || ru.inText(s, start, end)) && !placeholder(s, start, end) &&
				(ru.acrossLines || sameLine(s, m[0], start) || nextLineValue(s, nameStart(s, m[0], start), start, end)) {
				out = append(out, span{start: start, end: end, id: ru.id, fallback: ru.fallback})
			}
		}
	}
	return out
}

// nameStart is where a match that starts with spaces or a line break
// (a rule's "(?:^|\s)" before a user name) starts in earnest.
func nameStart(s string, from, start int) int {
	for from < start && isSpace(s[from]) {
		from++
	}
	return from
}

// sameLine reports whether the match from its name to its value (at
// start) keeps to one line.
func sameLine(s string, from, start int) bool {
	return strings.IndexByte(s[nameStart(s, from, start):start], '\n') < 0
}

// gitleaksSpans runs gitleaks and locates each finding's secret in s. The
// detector reports line/column of the match; searching for the secret's
// text (every occurrence) is simpler and also catches repeats.
func (r *Redactor) gitleaksSpans(t *text) []span {
	d := r.detector
	if r.lite != nil && d.MaxDecodeDepth == 0 && !genericKeyMayMatch(t) {
		if r.split != nil {
			return r.split.spans(t)
		}
		d = r.lite
	}
	return detectorSpans(d, t.raw)
}

func detectorSpans(d *detect.Detector, s string) []span {
	var out []span
	for _, f := range d.DetectString(s) {
		secret := f.Secret
		if secret == "" {
			secret = f.Match
		}
		secret = strings.TrimSpace(secret)
		if secret == "" || strings.HasPrefix(secret, "[REDACTED:") {
			continue
		}
		for off := 0; off < len(s); {
			i := strings.Index(s[off:], secret)
			if i < 0 {
				break
			}
			if !placeholder(s, off+i, off+i+len(secret)) {
				out = append(out, span{start: off + i, end: off + i + len(secret), id: f.RuleID})
			}
			off += i + len(secret)
		}
	}
	return out
}

// merge sorts spans and joins overlapping ones; the earliest, longest span
// names the merged range.
func merge(spans []span) []span {
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	out := spans[:1]
	for _, sp := range spans[1:] {
		last := &out[len(out)-1]
		if sp.start < last.end {
			if sp.end > last.end {
				last.end = sp.end
			}
			continue
		}
		out = append(out, sp)
	}
	return out
}

// apply replaces the (sorted, disjoint) spans in s.
func apply(s string, spans []span) (string, []Finding) {
	var b strings.Builder
	b.Grow(len(s))
	findings := make([]Finding, 0, len(spans))
	prev := 0
	for _, sp := range spans {
		b.WriteString(s[prev:sp.start])
		b.WriteString("[REDACTED:")
		b.WriteString(sp.id)
		b.WriteString("]")
		findings = append(findings, Finding{RuleID: sp.id, Start: sp.start, End: sp.end})
		prev = sp.end
	}
	b.WriteString(s[prev:])
	return b.String(), findings
}

// String redacts s and drops the findings: the common call.
func (r *Redactor) String(s string) string {
	out, _ := r.Shown(s)
	return out
}

// Shown redacts s, and when s hides characters the display drops (an
// escape sequence, an invisible mark) and only the text as shown holds a
// secret ("ghp_abc\u200bdef…" reads "ghp_abcdef…"), it returns that text
// redacted instead. Text without such a secret is kept exactly (a task
// parameter may hold a tab or a zero-width joiner on purpose).
func (r *Redactor) Shown(s string) (string, []Finding) {
	out, findings := r.Redact(s)
	if !termtext.HasHidden([]byte(s)) {
		return out, findings
	}
	shown, hidden := r.Redact(termtext.VisibleMultiline(s))
	if len(hidden) > len(findings) {
		return shown, hidden
	}
	return out, findings
}

// ValueFound is Value that also says whether anything was redacted.
func (r *Redactor) ValueFound(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		out, findings := r.Redact(x)
		return out, len(findings) > 0
	case []any:
		found := false
		for i := range x {
			var f bool
			x[i], f = r.ValueFound(x[i])
			found = found || f
		}
		return x, found
	case map[string]any:
		found := false
		for k, val := range x {
			var f bool
			x[k], f = r.ValueFound(val)
			found = found || f
		}
		return x, found
	}
	return v, false
}

// Value redacts every string inside a decoded JSON value (maps and slices
// are changed in place) and returns it.
func (r *Redactor) Value(v any) any {
	switch x := v.(type) {
	case string:
		return r.String(x)
	case []any:
		for i := range x {
			x[i] = r.Value(x[i])
		}
	case map[string]any:
		for k, val := range x {
			x[k] = r.Value(val)
		}
	}
	return v
}
