package redact

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The rules below catch secrets written in prose that the rules before
// them passed over, as the attack run found them: a word between a
// password's name and the colon ("password reset: …"), and "pass" for a
// password where a verb says so ("log in with pass …"), and a variable
// set to a value in prose ("set ADMIN_PASS to …"), and a key told after
// "is" ("the key is …"), and HTTP Basic credentials without their header
// ("Basic dXNlcjpwYXNzd29yZA==").

// passwordNoteRule is a password's name, a word or two, then a colon or
// "=" and a value that looks made: "password reset: Xk9!mQ2vL", "root pw
// reset: …", "pw for prod now: …". passwordRule wants the operator right
// after the name, and takes any value; here the words between say what
// the password is for or when it changed, as often as not before prose
// ("password reset: click the link"), so the value must look made.
var passwordNoteRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b(?:pass\s?word|p[a@4]ssw[o0]rd|passwd|pass\s?phrase|passcode|pwd|pw)s?` +
		`(?:[ \t]+[A-Za-z]{2,20}){1,2}[ \t]*(?::|=|->|→)[ \t]*["'\x60]?([^\s"'\x60,;]{6,200})`),
	may: func(t *text) bool {
		return (t.has("pass") || t.has("pw") || obfuscatedPassword(t)) &&
			(strings.IndexByte(t.raw, ':') >= 0 || strings.IndexByte(t.raw, '=') >= 0 || strings.IndexByte(t.raw, '>') >= 0 || t.hasRaw("→"))
	},
	secretish: proseValue,
	// "password manager: 1Password", "password length: 12chars" describe
	// passwords.
	whole: func(m string) bool {
		i := strings.IndexAny(m, ":=-→")
		return !slices.ContainsFunc(strings.Fields(strings.ToLower(m[:i])), func(w string) bool { return passwordLabelWords[w] })
	},
}

// passwordLabelWords are words between a password's name and a colon
// that say the line describes passwords, not gives one.
var passwordLabelWords = setOfWords(`manager managers length policy policies strength requirement requirements complexity rule rules
expiry expiration age count field file format type hash hashing algorithm store storage vault min max minimum maximum size limit
chars characters entropy prompt label example sample pattern regex validation`)

// passVerbRule is the bare word "pass" naming a password: after "with",
// "use", "enter" and the like ("log in with pass Xk9!mQ2vL", "use pass
// …"), or before "is" or "was" ("the pass is …"). secretIsRule leaves
// "pass" out, since a test runner's "pass" is followed by made-looking
// text ("pass 42/42"); a verb before it or "is" after it says it is a
// password, and the value must look made ("pass the tests", "use pass
// rates" stay).
var passVerbRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b(?:(?:with|use|using|enter|type|try|and)[ \t]+(?:the[ \t]+|my[ \t]+|our[ \t]+)?pass|pass[ \t]+(?:is|was)(?:[ \t]+now)?[ \t]*:?)` +
		`[ \t]+["'\x60]?([^\s"'\x60,;]{6,200})`),
	may:       func(t *text) bool { return t.has("pass") },
	secretish: proseValue,
}

// setToRule is a secret set, changed or reset to a value in prose,
// named by a variable or words that say it is one: "set ADMIN_PASS to
// Xk9!mQ2vL", "set the DB password to …", "change the root password to
// …", "reset api_token to …". secretIsRule takes "password to …" after
// the word itself, not a variable's name (ADMIN_PASS, DB_PASSWORD: no
// word boundary before PASS). The value must look made: "set the password
// to something long" stays.
var setToRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\b(?:set|change|changed|reset|update|updated|rotate|rotated)[ \t]+(?:the[ \t]+|my[ \t]+|our[ \t]+|your[ \t]+)?` +
		`(?:[\w.-]{1,30}[ \t]+){0,2}?[\w.-]*?(?:pass|pwd|pw|psw|secret|token|key)[\w.-]*[ \t]+to[ \t]+["'\x60]?([^\s"'\x60,;]{6,200})`),
	may: func(t *text) bool {
		return (t.has("set") || t.has("chang") || t.has("updat") || t.has("rotat")) && namedThenTo(t, "pass", "pw", "psw", "secret", "token", "key")
	},
	secretish: proseValue,
}

