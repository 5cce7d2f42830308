package redact

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
)

// The rules below catch secrets in the forms the fourth attack run and
// its re-checks found still readable: .env lines and flags that name a
// password "pass" or "pw" (DB_PASS, DBPASS, --db-pass), .env variables
// named for a secret (API_KEY=), secrets assigned to names gitleaks'
// generic rule passes over, two token formats, cookies, prose without
// "is", and Japanese names of secrets other than パスワード. Values that
// name where a secret is kept (a variable, a template, a path, a dotted
// reference, words joined into a name) stay as written.

// quotedOr is the value part shared by the assignment rules: a quoted
// value whole (its quotes written as XML/HTML entities too, as JUnit's
// message attribute writes them), or an unquoted one up to a space, quote
// or separator.
func quotedOr(unquoted string) string {
	return `(?:\\?"([^"\\\n]{4,1000})\\?"|\\?'([^'\\\n]{4,1000})\\?'|` + entityQuoted + `|(` + unquoted + `))`
}

// entityQuoted is a value between quotes written as entities: &quot;…&quot;,
// &#34;…&#34;, &apos;…&apos;.
const entityQuoted = `&(?:quot|#34|#x22|apos|#39|#x27);([^&\n]{4,1000})&(?:quot|#34|#x22|apos|#39|#x27);`

// jaProseSecretRule is a made value told in Japanese prose after a
// secret's name, with a label in parentheses, an arrow or a comma before
// it: "パスワード→Vh7r…", "パスワード（本番）：…", "今のパスワード、Vh7r…だよ", "鍵は…です",
// "PINは4821です". The value is the ASCII run that follows, so the
// Japanese after it stays. It must look made (madeNotNamed); a PIN's
// digits after PIN or 暗証番号.
var jaProseSecretRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?:` + jaPasswordWords + `|` + jaSecretWords + `|鍵|パス)` + jaProseValue),
	may: func(t *text) bool {
		return mayHoldJASecret(t) || mayHoldJAPassword(t) || t.hasRaw("鍵") || t.hasRaw("パス")
	},
	secretish: jaProseSecretish,
	whole:     jaProseWhole,
}

// pwJAProseRule is jaProseSecretRule after PW or PIN ("PINは4821です").
var pwJAProseRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b(?:pw|pin)` + jaProseValue),
	may: func(t *text) bool {
		return (t.has("pw") || t.has("pin")) && (t.hasRaw("は") || t.hasRaw("が") || t.hasRaw("、") || t.hasRaw("→") || t.hasRaw("："))
	},
	secretish: jaProseSecretish,
	whole:     jaProseWhole,
}

// jaProseValue is what follows the name in jaProseSecretRule: a label in
// parentheses, then は, が, an arrow, a comma or an operator, then the
// value's ASCII run.
const jaProseValue = `(?:[（(][^）)\n]{1,20}[）)])?[\s\x{3000}]*(?:は|が|→|->|、|,|:|：|=|＝)[\s\x{3000}]*([!-~]{4,200})`

func jaProseSecretish(v string) bool {
	return madeNotNamed(strings.TrimRight(v, ".!?:)")) || pinDigitsRE.MatchString(v)
}

// jaProseWhole: digits alone are a secret only after PIN or 暗証番号
// ("トークンは3600秒" stays).
func jaProseWhole(m string) bool {
	i := len(m)
	for i > 0 && m[i-1] > ' ' && m[i-1] < 0x7f {
		i-- // the value: the ASCII run the match ends with
	}
	v := strings.TrimLeft(m[i:], ":=>,-")
	return !pinDigitsRE.MatchString(v) || strings.Contains(strings.ToLower(m), "pin") || strings.Contains(m, "暗証番号")
}

// pinDigitsRE is a PIN: four to eight digits.
var pinDigitsRE = regexp.MustCompile(`^[0-9]{4,8}$`)

// spacedPassphraseRule is a passphrase of words written with spaces after
// its name: "passphrase: correct horse battery staple" (passwordRule took
// the first word only). Three to twelve words of letters; a description
// ("passphrase: must be at least twelve characters") has words prose is
// made of, which a passphrase does not.
var spacedPassphraseRule = rule{
	id:  "password",
	re:  regexp.MustCompile(`(?i)\bpass[ -]?phrase(?:\s+(?:is|was))?\s*[:=]\s*["'\x60]?([a-z]+(?: [a-z]+){2,11})\b`),
	may: func(t *text) bool { return t.has("phrase") },
	secretish: func(v string) bool {
		return !slices.ContainsFunc(strings.Fields(strings.ToLower(v)), func(w string) bool { return proseWords[w] })
	},
}

// proseWords are words a description of a passphrase (or a note where
// one would be) is written with and a passphrase of random words hardly
// holds.
var proseWords = setOfWords(`a an the be is are was must should can will at least of to for in on with and or not no your you it
this that min max characters chars words long required optional set see stored kept
as ask by via from same above below every per yet`)

