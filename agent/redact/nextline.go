package redact

import (
	"regexp"
	"strings"
)

// The rules read "\s" between a secret's name and its value, and "\s"
// takes a line break too: a line that merely ends with a secret's name
// ("reset the password", "echo $TOKEN", "env | grep token") made whatever
// started the next line its value, a shell pipeline or a sentence as
// often as not. A value found on the line after its name is kept as one
// only when the lines read as a secret written that way:
//
//   - a label and the value alone under it, looking made: "Password:"
//     (a prompt, a note) or "token" then "q8Zx3kLm9PwR2vTy"; under a
//     password's prompt, a plain word of six letters or more too, and
//     a passphrase's words;
//   - a sentence wrapped between its verb and the value: "the new api
//     token for staging is" then "Xk39…".

// nextLineValue reports whether the value s[start:end], which a rule
// found on a later line than the name it matched at nameAt, is that
// name's value (see above).
func nextLineValue(s string, nameAt, start, end int) bool {
	nl := nameAt + strings.IndexByte(s[nameAt:start], '\n')
	lead := s[nl+1 : start]
	if strings.IndexByte(lead, '\n') >= 0 {
		return false // a blank line between: another paragraph
	}
	naming := strings.TrimRight(s[lineStart(s, nameAt):nl], " \t\r")
	value := s[start:end]
	if (verbLast(naming) || schemeLast(naming)) && strings.TrimSpace(lead) == "" {
		return looksMade(value)
	}
	if !labelLineRE.MatchString(naming) || !aloneOnItsLine(s, start, end) {
		return false
	}
	return looksMade(value) || passwordPrompt(naming) && (plainPassword(value) || wordsOfAPassphrase(value) || pinDigits(value))
}

// pinDigits reports whether v is four to twelve digits: a PIN or a
// numeric password under its prompt ("PIN:" over "4821").
func pinDigits(v string) bool {
	return len(v) >= 4 && len(v) <= 12 && strings.Trim(v, "0123456789") == ""
}

// wordsOfAPassphrase reports whether value, alone under a password's or
// a passphrase's prompt, is a passphrase's words: three to twelve words
// of letters, none of them a word notes are written with ("correct horse
// battery staple", as spacedPassphraseRule takes it on one line; "see the
// vault" is a note).
func wordsOfAPassphrase(value string) bool {
	words := strings.Fields(strings.ToLower(value))
	if len(words) < 3 || len(words) > 12 {
		return false
	}
	for _, w := range words {
		if proseWords[w] || strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
			return false
		}
	}
	return true
}

// passwordPrompt reports whether a label line names a password or a PIN
// and ends in an operator ("Password:", "db_password =", "PIN:"): what the
// line under it holds is given as the password, a word as it may be, as
// passwordRule takes any value after "password:" on one line.
func passwordPrompt(label string) bool {
	label = strings.TrimRight(label, "*_ \t")
	lower := strings.ToLower(label)
	return (strings.Contains(lower, "pass") || strings.Contains(lower, "pw") || strings.Contains(lower, "pin")) && strings.ContainsAny(label[len(label)-1:], ":=")
}

// plainPassword reports whether v, alone under a password prompt, is a
// password of letters and digits (letmein, sunshine) rather than a word
// a script or a listing puts on a line of its own: a command or a shell
// keyword ("xargs", "done"), a type, a word a description or a note is
// written with ("required"). A key ("description:") has a colon.
func plainPassword(v string) bool {
	if len(v) < 6 || strings.IndexFunc(v, func(r rune) bool { return !(r < 0x80 && isAlnum(byte(r))) }) >= 0 {
		return false
	}
	lower := strings.ToLower(v)
	return !pipelineCommands[lower] && !pipelineFilters[lower] && !descriptionStarts[lower] && !proseWords[lower] && !typeNames[lower]
}

// lineStart is the offset of the start of the line holding s[i].
func lineStart(s string, i int) int { return strings.LastIndexByte(s[:i], '\n') + 1 }