// namedThenTo is setToRule's prefilter: one of the words, the rest of
// its name ([\w.-]*), blanks, "to" and a blank. Prose says " to "
// and "tokens" all the time ("rotate refresh tokens on use"), seldom
// right after a secret's name.
func namedThenTo(t *text, words ...string) bool {
	return afterWord(t, words, func(s string, j int) bool {
		for j < len(s) && (isWordByte(s[j]) || s[j] == '.' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		return k > j && strings.HasPrefix(s[k:], "to") && k+2 < len(s) && (s[k+2] == ' ' || s[k+2] == '\t')
	})
}

// keyIsRule is a key told in prose after "is" or "was": "the key is
// Tr0pic4lSunr1se!", "the license key for prod was …". secretIsRule names
// an API key, a secret key or a master key, not a bare "key", which code's
// documentation says of map keys, cache keys and columns ("the key is
// ready", "the cache key is userID2"): here the value must look made (a
// short one of letters and digits is no key: utf8mb4, 0x1F2E) and be no
// identifier (codeIdentifier) or hex (a commit, an id: hexKeyRule
// has a key of 32 hex digits).
var keyIsRule = rule{
	id: "password",
	re: regexp.MustCompile(`(?i)\bkeys?(?:[ \t]+(?:for|of|on)(?:[ \t]+[^\s(]{1,40}){1,3}?)?[ \t]+(?:is|was|are|were|will be)(?:[ \t]+(?:now|still))?[ \t]*:?[ \t]*` +
		`["'\x60]?([^\s"'\x60,;]{6,200})`),
	may: func(t *text) bool {
		// The verb follows a space or a tab: " is", "\tis", " was" …
		return t.has("key") && (t.has(" is") || t.has(" was") || t.has(" are") || t.has(" were") || t.has(" will") ||
			t.has("\tis") || t.has("\twas") || t.has("\tare") || t.has("\twere") || t.has("\twill"))
	},
	secretish: func(v string) bool {
		v = strings.TrimRight(v, ".!?:)")
		return proseValue(v) && (madeNotWritten(v) || passphraseLike(v)) && !codeIdentifier(v) && !joinedWords(v) &&
			!referenceRE.MatchString(v) && !hexIdentifierRE.MatchString(v)
	},
}

// codeIdentifier reports whether v is a name in code: letters, digits and
// underscores, each word of it (split at underscores and where a capital
// starts one: sha256Hash, userID2, XMLHttpRequest) a word a person named
// (wordRE), digits at its end. A made secret puts digits inside its
// words (Tr0pic4l, Xk9mQ2vL).
func codeIdentifier(v string) bool {
	if v == "" || !(v[0] == '_' || 'a' <= v[0] && v[0] <= 'z' || 'A' <= v[0] && v[0] <= 'Z') {
		return false
	}
	start := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && !isAlnum(v[i]) && v[i] != '_' {
			return false
		}
		if i < len(v) && i > start && !identifierWordStart(v, i) && v[i] != '_' {
			continue
		}
		if i > start && !wordRE.MatchString(v[start:i]) {
			return false
		}
		start = i
		if i < len(v) && v[i] == '_' {
			start = i + 1
		}
	}
	return true
}

// identifierWordStart reports whether a new word of an identifier starts
// at v[i]: a capital after a lower-case letter or a digit, or the last
// capital of a run before lower case (the R of XMLHttpRequest's Request,
// the H of XMLHttp).
func identifierWordStart(v string, i int) bool {
	c, p := v[i], v[i-1]
	if c < 'A' || c > 'Z' {
		return false
	}
	if 'a' <= p && p <= 'z' || '0' <= p && p <= '9' {
		return true
	}
	return 'A' <= p && p <= 'Z' && i+1 < len(v) && 'a' <= v[i+1] && v[i+1] <= 'z'
}

// basicCredentialRule is HTTP Basic credentials written without the
// Authorization header authHeaderRule wants: "curl -H 'X-Proxy: Basic
// dXNlcjpwYXNzd29yZA=='", "send Basic dXNlcjpwYXNzd29yZA== to the
// proxy". The base64 must decode to "user:password" (basicPair), so
// "Basic usage:" and "Basic Auth" stay.
var basicCredentialRule = rule{
	id:        "authorization-header",
	re:        regexp.MustCompile(`\b(?i:basic)[ \t]+([A-Za-z0-9+/]{4,1000}={0,2})(?:[^A-Za-z0-9+/=_.-]|\.(?:\s|$)|$)`),
	may:       func(t *text) bool { return t.has("basic") },
	secretish: basicPair,
}

// basicPair reports whether v is base64 of "user:password": text without
// control characters, a colon with something on either side of it.
func basicPair(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(v); err != nil {
			return false
		}
	}
	user, password, ok := strings.Cut(string(b), ":")
	if !ok || user == "" || password == "" || !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// variablePathRE is a path under a variable or the home directory:
// $HOME/…, ${XDG_CONFIG_HOME}/…, %APPDATA%\…, ~/….
var variablePathRE = regexp.MustCompile(`^(?:\$\{?[A-Za-z_]\w*\}?|%\w+%|~)[/\\]`)

// versionRE is a version: v1.2.3, 2.0.1-rc1.
var versionRE = regexp.MustCompile(`^v?[0-9]+(?:\.[0-9]+)+(?:[-+][0-9A-Za-z.-]+)?$`)

// proseValue reports whether v, a value prose gives after a secret's
// name, looks made (madeNotWritten, a passphrase, or short letters and
// digits mixed: hunter2) and is no code, variable, path (under a
// variable too: $HOME/.ssh/id_ed25519), URL, version or technical name.
func proseValue(v string) bool {
	v = strings.TrimRight(v, ".!?:)")
	if codeReference(v) || hostAfterAt.MatchString(v) || strings.Contains(v, "://") || pathLike(v) || variablePathRE.MatchString(v) || versionRE.MatchString(v) {
		return false
	}
	return (madeNotWritten(v) || passphraseLike(v) || shortMade(v)) && notAVariable(v) && !techNameRE.MatchString(v)
}