// spacedPassphrase reports whether v is a passphrase of words written
// with spaces ("correct horse battery staple"): three to twelve words of
// letters and digits that read as one joined by dashes would
// (passphraseLike), none of them proseWords ("stored in 1Password", "ask
// the ops team", "rotate every month" are notes).
func spacedPassphrase(v string) bool {
	words := strings.Fields(v)
	if len(words) < 3 || len(words) > 12 {
		return false
	}
	for _, w := range words {
		if proseWords[strings.ToLower(w)] || strings.ContainsFunc(w, func(r rune) bool { return r >= 0x80 || !isAlnum(byte(r)) }) {
			return false
		}
	}
	return passphraseLike(strings.Join(words, "-"))
}

// envListRule is a secret in a Kubernetes or Compose env list: a name
// that says it is a secret on one line and its value on the next ("- name:
// DB_PASSWORD⏎  value: …"), which every manifest writes this way.
var envListRule = rule{
	id: "generic-secret",
	re: regexp.MustCompile(`(?i)\bname:[ \t]*["']?[a-z0-9_.-]*(?:pass(?:word|wd)?|pwd|secret|token|api[_-]?key|private[_-]?key|access[_-]?key|credentials?)[a-z0-9_.-]*["']?[ \t]*\r?\n[ \t-]*value:[ \t]*` +
		quotedOr(`[^\s"']{4,1000}`)),
	may:         func(t *text) bool { return t.has("value:") && t.has("name:") },
	secretish:   func(v string) bool { return notAVariable(v) && !codeReference(v) },
	acrossLines: true,
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
	may:       func(t *text) bool { return t.has("pass") || t.has("pw") },
	secretish: notAFlagWord,
	inText:    func(s string, start, end int) bool { return !codeExpression(s, start, end) },
}

// passColonRule is "pass: VALUE" in lower case (a YAML file, a note),
// when the value looks made: "tests pass: 42/42" stays.
var passColonRule = rule{
	id:        "password",
	re:        regexp.MustCompile(`\b(?:pass|pw):\s*` + quotedOr(`[^\s"'\x60,;&]{4,200}`)),
	may:       func(t *text) bool { return t.hasRaw("pass:") || t.hasRaw("pw:") },
	secretish: madeNotWritten,
}

// commentValueRule is a secret's name assigned nothing, its value in the
// comment after it: `DB_PASSWORD="" # current: realvalue123`, `"api_key":
// "", // old: Zr4Bx7kQ2Lm9`. The value must look made, so a comment saying
// where it comes from ("# set in CI", "# format: base64") stays.
var commentValueRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b[\w.-]*?(?:pass|pwd|secret|token|api[_-]?key|(?:access|private|signing|encryption|master)[_-]?key)[\w.-]*["']?[ \t]*(?::=|=|:)[ \t]*(?:""|''|)[ \t]*,?[ \t]*(?:#|//)` +
		`[ \t]*(?:[^\n:=#\[\]]{0,40}?(?::|=|\bis\b|\bwas\b)[ \t]*)?["'\x60]?([^\s"'\x60,;]{4,200})`),
	may: func(t *text) bool {
		return (t.has("pass") || t.has("pwd") || t.has("secret") || t.has("token") || t.has("key")) && emptyThenComment(t.raw)
	},
	secretish: func(v string) bool {
		v = strings.TrimRight(v, ".!?:)")
		return (madeNotWritten(v) || shortMade(v) || passphraseLike(v)) && notAVariable(v) && !pathLike(v) &&
			!strings.Contains(v, "://") && !techNameRE.MatchString(v)
	},
}