// labelLineRE is a label: perhaps a list's bullet, a quote's or a
// comment's mark, and markdown emphasis, then one to four words (the
// secret's name and what it is for: "Admin password", "GitHub API
// token"), or up to eight before an operator ("Algolia admin key for
// the search index:"), perhaps quoted as a JSON key, perhaps a note in parentheses,
// then perhaps an operator, or an arrow or a dash secretIsRule reads as
// one. A word is letters, digits and "_.-'"; a "$", "|" or "(" before
// the name makes the line code or a command ("echo $PASSWORD").
var labelLineRE = regexp.MustCompile(`^[ \t]*(?:(?:[-*+>#]|//)+[ \t]*)?(?:\*\*|__)?["']?(?:` +
	labelWords + `{0,3}["']?` + labelNote + `(?:[:=：＝→⇒—–|]|->|=>)?` +
	`|` + labelWords + `{4,7}["']?` + labelNote + `(?:[:=：＝→⇒—–|]|->|=>))(?:\*\*|__)?$`)

// labelWords is a label's first word and, repeated, each one after it.
const labelWords = `[\p{L}\p{N}][\p{L}\p{N}_.'-]*(?:[ \t]+[\p{L}\p{N}][\p{L}\p{N}_.'-]*)`

// labelNote is a note in parentheses and emphasis closing after a label.
const labelNote = `(?:[ \t]*\([^)\n]{1,30}\))?(?:\*\*|__)?[ \t]*`

// verbLast reports whether line ends with a verb that says the value
// follows ("is", "was", "set to", "lautet"): a sentence wrapped before
// its value.
func verbLast(line string) bool {
	words := strings.Fields(strings.ToLower(strings.TrimRight(line, ":")))
	return len(words) >= 2 && valueVerbs[words[len(words)-1]]
}

// valueVerbs are the last words of secretIsRule's "name is" phrase.
var valueVerbs = setOfWords(`is are was were to now still ist lautet est es é è`)

// schemeLast reports whether line is an Authorization header cut after
// its scheme ("Authorization: Bearer"): the credential follows.
func schemeLast(line string) bool {
	words := strings.Fields(strings.ToLower(line))
	return len(words) >= 2 && strings.HasPrefix(words[0], "authorization") && authSchemes[words[len(words)-1]]
}

// authSchemes are the schemes authHeaderRule reads.
var authSchemes = setOfWords(`bearer basic token digest apikey negotiate`)

// aloneOnItsLine reports whether the value s[start:end] is all its line
// holds, but for spaces, the quotes around it and a user name before a
// password ("admin:…" under "login:").
func aloneOnItsLine(s string, start, end int) bool {
	before := strings.TrimLeft(s[lineStart(s, start):start], " \t")
	after := s[end:]
	if i := strings.IndexByte(after, '\n'); i >= 0 {
		after = after[:i]
	}
	after = strings.TrimRight(after, " \t\r")
	if before == "" || userBeforeRE.MatchString(before) {
		return after == ""
	}
	return len(before) == 1 && strings.ContainsAny(before, "\"'`") && after == before
}

// userBeforeRE is a user name and the separator of a pair (admin:…,
// admin / …) before a password that takes the rest of its line.
var userBeforeRE = regexp.MustCompile(`^[\w.@+-]{1,64}[ \t]*[:/][ \t]*$`)

// looksMade reports whether a value alone on its line is a secret's
// rather than code, a command or a word: no spaces, no variable, call or
// command substitution, not starting with what code or a path starts
// with, every bracket closed (a shell case's "add|merge|pull)" is code),
// no markdown link, and made (madeNotWritten, shortMade, randomLooking,
// or words joined with digits: passphraseLike).
func looksMade(v string) bool {
	if v == "" || strings.ContainsAny(v, " \t") || strings.IndexByte(`$-/.~<(#`, v[0]) >= 0 || !bracketsClose(v) {
		return false
	}
	if !notAVariable(v) || codeReference(v) || commandSubstitution(v) || markdownLink(v) || strings.HasSuffix(v, ";") {
		return false
	}
	return madeNotWritten(v) || shortMade(v) || randomLooking(v) || passphraseLike(v)
}
