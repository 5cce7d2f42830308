package redact

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/aoi-protocol/aoi/internal/kana"
)

// The rules below catch secrets as people say them in chat and notes,
// the forms the last re-check still found readable: a PIN of digits
// alone, a secret named in one sentence and told in the next ("the wifi
// password? It's Blue42"), and a token written in spaced groups to be
// read out ("AKIA IOSF ODNN 7EXA MPLE"). secretIsRule wants a value that
// looks made, which digits alone and short values do not.

// pinRule is a PIN, passcode or door code of 4–8 digits: "the PIN is
// 4821", "door code: 170593", "暗証番号は 4821". The digits must end there:
// "pin: 2024-05-01" (a date), "PIN 1.2.3" (a version) and "the pin is
// GPIO17" stay.
var pinRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b(?:pin(?:\s?(?:code|number))?|pin's|passcode|(?:door|gate|garage|keypad|alarm|access|unlock|security|safe|lock)\s?code)s?` +
		`(?:\s+(?:for|of|on)(?:\s+\S{1,40}){1,3}?)?(?:\s+(?:is|was|are|will be|changed to|set to|reset to)(?:\s+(?:now|still|set to|changed to|reset to))?)?` +
		`(?:\s*(?::|=|->|→|—)\s*|\s+)["'\x60]?([0-9]{4,8})(?:$|[^0-9A-Za-z./:_-]|[./:](?:\s|$))` +
		`|(?:暗証番号|PIN\s?コード|PIN番号|パスコード|ロック解除コード)[\s\x{3000}]*(?:は|が|:|：|=|＝)?[\s\x{3000}]*["'「]?([0-9０-９]{4,8})(?:$|[^0-9０-９])`),
	may: func(t *text) bool {
		return t.has("pin") || t.has("code") || t.hasRaw("暗証番号") || t.hasRaw("コード") || t.hasRaw("パスコード")
	},
}

// itsSecretRule is a secret named, then told after "it's", "it is" or
// "use" later on the same line: "what's the staging password? It's
// hunter2", "the API token — it is Zr4Bx7kQ". The value must be made
// (madeNotWritten), a passphrase, or short letters and digits mixed
// (hunter2, Blue42), not a technical name (techNameRE), a version, a
// hash or words: "the token expired,
// it's fixed now" and "the password policy? it's v2.1" stay.
var itsSecretRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b(?:pass\s?word|passwd|passphrase|passcode|pin|token|api[ _-]?key|secret(?:[ _-]?key)?|credentials?)s?\b` +
		`[^\n]{0,80}?\b(?:it'?s|it is|it was|that'?s|that is|use|try)\s*:?\s*["'\x60]?([^\s"'\x60,;]{4,200})`),
	may: func(t *text) bool {
		// "use"/"try" answer a question ("the api token? use …"): without
		// a "?" they are everyday commit words, and the rule is not cheap.
		return (t.has("it's") || t.has("its ") || t.has("it is") || t.has("it was") || t.has("that") ||
			((t.has("use ") || t.has("try ")) && strings.Contains(t.raw, "?"))) &&
			(t.has("pass") || t.has("pin") || t.has("token") || t.has("key") || t.has("secret") || t.has("cred"))
	},
	secretish: func(v string) bool {
		v = strings.TrimRight(v, ".!?:)")
		return notAVariable(v) && !techNameRE.MatchString(v) && (madeNotWritten(v) || passphraseLike(v) || shortMade(v))
	},
}

// shortMade reports whether v, 6 characters or more, mixes letters, lower
// case among them, and digits and nothing else, the way a short password
// does (hunter2, Blue42x), and is no hex id (3f2a9c1) or name in capitals
// (GPIO17).
func shortMade(v string) bool {
	if len(v) < 6 || hexIdentifierRE.MatchString(v) {
		return false
	}
	letters, digits, lower := 0, 0, false
	for _, r := range v {
		switch {
		case r < 0x80 && unicode.IsLetter(r):
			letters++
			lower = lower || unicode.IsLower(r)
		case r < 0x80 && unicode.IsDigit(r):
			digits++
		default:
			return false
		}
	}
	return letters >= 2 && digits >= 1 && lower
}