// emptyThenComment reports whether s holds commentValueRule's middle:
// ":" or "=", then spaces, perhaps an empty string in double or single
// quotes and a comma, then a comment ("#" or "//"; not ";", which
// follows a cookie cleared: "token=; Expires=…").
func emptyThenComment(s string) bool {
	if strings.IndexByte(s, '#') < 0 && !strings.Contains(s, "//") {
		return false
	}
	for i := strings.IndexAny(s, ":="); i >= 0; {
		j := skipBlanks(s, i+1)
		if strings.HasPrefix(s[j:], `""`) || strings.HasPrefix(s[j:], `''`) {
			j = skipBlanks(s, j+2)
		}
		if j < len(s) && s[j] == ',' {
			j = skipBlanks(s, j+1)
		}
		if j < len(s) && (s[j] == '#' || strings.HasPrefix(s[j:], "//")) {
			return true
		}
		next := strings.IndexAny(s[i+1:], ":=")
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// skipBlanks returns the offset of the first byte from i on that is not a
// space or tab.
func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
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
// a space (--password VALUE, --db-pass VALUE; "--password=…" is
// passwordRule's), and to the registry logins' -p (docker login -u me -p
// VALUE, or -pVALUE). A value starting with "-" is the next flag; one
// naming a variable ($DOCKER_PASSWORD) is no secret itself.
var flagPasswordRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?:(?:^|[\s"'])--(?:[a-z0-9]+-)*(?:password|passwd|pass|pw)\s+|\b(?:docker|podman|nerdctl|buildah|skopeo|helm(?:\s+registry)?)\s+login\b[^\n]{0,200}?\s-p\s*)` +
		`(?:'([^'\n]{3,200})'|"([^"\n]{3,200})"|([^\s'"\x60-][^\s'"\x60]{2,200}))`),
	may:       func(t *text) bool { return t.has("pass") || t.has("--pw") || t.has("login") },
	secretish: notAVariable,
}

// notAVariable rejects a value that names where the secret is instead of
// holding it: a shell or CI variable ($DOCKER_PASSWORD, ${X}, %X%), a
// template ({{ … }}). "$ecretP4ss" is a value: a bare $NAME is a variable
// only in capitals.
func notAVariable(v string) bool {
	return !variableRE.MatchString(v) && !strings.Contains(v, "{{")
}

// codeReference reports whether a value after "password:" is code, not a
// password: a type (string, Optional[str]), a call (z.string().min(8)),
// a property path (req.body.password, process.env.DB_PASSWORD) or a
// variable named after a secret (hashedPassword). A TypeScript interface
// or a form schema says "password: string" all the time.
func codeReference(v string) bool {
	v = strings.TrimRight(v, ";,")
	return typeNames[strings.ToLower(v)] || typeExprRE.MatchString(v) || callRE.MatchString(v) ||
		propertyPath(v) || secretVariableRE.MatchString(v)
}

// propertyPath reports whether v is identifiers joined by dots that read
// a secret from somewhere: its last part names one (req.body.password)
// or its first is where code keeps settings (process.env.DB_PASS). A
// password with a dot in it ("Summer.Time") is neither.
func propertyPath(v string) bool {
	if !propertyPathRE.MatchString(v) {
		return false
	}
	parts := strings.Split(strings.ReplaceAll(v, "?.", "."), ".")
	last := strings.ToLower(parts[len(parts)-1])
	for _, w := range []string{"pass", "pwd", "secret", "token", "key", "credential"} {
		if strings.Contains(last, w) {
			return true
		}
	}
	return codeRoots[parts[0]]
}

// codeRoots are where code reads settings from.
var codeRoots = setOfWords(`this self process os env req request res config cfg conf settings opts options params props ctx context`)

// typeNames are the types a field is declared with.
var typeNames = setOfWords(`string str number int integer bool boolean any unknown null undefined none bytes text varchar char secretstr securestring`)

var (
	// typeExprRE is a generic type: Optional[str], Option<String>, []byte.
	typeExprRE = regexp.MustCompile(`^(?:\[\])?[A-Za-z_][\w.]*(?:\[[\w\s,.\[\]|]*\]|<[\w\s,.<>|]*>)\??$`)
	// propertyPathRE is identifiers joined by dots (req.body.password).
	propertyPathRE = regexp.MustCompile(`^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$`)
	// callRE is a call, or calls chained (getPassword(), z.string().min(8)).
	callRE = regexp.MustCompile(`^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\([^()]*\)(?:\.[A-Za-z_$][\w$]*\([^()]*\))*$`)
	// secretVariableRE is a camelCase name that names a secret.
	secretVariableRE = regexp.MustCompile(`^[a-z]+(?:[A-Z][a-z]+)*(?:Password|Passwd|Pwd|Secret|Token|Hash|Key)(?:[A-Z][a-z]+)*$`)
)

func setOfWords(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// variableRE matches a whole value that is a variable: ${ANY}, $CAPS,
// %WINDOWS%.
var variableRE = regexp.MustCompile(`^(?:\$\{[^}]*\}|\$[A-Z_][A-Z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%)$`)

// secretAssignRule catches a value assigned to a name that says it is a
// secret (SECRET_KEY, APP_KEY, client_secret, api-key, auth_token) when
// the value looks made: gitleaks' generic rule wants its own alphabet and
// entropy (Django's 'django-insecure-…' and Laravel's base64:… pass it
// by). Code reading the value from elsewhere (os.environ[…], ${…}) stays.
var secretAssignRule = rule{
	id: "generic-secret",
	re: regexp.MustCompile(`(?i)\b[a-z0-9_.-]*?(?:secret|token|api[_-]?key|app[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key)[a-z0-9_-]*\b` +
		`(?:["']\]?|\])?\s*(?::=|=>|=|:)\s*` + quotedOr(`[^\s"'\x60,;()\[\]{}<>$%][^\s"'\x60,;()\[\]{}<>]{7,1000}`)),
	may: func(t *text) bool { return assignedAfter(t, "secret", "token", "key") },
	// "Change Token: 0x00000001" is a number.
	secretish: func(v string) bool { return madeNotNamed(v) && !hexNumber(v) },
	inText:    func(s string, start, end int) bool { return !codeExpression(s, start, end) },
	fallback:  true,
}

// assignedAfter is secretAssignRule's prefilter: one of the words, then
// name characters, a quote and spaces, then ":" or "=". Its expression's
// lazy name before the word is slow on prose that holds the word without
// assigning anything ("rotate refresh tokens on use": 23 µs).
func assignedAfter(t *text, words ...string) bool {
	return afterWord(t, words, func(s string, j int) bool {
		for j < len(s) && (isAlnum(s[j]) || s[j] == '_' || s[j] == '-') {
			j++
		}
		if j < len(s) && (s[j] == '"' || s[j] == '\'') {
			j++
		}
		if j < len(s) && s[j] == ']' { // environ["API_TOKEN"] = …
			j++
		}
		for j < len(s) && isSpace(s[j]) { // \s
			j++
		}
		return j < len(s) && (s[j] == ':' || s[j] == '=')
	})
}

// afterWord reports whether, at some place where one of words occurs in
// the folded text, follows(folded, the index just after the word) holds:
// the common walk of prefilters that look at what comes after a secret's
// name.
func afterWord(t *text, words []string, follows func(s string, end int) bool) bool {
	s := t.folded
	for _, w := range words {
		if !t.has(w) {
			continue
		}
		for i := strings.Index(s, w); i >= 0; {
			if follows(s, i+len(w)) {
				return true
			}
			next := strings.Index(s[i+1:], w)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return false
}

// madeNotNamed is madeNotWritten for a value assigned in code or a config:
// one that names something else is no secret — a variable or template
// (notAVariable), a path (/var/run/secrets/…), a reference to another
// name (oauth2.StaticTokenSource, aws_secretsmanager_secret.db2.arn) or
// words joined into a name (prod-db-credentials-v2, refresh_token_v2).
func madeNotNamed(v string) bool {
	return madeNotWritten(v) && notAVariable(v) && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "~/") &&
		!referenceRE.MatchString(v) && !joinedWords(v)
}

// referenceRE matches a dotted name: pkg.Func, resource.name.attr.
var referenceRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$`)

// wordRE is one word of a name: letters then at most a few digits
// (credentials, v2, ed25519), or a camel-case word (TokenSource).
var wordRE = regexp.MustCompile(`^(?:[a-z]+[0-9]{0,6}|[0-9]{1,4}|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*[0-9]{0,3}|[A-Z]{2,8}[0-9]{0,3})$`)

// joinedWords reports whether v is words joined by "-", "_" or ".", each
// a word a person named (see wordRE): a name, not a made secret.
func joinedWords(v string) bool {
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !wordRE.MatchString(p) {
			return false
		}
	}
	return true
}

// tokenFormatRule catches secrets known by their shape that gitleaks'
// rules leave: Stripe's webhook signing secrets and Discord webhook URLs
// (the token after the id).
var tokenFormatRule = rule{
	id: "token",
	re: regexp.MustCompile(`\b(whsec_[A-Za-z0-9+/=]{20,})|\bdiscord(?:app)?\.com/api/(?:v[0-9]{1,3}/)?webhooks/[0-9]{5,30}/([A-Za-z0-9_-]{30,200})`),
	may: func(t *text) bool {
		return t.hasRaw("whsec_") || t.hasRaw("webhooks/")
	},
}

// sentryDSNRule is the key in a Sentry DSN,
// https://<32 hex digits>@o123456.ingest.sentry.io/1234567 (and a
// self-hosted one's, and the legacy key:secret@ form's key and secret):
// anyone holding it can send the project events. Without its scheme
// (SENTRY_DSN=<key>@o1.ingest.sentry.io/2) the host must name Sentry:
// 32 hex digits before another host may be anything. Before Sentry's
// own ingest hosts (o1.ingest.sentry.io, o1.ingest.us.sentry.io) the
// user is a DSN's key whatever its shape (not the end of an escape,
// \u002fKEY or %2FKEY: the text decoded has it). The host and project
// stay.
var sentryDSNRule = rule{
	id: "sentry-dsn",
	re: regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]{0,20}:\\?/\\?/` + sentryKey + `@` +
		`|\b` + sentryKey + `@(?:[A-Za-z0-9-]+\.)*[A-Za-z0-9-]*(?i:sentry)[A-Za-z0-9-]*\.[A-Za-z]` +
		`|(?:^|[^A-Za-z0-9\\%])([A-Za-z0-9]{1,64})@` + sentryIngestHost),
	may: func(t *text) bool {
		if strings.IndexByte(t.raw, '@') < 0 {
			return false
		}
		return (t.hasRaw("://") || t.hasRaw(`:\/\/`) || t.has("sentry")) && hasRun(t.raw, 32, &hexBytes) ||
			t.hasRaw(".ingest.") && t.hasRaw("sentry.io")
	},
}

// sentryIngestHost is where sentry.io takes a project's events.
const sentryIngestHost = `o[0-9]+\.ingest\.(?:[a-z]{2,3}\.)?sentry\.io\b`

// sentryKey is a Sentry DSN's key, and the legacy form's secret after it.
const sentryKey = `([0-9a-fA-F]{32}(?::[0-9a-fA-F]{32})?)`

// cookieRule catches a Cookie or Set-Cookie header's value, and curl's
// -b/--cookie: a session cookie is a credential as much as a bearer token
// is. The first cookie's value has no space and 8 characters or more, so
// prose ("the cookie: banner is gone") stays.
var cookieRule = rule{
	id: "cookie",
	re: regexp.MustCompile(`(?i)\b(?:set-)?cookie["']?\s*:\s*["']?([^\s=;"']{1,100}=[^\s;"']{8,1000}(?:;\s*[^\s=;"']{1,100}=[^\s;"']*)*)` +
		`|\bcurl\b[^\n]{0,200}?\s(?:-b|--cookie)\s+(?:'([^'\n=]{1,100}=[^'\n]{3,1000})'|"([^"\n=]{1,100}=[^"\n]{3,1000})"|([^\s'"=]{1,100}=[^\s'"]{3,1000}))`),
	may: func(t *text) bool { return t.has("cookie") || t.has("curl") },
}

// jaSecretRule catches a secret told in Japanese under a name other than
// パスワード's rules cover (APIキーは…, トークン：…, 秘密鍵は…), and パスワード
// followed by the value with only a space: the value must look made, so
// "トークンは有効期限切れ" (has expired) stays.
var jaSecretRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?:` + jaSecretWords + `|` + jaPasswordWords + `)` +
		`[\s\x{00a0}\x{3000}]*(?:(?:は|が)[、,]?|:=|=|:|＝|：)?[\s\x{00a0}\x{3000}]*` +
		`(?:["'「]([!-~]{6,200})["'」]|([!-~]{6,200}))`),
	may:       func(t *text) bool { return mayHoldJASecret(t) || mayHoldJAPassword(t) },
	secretish: madeNotNamed,
}

// jaSecretWords are the names of secrets other than a password in
// Japanese text.
const jaSecretWords = `(?i:api)\s?キー|ＡＰＩキー|アクセストークン|トークン|シークレット(?:キー)?|秘密鍵|認証情報`

// mayHoldJASecret is jaSecretWords' prefilter.
func mayHoldJASecret(t *text) bool {
	return t.hasRaw("キー") || t.hasRaw("トークン") || t.hasRaw("シークレット") ||
		t.hasRaw("秘密鍵") || t.hasRaw("認証情報")
}

// envSecretRule is an environment variable named in capitals that ends
// in a secret's name (API_KEY, JWT_SECRET, GITHUB_TOKEN), whatever the
// value looks like: in a .env file the value is the secret, words joined
// by dashes too (shiny-purple-elephant-77), unlike secretAssignRule's
// code and config, where such a value more often names something. A
// variable, a template or a number (MAX_TOKENS=4096 does not end in
// TOKEN) stays. It gives way to a named rule (ghp_… is github-pat).
var envSecretRule = rule{
	id: "generic-secret",
	re: regexp.MustCompile(`\b(?:[A-Z][A-Z0-9_]*_)?(?:SECRET|TOKEN|API_?KEY|APP_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH_?KEY|SIGNING_?KEY|ENCRYPTION_?KEY|MASTER_?KEY|SECRET_?KEY)\s*=\s*` +
		quotedOr(`[^\s"'\x60,;&()\[\]{}]{6,1000}`)),
	may: func(t *text) bool {
		return t.hasRaw("SECRET") || t.hasRaw("TOKEN") || t.hasRaw("KEY")
	},
	// Code reading it from elsewhere (SECRET_KEY = os.environ[…]) stays.
	secretish: func(v string) bool {
		return notAVariable(v) && notAFlagWord(v) && strings.Trim(v, "0123456789") != "" && !referenceRE.MatchString(v)
	},
	fallback: true,
}

// capsPassRule is an environment variable named in capitals ending in PASS,
// PW or PWD with no separator before it (DBPASS, PGPASS, MYSQL_PWD is
// envPassRule's), whatever the value looks like but a flag word.
var capsPassRule = rule{
	id:        "password",
	re:        regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:PASS|PASSWD|PW|PWD)\s*=\s*` + quotedOr(`[^\s"'\x60,;&]{4,200}`)),
	may:       func(t *text) bool { return t.hasRaw("PASS") || t.hasRaw("PW") },
	secretish: notAFlagWord,
}

// labelledSecretRule is a long random-looking value on a line that names a
// key, token, secret or password some words before it: "Algolia admin key
// for the search index: 8dK2…", "the deploy token we use on CI = …",
// "本番のAPIキー（読み取り専用）: …", "client_secret 8dK2…" (the name inside
// an identifier: SigningKey, client_secret), `SigningKey: []byte("8dK2…")`
// (code around the value), or at the start of the sentence after the one
// that names it ("Here's the staging key. 8dK2…"). Base64 of text counts
// as random there. secretIsRule wants the name right
// before the value and takes any made-looking one; here words may come
// between (within one string of a JSON document), so the value itself
// must look random (randomLooking) and not be an identifier written in
// hex (aoi's own ask-01a2…, a commit): gitleaks' generic rule has its say
// on "key: <hex>".
var labelledSecretRule = rule{
	id: "generic-secret",
	re: regexp.MustCompile(`(?i)(?:\b(?:api[ _-]?)?(?:keys?|tokens?|secrets?|passwords?|passphrases?|credentials?|session(?:[ _-]?id)?s?)\b|` +
		`(?-i:[a-z0-9](?:Key|Token|Secret|Password|Passphrase|Credential)s?\b)|[a-z0-9][_-](?:keys?|tokens?|secrets?|passwords?)\b|` +
		jaSecretWords + `|キー|鍵|` + jaPasswordWords + `)` +
		`[^\n.!?。"]{0,60}?(?:[:=：→|~]|\s-\s|\s(?:is|was)\s|は|を|[.!?。]|\s|[-_/])\s*` + codeWrapper + `["'\x60]?([A-Za-z0-9/+_=.-]{20,300})`),
	// The value is a run of 20 value characters (folded: under (?i) the
	// class takes ſ and the Kelvin sign too): text without one, most
	// prose, skips the expression, whose gap makes it slow.
	may: func(t *text) bool {
		return (t.has("key") || t.has("token") || t.has("secret") || t.has("pass") || t.has("credential") || t.has("session") ||
			mayHoldJASecret(t) || t.hasRaw("鍵") || mayHoldJAPassword(t)) && hasValueRun(t.folded, 20)
	},
	secretish: func(v string) bool {
		return (randomLooking(v) || base64Text(v)) && !hexIdentifierRE.MatchString(v) && !sriHashRE.MatchString(v) && !pathLike(v)
	},
	// A public key's fingerprint ("the key fingerprint is SHA256:glTD…")
	// names no secret, nor does a PEM block's armour ("PUBLIC KEY-----"
	// over its body: the label is the line before, "PUBLIC" not in it).
	whole: func(m string) bool {
		l := strings.ToLower(m)
		return !strings.Contains(l, "fingerprint") && !strings.Contains(l, "public") && !strings.Contains(m, "-----")
	},
	fallback: true,
}

// codeWrapper is what code may put between a secret's name and its value:
// SigningKey: []byte("…"), token = String("…"), b"…", r'…'.
const codeWrapper = `(?:\[\]byte\(|[A-Za-z_][\w.]{0,40}\(|[br](?:["'\x60]))?`

// base64Text reports whether v is base64 of text (24 characters or more
// that decode to printable ASCII): "the token base64 is QUtJQVFX…" hides
// a key pair randomLooking cannot see, base64 of words changing character
// class too seldom.
func base64Text(v string) bool {
	if len(v) < 24 {
		return false
	}
	var b []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err = enc.DecodeString(v); err == nil {
			break
		}
	}
	if err != nil || len(b) < 16 {
		return false
	}
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// xmlSettingRule is a secret in XML, named by an element or an
// attribute: <add key="ApiKey" value="…"/> (either order), <password>…
// </password> (Maven's settings.xml), <string name="api_key">…</string>
// (Android), <entry key="token">…</entry>.
var xmlSettingRule = rule{
	id: "generic-secret",
	re: regexp.MustCompile(`(?i)\bkey\s*=\s*"[^"\n]{0,60}` + xmlSecretName + `[^"\n]{0,60}"\s+value\s*=\s*"([^"\n]{6,1000})"` +
		`|\bvalue\s*=\s*"([^"\n]{6,1000})"\s+key\s*=\s*"[^"\n]{0,60}` + xmlSecretName + `[^"\n]{0,60}"` +
		`|<(?:[\w.:-]*(?:secret|token|password|passwd|pwd|credential)[\w.:-]*|[\w.:-]*[a-z_.-]key)>\s*([^<\s][^<\n]{3,1000}?)\s*</` +
		`|<\w+\s+(?:name|key)\s*=\s*"[^"\n]{0,60}` + xmlSecretName + `[^"\n]{0,60}"\s*>\s*([^<\s][^<\n]{3,1000}?)\s*<`),
	may: func(t *text) bool { return t.has("<") || t.has("value") },
	// XML names words too (<token>word</token> in a tokenizer's test
	// data): the value must look made.
	secretish: func(v string) bool {
		return (madeNotWritten(v) || passphraseLike(v)) && notAVariable(v) && !referenceRE.MatchString(v)
	},
}

// xmlSecretName is what names a secret in an XML element or attribute.
const xmlSecretName = `(?:key|secret|token|password|passwd|pwd|credential)`

// sriHashRE is a subresource-integrity hash (sha512-…), named by its
// algorithm: a checksum, no secret.
var sriHashRE = regexp.MustCompile(`^(?i:sha(?:1|256|384|512)|md5)-`)

// pathLike reports whether v reads as a file path: it starts at a root
// (/, ~/, ./) or ends in a file name's extension after a slash.
func pathLike(v string) bool {
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return true
	}
	slash, dot := strings.LastIndexByte(v, '/'), strings.LastIndexByte(v, '.')
	return slash >= 0 && dot > slash && len(v)-dot-1 >= 1 && len(v)-dot-1 <= 5
}

// hexIdentifierRE is an identifier written in hex, perhaps after a short
// word and a dash: ask-01a2157e08…, 3f2a9b7c….
var hexIdentifierRE = regexp.MustCompile(`^(?:[a-z]{1,8}[-_])?(?:[0-9a-f]+|[0-9A-F]+)$`)

// randomLooking reports whether v looks drawn at random rather than
// written: 20 or more characters with letters and digits, changing
// between lower case, capitals, digits and symbols at nearly every other
// character (random base64 changes at about two in three; a path, a
// camel-case name or a version string far less often), and not a git
// object name or SHA-256 sum (40 or 64 hex digits, everyday in a
// developer's text).
func randomLooking(v string) bool {
	v = strings.TrimRight(v, ".")
	if len(v) < 20 || !notAVariable(v) {
		return false
	}
	if (len(v) == 40 || len(v) == 64) && strings.Trim(strings.ToLower(v), "0123456789abcdef") == "" {
		return false
	}
	letters, digits, changes := 0, 0, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case '0' <= c && c <= '9':
			digits++
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letters++
		}
		if i > 0 && charClass(v[i]) != charClass(v[i-1]) {
			changes++
		}
	}
	return letters > 0 && digits > 0 && changes*5 >= (len(v)-1)*2
}

