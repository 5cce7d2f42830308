package redact

import (
	"regexp"
	"strings"
)

// A placeholder stands where a secret would and holds none: a mask
// (********, xxxxxxxx, •••••), a name in brackets (<your password here>,
// <REDACTED>, [FILTERED], {password}), a name telling the reader to put
// theirs (YOUR_TOKEN_HERE, your_client_secret) or a word saying the value
// was taken out (REDACTED, ***MASKED***). Docs, templates and logs that
// scrubbed their secrets write them after a secret's name all the time;
// redacting one says nothing, and redacting the first word of one cuts it
// in two ("[REDACTED:password] password here>").

// placeholder reports whether s[start:end], a value a rule found, is a
// placeholder or lies inside one.
func placeholder(s string, start, end int) bool {
	v := s[start:end]
	return masked(v) || scrubbedWord(v) || yourName(v) || inBracketedName(s, start, end)
}

// yourNameRE is words of letters joined by "_" or "-", the first one
// "your": YOUR_TAILSCALE_AUTHKEY, your-api-key, YOUR_TOKEN_HERE. A digit
// or a symbol makes it a value.
var yourNameRE = regexp.MustCompile(`^(?i:your)[_-][A-Za-z]+(?:[_-][A-Za-z]+)*$`)

// yourName reports whether v names the reader's own secret instead of
// holding one.
func yourName(v string) bool {
	return len(v) > 5 && strings.EqualFold(v[:4], "your") && yourNameRE.MatchString(v)
}

// masked reports whether v is mask characters (at least three of *, x,
// X, #, •, ●), perhaps grouped by dashes, dots, underscores or spaces:
// "********", "xxxx-xxxx-xxxx".
func masked(v string) bool {
	n := 0
	for _, r := range v {
		switch r {
		case '*', 'x', 'X', '#', '•', '●':
			n++
		case '-', '.', '_', ' ':
		default:
			return false
		}
	}
	return n >= 3
}

// scrubbedWords say a value was taken out.
var scrubbedWords = setOfWords(`redacted filtered hidden masked omitted removed censored elided scrubbed sanitized obfuscated`)

// scrubbedWord reports whether v, less mask characters and brackets
// around it, is a word saying the value was taken out ("***REDACTED***").
func scrubbedWord(v string) bool {
	return scrubbedWords[strings.ToLower(strings.Trim(v, "*_#<>[](){} "))]
}

// maxBracketedName is the longest name in brackets a placeholder holds.
const maxBracketedName = 60

// inBracketedName reports whether s[start:end] starts with "<", "[", "{"
// or "(" and lies within the name in brackets that opens there, on its
// line: words of letters joined by spaces, dashes, dots or underscores
// ("<your password here>", "<YOUR_API_KEY>", "[FILTERED]"). Digits or
// symbols inside ("<Xk9!mQ2vL>") make it a value.
func inBracketedName(s string, start, end int) bool {
	var closing byte
	switch s[start] {
	case '<':
		closing = '>'
	case '[':
		closing = ']'
	case '{':
		closing = '}'
	case '(':
		closing = ')'
	default:
		return false
	}
	limit := min(len(s), start+1+maxBracketedName+1)
	i := start + 1
	letters := 0
	for ; i < limit && s[i] != closing; i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			letters++
		case c == ' ' || c == '-' || c == '.' || c == '_':
		default:
			return false
		}
	}
	return i < limit && letters > 0 && end <= i+1
}