// techNameRE is a technical name ending in a number, what "it's" is
// followed by in prose about a secret's format ("it's base64", "it's
// sha256 hashed").
var techNameRE = regexp.MustCompile(`^(?i:sha\d+|md\d|base\d+\w*|utf\d+|ucs\d|arm\d+|amd\d+|aarch\d+|x86|http\d|oauth\d|win\d+|u?int\d+|float\d+|es\d+|ipv\d|tlsv?\d+|ed\d+|rsa\d+|aes\d+|pbkdf\d|argon\d\w*|bcrypt\d*|scrypt\d*|rfc\d+|iso\d+)$`)

// passwordIntlRule is a password named in a language whose word for it
// Go's \b cannot bound (Cyrillic, Greek, Arabic, Vietnamese, Polish,
// Turkish, Nordic, Czech, Italian): "пароль: …", "hasło: …", "la password
// è …". The value must look made or be a passphrase.
var passwordIntlRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)(?:пароль|hasło|haslo|şifre|sifre|salasana|lösenord|losenord|adgangskode|heslo|κωδικός|κωδικος|mật khẩu|mat khau|كلمة المرور|la password|暗号|` +
		`PWは|ＰＷは|パスは|비번은?|\bmdp|\bclave(?:\s+del?\s+\S{1,20})?|\bp/w)` +
		`[\s\x{00a0}]*(?:è|je|on|est|es|er|är|on|ist|:|：|=|-|—)?[\s\x{00a0}]*["'«「]?([^\s"'»」,;]{4,100})`),
	may: func(t *text) bool {
		return t.hasRaw("ароль") || t.hasRaw("АРОЛЬ") || t.has("hasło") || t.has("haslo") || t.has("ifre") || t.has("salasana") || t.has("senord") ||
			t.has("adgangskode") || t.has("heslo") || t.hasRaw("κωδικ") || t.hasRaw("ΚΩΔΙΚ") || t.has("mật khẩu") || t.has("mat khau") ||
			t.hasRaw("المرور") || t.has("la password") || t.hasRaw("暗号") || t.has("pwは") || t.hasRaw("ＰＷ") || t.hasRaw("パスは") || t.hasRaw("비번") ||
			t.has("mdp") || t.has("clave") || t.has("p/w")
	},
	// "暗号強度の強い乱数" (cryptographically strong random numbers) goes
	// on in Japanese: prose about a cipher, not a password.
	secretish: func(v string) bool {
		return notAVariable(v) && (madeNotWritten(v) || passphraseLike(v) || shortMade(v)) && (!kana.HasJapanese(v) || kanaWithDigits(v))
	},
}

// passwordFromRule and passwordToRule are a password changed from one
// value to another: "change the admin password from Hq7wPz3kLm to
// Rt5yUi8oPa" (both go), and the second of two listed ("the passwords are
// … and Qw3rTy12Vb"; secretIsRule takes the first).
var (
	passwordFromRule = rule{
		id:        "password",
		re:        regexp.MustCompile(`(?i)\b` + changedSecret + `\b[^\n]{0,40}?\bfrom\s+["']?([^\s"',;]{4,100})`),
		may:       mayChangeSecret,
		secretish: changedValue,
	}
	passwordToRule = rule{
		id: "password",
		re: regexp.MustCompile(`(?i)\b` + changedSecret + `\b[^\n]{0,40}?\bfrom\s+\S{4,100}\s+to\s+["']?([^\s"',;]{4,100})` +
			`|\b` + changedSecret + `\s+(?:are|were)\s+\S{4,100}\s+and\s+["']?([^\s"',;]{4,100})`),
		may:       mayChangeSecret,
		secretish: changedValue,
	}
)