func charClass(c byte) int {
	switch {
	case 'a' <= c && c <= 'z':
		return 0
	case 'A' <= c && c <= 'Z':
		return 1
	case '0' <= c && c <= '9':
		return 2
	}
	return 3
}

// keyBodyRule is a private key's body without its BEGIN line: a line of
// a PEM block (64 base64 characters) or a whole run of one, as grep or a
// cut-off task output shows it ("secrets/id_rsa:2:b3BlbnNzaC1rZXkt…").
// pemRule needs the BEGIN line; a random-looking base64 run of 60 or more
// characters is taken alone (randomLooking: a path or a hash is not), and
// so are a key's first lines, whose zero bytes and ASN.1 header make them
// look less random: OpenSSH's ("openssh-key-v1" in base64) and DER's
// ("MII…", and a shorter elliptic-curve key's, privateDER). A public key
// (ssh-rsa AAAA…), a data: URI and a subresource integrity hash
// (sha512-…) stay: what comes before the run says so; a certificate's or
// public key's body, encoded data and glued names stay too (keybody.go).
// The run is matched alone, without the characters around it, so lines of
// a body one under another each match.
var keyBodyRule = rule{
	id:  "private-key",
	re:  regexp.MustCompile(`(?:` + notKeyBodyPrefix + `)?[A-Za-z0-9+/]{60,}={0,2}`),
	may: func(t *text) bool { return hasBase64Run(t.raw, 60) },
	secretish: func(v string) bool {
		return strings.HasPrefix(v, "b3BlbnNzaC1rZXktdjE") || strings.HasPrefix(v, "MII") && !publicDER(v) || privateDER(v) ||
			randomLooking(v) && !urlPathLike(v) && !hexDigest(v) && !encodedData(v) && !gluedNames(v)
	},
	whole:  func(m string) bool { return !publicPrefixRE.MatchString(m) },
	inText: func(s string, start, end int) bool { return !publicBody(s, start, end) },
}

