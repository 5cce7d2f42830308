package redact

import (
	"regexp"
	"strings"
)

// This file holds what tells passwordRule's name in code from a label:
// a function's name before its parameters, a word that only reads as a
// password's name across a camel-case boundary, the shell's working
// directory.

// passwordWordRE is the password's name within passwordRule's name, as
// the rule spells it (lower case).
var passwordWordRE = regexp.MustCompile(`p[a@4]ssw[o0]rd|passwd|pass\s?phrase|pwd|pword|pswr?d|psw`)

// leadingName is the name passwordRule's match m starts with.
func leadingName(m string) string {
	end := 0
	for end < len(m) && (isWordByte(m[end]) || m[end] == '-') {
		end++
	}
	return m[:end]
}

// codeName reports whether the name passwordRule's match m starts with is
// code rather than a label: a function called or defined with its
// parameters ("getPassword(user): …", "def set_password(self, raw):
// pass"), a word split by a camel-case boundary inside the password's
// name ("wrapWord = false"), or the shell's working directory given a
// path ("$PWD:/work", "OLDPWD": "/home/…").
func codeName(m string) bool {
	name := leadingName(m)
	return functionCall(name, m[len(name):]) || camelSplit(name) || workingDirectory(name, m[len(name):])
}

// functionCall reports whether name, followed by rest, is a function's
// name: its parameters right after it, and more to it than the
// password's name alone ("Password(prod): …" labels an environment's).
func functionCall(name, rest string) bool {
	if !strings.HasPrefix(rest, "(") {
		return false
	}
	word := passwordWordRE.FindString(strings.ToLower(name))
	return len(name) > len(word)
}

// camelSplit reports whether the password's name in name starts inside a
// camel-case word: "wrapWord" holds "pword" only as wra·p + Word.
func camelSplit(name string) bool {
	loc := passwordWordRE.FindStringIndex(strings.ToLower(name))
	if loc == nil || loc[0] == 0 || loc[1]-loc[0] < 2 {
		return false
	}
	i := loc[0]
	isLower := func(c byte) bool { return 'a' <= c && c <= 'z' }
	return isLower(name[i-1]) && isLower(name[i]) && 'A' <= name[i+1] && name[i+1] <= 'Z'
}

// workingDirectory reports whether name is the shell's working directory
// (PWD, OLDPWD) and what follows it a path.
func workingDirectory(name, rest string) bool {
	if n := strings.ToLower(name); n != "pwd" && n != "oldpwd" {
		return false
	}
	value := strings.TrimLeft(rest, "\"'` \t:=")
	return strings.HasPrefix(value, "/") || strings.HasPrefix(value, "~/")
}

// conversionRE is a conversion or a cast in code: "(*Frame)(…)",
// "(uint32)(…)".
var conversionRE = regexp.MustCompile(`^\(\*?[A-Za-z_][\w.]*\)\(`)

// literalWords are the literals code assigns a flag ("NoPassword": true,
// wrapWord = false): no password is one of them.
var literalWords = setOfWords(`true false null nil undefined`)

// codeLiteral reports whether v is a boolean or an empty value, or a
// conversion in code.
func codeLiteral(v string) bool {
	return literalWords[strings.ToLower(strings.TrimRight(v, ",;"))] || conversionRE.MatchString(v)
}

// codeExprRE is a value that opens an expression in code: a call or a
// conversion ("append(pw, …", "[]byte(apiKey)"), a composite literal,
// perhaps its address ("aws.Credentials{}", "&loginTokenAccessToken{"),
// or a qualified type's name in markdown emphasis ("*Tokens.Space*").
var codeExprRE = regexp.MustCompile(`^(?:[&*]?(?:\[\])?[A-Za-z_][\w.]*[({]|\*?[A-Z]\w*\.[A-Z]\w*\*)`)

// codeExpression reports whether v, a secret's value as a rule took it,
// is code (codeExprRE), or a name the text calls or builds right after
// it ("tokens = convertDNCL2(tokens)", "AccessToken: &accessToken{").
func codeExpression(s string, start, end int) bool {
	v := s[start:end]
	if codeExprRE.MatchString(v) {
		return true
	}
	return end < len(s) && (s[end] == '(' || s[end] == '{') && identifierRE.MatchString(strings.TrimLeft(v, "&*"))
}

// identifierRE is a name in code, perhaps qualified (pkg.Name).
var identifierRE = regexp.MustCompile(`^[A-Za-z_][\w.]*$`)
