package redact

import (
	"regexp"
	"strings"
)

// The rules below catch secrets written in prose that the rules before
// them passed over, as the attack run found them: a word between a
// password's name and the colon ("password reset: …"), and "pass" for a
// password where a verb says so ("log in with pass …"), and a variable
// set to a value in prose ("set ADMIN_PASS to …").

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
		return (t.has("pass") || t.has("pw") || obfuscatedPassword(t)) && strings.ContainsAny(t.raw, ":=→>")
	},
	secretish: proseValue,
}

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
	may:       func(t *text) bool { return t.has("pass ") },
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
		return t.has(" to ") && (t.has("set") || t.has("chang") || t.has("updat") || t.has("rotat")) &&
			(t.has("pass") || t.has("pw") || t.has("psw") || t.has("secret") || t.has("token") || t.has("key"))
	},
	secretish: proseValue,
}

// proseValue reports whether v, a value prose gives after a secret's
// name, looks made (madeNotWritten, a passphrase, or short letters and
// digits mixed: hunter2) and is no code, variable, path, URL or
// technical name.
func proseValue(v string) bool {
	v = strings.TrimRight(v, ".!?:)")
	if codeReference(v) || hostAfterAt.MatchString(v) || strings.Contains(v, "://") || pathLike(v) {
		return false
	}
	return (madeNotWritten(v) || passphraseLike(v) || shortMade(v)) && notAVariable(v) && !techNameRE.MatchString(v)
}