// hexDigest reports whether v is hex digits of one case: a digest, as a
// checksum file lists a SHA-384 or SHA-512 sum beside a file's name. It
// is never a line of a key body, which is base64: sixty base64
// characters that all happen to be hex digits come once in 10^28. A
// secret written in hex has no shape to know it by, only its name
// (hexKeyRule, gitleaks' generic rule).
func hexDigest(v string) bool {
	return strings.Trim(v, "0123456789abcdef") == "" || strings.Trim(v, "0123456789ABCDEF") == ""
}

// urlPathLike reports whether a base64-looking run is a URL's or a file's
// path ("com/microsoft/TypeScript/commit/3f9a…" of a commit link,
// "Users/TakeshiYamada/Library/…/3f9a…/state"): before its last part,
// only words, numbers (a pull request's) and hashes, each followed by a
// slash, three words or more. A word is lower case or CamelCase with two
// or more lower-case letters after each capital, digits only at its end.
// A key body has a slash once in 64 characters, between runs of mixed
// case ("g/c1/aGel0GlM8…" is no path). Names a word does not describe
// (mesa3d, GNOME, wolfSSL, T8037935, tmpz2nikr4y) make a path too when
// they read as names (namesPath).
func urlPathLike(v string) bool {
	parts := strings.Split(strings.TrimPrefix(v, "/"), "/")
	return wordsPath(parts) || namesPath(parts)
}