// changedSecret names what passwordFromRule and passwordToRule follow.
const changedSecret = `(?:pass\s?words?|passphrases?|pins?|tokens?|secrets?|keys?)`

func mayChangeSecret(t *text) bool {
	return (t.has("from") || t.has(" and ")) && (t.has("pass") || t.has("pin") || t.has("token") || t.has("secret") || t.has("key"))
}

func changedValue(v string) bool {
	v = strings.TrimRight(v, ".!?:)")
	return notAVariable(v) && !pathLike(v) && !techNameRE.MatchString(v) && !markdownLink(v) && (madeNotWritten(v) || shortMade(v))
}

// valueFirstRule is a secret told before its name: "Zx9kLm2q is the
// password for staging".
var valueFirstRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)(?:^|[\s"'(])([^\s"'(),;]{6,100})\s+(?:is|was|will be)\s+(?:the|our|my|your)\s+(?:new\s+|current\s+|old\s+)?(?:\w+\s+)?(?:pass\s?word|passphrase|passcode|pin|token|api[ _-]?key|secret)\b`),
	may: func(t *text) bool {
		return (t.has(" is the ") || t.has(" is our ") || t.has(" is my ") || t.has(" was the ")) &&
			(t.has("pass") || t.has("pin") || t.has("token") || t.has("key") || t.has("secret"))
	},
	secretish: func(v string) bool {
		return notAVariable(v) && !techNameRE.MatchString(v) && (madeNotWritten(v) || shortMade(v))
	},
}

// hexKeyRule is a key of 32 hex digits told after its name ("the new key
// is 8697a8d41bed…"); hex of a git object (40) or a SHA-256 (64) stays.
var hexKeyRule = rule{
	id: "generic-secret",
	re: regexp.MustCompile(`(?i)\b(?:api[ _-]?)?(?:key|token|secret)s?\b[^\n]{0,30}?(?:\s(?:is|was)\s|[:=])\s*["']?([0-9a-f]{32})(?:[^0-9a-zA-Z]|$)`),
	may: func(t *text) bool {
		return (t.has("key") || t.has("token") || t.has("secret")) && hasRun(t.raw, 32, &hexBytes)
	},
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// credentialPairRule is a user and password given as a pair after a name
// for them: "db creds: admin / X", "wifi: CorpNet / X", "login admin:X".
// Only the password is redacted, and only one that looks made.
var credentialPairRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b(?:creds|credentials|login|wi-?fi|ssid|zugangsdaten|identifiants|credenciales|credenziali)\b[\s\x{00a0}]*:?[\s\x{00a0}]*[^\s/:"']{1,40}[\s\x{00a0}]*(?:/|:)[\s\x{00a0}]*["']?([^\s"',;]{4,100})`),
	may: func(t *text) bool {
		return t.has("cred") || t.has("login") || t.has("wifi") || t.has("wi-fi") || t.has("ssid") || t.has("zugangsdaten") || t.has("identifiants")
	},
	// A URL is a link ("[set up the credentials]: https://…"); a
	// password in one is urlCredentialRule's.
	secretish: func(v string) bool {
		v = strings.TrimRight(v, ".!?)")
		return notAVariable(v) && !pathLike(v) && !strings.Contains(v, "://") && (madeNotWritten(v) || passphraseLike(v) || shortMade(v))
	},
	whole: func(m string) bool { return !nameInAFileName(m) },
}

// nameInAFileName reports whether the name credentialPairRule's match m
// starts with goes on after a dot: a file's name ("login.defs.d/
// MD5_CRYPT_ENAB.xml", "login.defs::MD5_CRYPT_ENAB"), not a label.
func nameInAFileName(m string) bool {
	i := 0
	for i < len(m) && (m[i] == '-' || 'a' <= m[i]|0x20 && m[i]|0x20 <= 'z') {
		i++
	}
	return i < len(m)-1 && m[i] == '.' && isAlnum(m[i+1])
}

// slashPairRule is a user and password given as a pair with nothing to
// name them, "root / S3cr3tPass": a slash with spaces around it between
// an account's name (lower case, or admin/root) and a value that mixes
// capitals, lower case and digits, or letters, digits and a symbol.
// "read / write", "TCP / UDP", "src / lib/x.go" and code dividing
// ("sum / float64(n)", "rune / 0sssssss") stay.
var slashPairRule = rule{
	id:        "password",
	re:        regexp.MustCompile(`(?:^|[\s(\[:"'\x60|])(?:(?i:admin|administrator|root)|[a-z][a-z0-9._@+-]{0,63}) +/ +["'\x60]?([A-Za-z0-9!@#$%^&*+=~._-]{6,100})(?:[\s"'\x60,;)]|$)`),
	may:       func(t *text) bool { return t.hasRaw(" / ") },
	secretish: func(v string) bool { return pairedPassword(v) && strongMade(strings.TrimRight(v, ".!?:)")) },
}

// strongMade reports whether v mixes capitals, lower case and digits, or
// letters, digits and a symbol.
func strongMade(v string) bool {
	var lower, upper, digit, symbol bool
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z':
			upper = true
		case '0' <= c && c <= '9':
			digit = true
		default:
			symbol = true
		}
	}
	return digit && (lower && upper || symbol && (lower || upper))
}

// useSlashPairRule is a user and password after "use": "for staging use
// admin/Xyz123secret". A branch or a path after "use" (use
// feature/Add2FALogin, use origin/Main2) names no account: whole
// rejects them by what comes before the slash.
var useSlashPairRule = rule{
	id:        "password",
	re:        regexp.MustCompile(`\b(?i:use)\s+(?:[A-Za-z][A-Za-z0-9_-]{0,39})\s*/\s*["'\x60]?([^\s"'\x60,;/()\[\]{}<>]{6,100})(?:[\s"'\x60,;)]|$)`),
	may:       mayUseSlash,
	secretish: pairedPassword,
	whole: func(m string) bool {
		user := strings.Fields(m)[1]
		user, _, _ = strings.Cut(user, "/")
		return !pathRoots[strings.ToLower(user)]
	},
}

// mayUseSlash is useSlashPairRule's prefilter: "use", white space, a
// name, perhaps spaces, then "/". Most text holding "use" and a slash
// ("refresh tokens on use", "auth/jwt.go") has no such thing.
func mayUseSlash(t *text) bool {
	s := t.folded
	if !t.has("use") || strings.IndexByte(s, '/') < 0 {
		return false
	}
	for i := strings.Index(s, "use"); i >= 0; {
		j := i + 3
		k := j
		for k < len(s) && isRESpace(s[k]) {
			k++
		}
		if k > j && k < len(s) && 'a' <= s[k] && s[k] <= 'z' {
			for k < len(s) && (isAlnum(s[k]) || s[k] == '_' || s[k] == '-') {
				k++
			}
			for k < len(s) && isRESpace(s[k]) {
				k++
			}
			if k < len(s) && s[k] == '/' {
				return true
			}
		}
		next := strings.Index(s[j:], "use")
		if next < 0 {
			break
		}
		i = j + next
	}
	return false
}

// isRESpace is \s in Go's regular expressions: \t \n \f \r and space.
func isRESpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// pathRoots are what comes before a slash in a branch name, a git ref, a
// repository or a path, not an account's name.
var pathRoots = map[string]bool{
	"feature": true, "features": true, "feat": true, "fix": true, "bugfix": true, "hotfix": true, "release": true,
	"releases": true, "origin": true, "upstream": true, "refs": true, "heads": true, "tags": true, "remotes": true,
	"main": true, "master": true, "src": true, "lib": true, "pkg": true, "cmd": true, "internal": true, "docs": true,
	"test": true, "tests": true, "api": true, "app": true, "apps": true, "bin": true, "usr": true, "etc": true,
	"var": true, "tmp": true, "home": true, "library": true, "images": true, "image": true, "branch": true,
	"chore": true, "dev": true, "wip": true,
}

// pairedPassword is the value of a user and password pair without a
// name for it: made-looking (madeNotWritten), and no variable, path,
// file name or technical name.
func pairedPassword(v string) bool {
	v = strings.TrimRight(v, ".!?:)")
	return madeNotWritten(v) && notAVariable(v) && !pathLike(v) && !fileNameLike(v) && !techNameRE.MatchString(v)
}

// fileNameLike reports whether v ends in a file name's extension
// (Main2File.go, Report2024.pdf).
func fileNameLike(v string) bool {
	dot := strings.LastIndexByte(v, '.')
	if dot <= 0 || len(v)-dot-1 < 1 || len(v)-dot-1 > 5 {
		return false
	}
	for _, c := range v[dot+1:] {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// spacedTokenRule is a token of a known fixed-length format written in
// groups to be read out or copied by hand, or cut by dashes, dots,
// slashes or pluses: "AKIA IOSF ODNN 7EXA MPLE", "ghp_ 1a2B 3c4D …",
// "ghp_1a2B-3c4D-…". Each format's characters are counted across single
// separators, so the match ends where the token does; the joined token
// must have been cut (gitleaks takes a whole one) and look made, so prose
// that happens to follow a prefix ("ghp_ tokens expire every ninety days
// …") stays. A format whose own characters include a separator (glpat-,
// github_pat_) is cut by spaces only.
var spacedTokenRule = rule{
	id: "split-token",
	re: regexp.MustCompile(spacedFormat(`\b(?:AKIA|ASIA)`, `[A-Z0-9]`, tokenCuts, 16) + `|` +
		spacedFormat(`\bgh[pousr]_`, `[A-Za-z0-9]`, tokenCuts, 36) + `|` +
		spacedFormat(`\bgithub_pat_`, `[A-Za-z0-9_]`, spaceCut, 82) + `|` +
		spacedFormat(`\bglpat-`, `[A-Za-z0-9_-]`, spaceCut, 20)),
	may: func(t *text) bool {
		return (t.has("akia") || t.has("asia") || t.has("glpat-") || t.has("github_pat_") || ghTokenPrefix(t.folded)) &&
			strings.ContainsAny(t.raw, " \u00a0-./+")
	},
	secretish: func(v string) bool {
		joined := tokenCutsRemover.Replace(v)
		if strings.HasPrefix(v, "glpat-") || strings.HasPrefix(v, "github_pat_") {
			joined = strings.NewReplacer(" ", "", "\u00a0", "").Replace(v)
		}
		return joined != v && madeNotWritten(joined)
	},
}

// Separators a token may be cut by.
const (
	tokenCuts = `[ \x{00a0}./+-]`
	spaceCut  = `[ \x{00a0}]`
)

var tokenCutsRemover = strings.NewReplacer(" ", "", "\u00a0", "", ".", "", "/", "", "+", "", "-", "")

// ghTokenPrefix reports whether lower holds a GitHub token's prefix
// (ghp_, gho_, ghu_, ghs_, ghr_).
func ghTokenPrefix(lower string) bool {
	for i := strings.Index(lower, "gh"); i >= 0 && i+3 < len(lower); {
		if strings.IndexByte("pousr", lower[i+2]) >= 0 && lower[i+3] == '_' {
			return true
		}
		next := strings.Index(lower[i+2:], "gh")
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return false
}

// spacedFormat is prefix then n characters of class, one of cut allowed
// before each, ending at a word's end.
func spacedFormat(prefix, class, cut string, n int) string {
	return `(` + prefix + `(?:` + cut + `?` + class + `){` + strconv.Itoa(n) + `})(?:[^A-Za-z0-9_]|$)`
}