// wordsPath reports whether every part of a path but the last is a word
// or a number, three of them words.
func wordsPath(parts []string) bool {
	words := 0
	for _, p := range parts[:len(parts)-1] {
		switch {
		case pathWordRE.MatchString(p):
			words++
		case pathNumberRE.MatchString(p):
		default:
			return false
		}
	}
	return words >= 3
}

// namesPath reports whether parts, four or more, read as names: leaving
// out hashes and numbers, 12 characters or more, seven in ten of them
// lower-case letters, in pieces of three characters or more on average
// (namePieces): "com/mesa3d/mesa/commit/759b…",
// "tmp/tmpz2nikr4y/cpython/Lib/…", "tools/javac/lambda/T8037935/
// LambdaWithBinOp…", "org/GNOME/libxml2/commit/c65c…". A key body's
// line is four in ten lower case, in pieces of two: of ten million
// random 64-character lines, two read as names.
func namesPath(parts []string) bool {
	if len(parts) < 4 {
		return false
	}
	chars, lower, pieces := 0, 0, 0
	for _, p := range parts {
		if p == "" || pathHashRE.MatchString(p) {
			continue
		}
		chars += len(p)
		pieces += namePieces(p)
		for i := 0; i < len(p); i++ {
			if 'a' <= p[i] && p[i] <= 'z' {
				lower++
			}
		}
	}
	return chars >= 12 && lower*10 >= chars*7 && chars >= 3*pieces
}

// namePieces counts the pieces of a name: runs of digits, capitals then
// lower-case letters (Lambda, ARMmbed, GNOME, tmpz), and any other
// character alone.
func namePieces(p string) int {
	n := 0
	for i := 0; i < len(p); n++ {
		switch c := p[i]; {
		case '0' <= c && c <= '9':
			for i < len(p) && '0' <= p[i] && p[i] <= '9' {
				i++
			}
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
			for i < len(p) && 'A' <= p[i] && p[i] <= 'Z' {
				i++
			}
			for i < len(p) && 'a' <= p[i] && p[i] <= 'z' {
				i++
			}
		default:
			i++
		}
	}
	return n
}

// pathHashRE is a number or a hash (a commit's, a SHA-512 sum) in a path.
var pathHashRE = regexp.MustCompile(`^(?:[0-9]{1,10}|[0-9a-f]{7,128}|[0-9A-F]{7,128})$`)

// pathNumberRE is a number or a hash in a path.
var pathNumberRE = regexp.MustCompile(`^(?:[0-9]{1,10}|[0-9a-f]{7,64})$`)

// pathWordRE is a word of a path, as urlPathLike takes it.
var pathWordRE = regexp.MustCompile(`^(?:[a-z]{2,}|[A-Z]?[a-z]{2,}(?:[A-Z][a-z]{2,})*)[0-9]*$`)

// notKeyBodyPrefix is what comes before a base64 run that is no private
// key: a public key's or an SSH certificate's type, a data: URI, an
// integrity hash's algorithm, an XML signature's or encryption's element
// (a signature, a digest, a certificate, a ciphertext), a value sops or
// Travis CI encrypted.
const notKeyBodyPrefix = `(?:(?:ssh-(?:rsa|dss|ed25519)|ecdsa-sha2-nistp\d+)(?:-cert-v01@openssh\.com)?|sk-ssh-ed25519@openssh\.com)\s+|base64,|sha(?:1|256|384|512)-|` +
	`<(?:\w+:)?(?:SignatureValue|DigestValue|CipherValue|X509Certificate|Modulus)>|ENC\[AES256_GCM,data:|\bsecure:\s+"?`

// publicPrefixRE is what keyBodyRule's match starts with when the run is
// no private key.
var publicPrefixRE = regexp.MustCompile(`^(?:` + notKeyBodyPrefix + `)`)

// hasBase64Run reports whether s holds n base64 characters in a row.
func hasBase64Run(s string, n int) bool { return hasRun(s, n, &base64Bytes) }

// hasValueRun reports whether s holds n characters in a row of
// labelledSecretRule's value ([A-Za-z0-9/+_=.-]).
func hasValueRun(s string, n int) bool { return hasRun(s, n, &valueBytes) }

// byteSet is a set of bytes, for hasRun.
type byteSet [256]bool

func setOf(in func(byte) bool) (set byteSet) {
	for i := range set {
		set[i] = in(byte(i))
	}
	return set
}

var (
	base64Bytes = setOf(func(c byte) bool { return isAlnum(c) || c == '+' || c == '/' })
	valueBytes  = setOf(func(c byte) bool {
		return isAlnum(c) || c == '+' || c == '/' || c == '_' || c == '=' || c == '.' || c == '-'
	})
	hexBytes = setOf(isHexDigit)
)

// hasRun reports whether s holds n bytes in a row of class. It reads
// every n-th byte first, since a run of n covers one of them, and looks
// around only those in class: a run of 60 is ruled out in a 200-byte
// body after about four reads, not 200.
func hasRun(s string, n int, class *byteSet) bool {
	if n <= 0 {
		return true
	}
	for p := n - 1; p < len(s); {
		if !class[s[p]] {
			p += n // a run ending before p+n would cover p
			continue
		}
		start, end := p, p+1
		for start > 0 && end-start < n && class[s[start-1]] {
			start--
		}
		for end < len(s) && end-start < n && class[s[end]] {
			end++
		}
		if end-start >= n {
			return true
		}
		p = end + n // s[end] is not in class: the next run starts after it
	}
	return false
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
