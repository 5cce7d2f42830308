package redact

import "unicode/utf8"

// mayHoldGenericKey is a necessary condition for a match of gitleaks'
// generic-api-key rule (v8 default config):
//
//	(?i)[\w.-]{0,50}?(?:access|auth|…|token)(?:[ \t\w.-]{0,20})[\s'"]{0,3}
//	(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}
//	([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;]|\\[nr]|$)
//
// Every match has an operator character (= > : | , ?), then only
// operator, quote, back-quote, whitespace or "=" characters, then a secret
// of at least 10 characters from [A-Za-z0-9_.=+/-]. Under (?i) the
// letters of those classes also match U+017F (ſ) and U+212A (K), which
// count as secret characters here; every other non-ASCII character is in
// none of the classes. When no operator is followed that way by such a run
// the rule cannot match, and the text can skip its costly expression.
func mayHoldGenericKey(s string) bool {
	const minSecret = 10
	// run[i] is the length of the run of secret characters starting at
	// rune i, filled from the right.
	classes := make([]uint8, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			classes = append(classes, classOf(c))
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == '\u017f' || r == '\u212a' { // ſ and the Kelvin sign
			classes = append(classes, clSecret)
		} else {
			classes = append(classes, 0)
		}
		i += n
	}
	run := make([]int32, len(classes)+1)
	for i := len(classes) - 1; i >= 0; i-- {
		if classes[i]&clSecret != 0 {
			run[i] = run[i+1] + 1
		}
	}
	for o, cl := range classes {
		if cl&clOperator == 0 {
			continue
		}
		// The secret starts right after the operator or after any number of
		// separator characters following it.
		for p := o + 1; p <= len(classes); p++ {
			if run[p] >= minSecret {
				return true
			}
			if p == len(classes) || classes[p]&clSeparator == 0 {
				break
			}
		}
	}
	return false
}

const (
	clSecret    = 1 << iota // [A-Za-z0-9_.=+/-]
	clOperator              // first character of an operator: = > : | , ?
	clSeparator             // may stand between operator and secret: operator characters, ` ' " whitespace =
)

func classOf(c byte) uint8 {
	var cl uint8
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		cl |= clSecret
	}
	switch c {
	case '_', '.', '-', '+', '/':
		cl |= clSecret
	case '=':
		cl |= clSecret | clOperator | clSeparator
	case '>', ':', '|', ',', '?':
		cl |= clOperator | clSeparator
	case '`', '\'', '"', ' ', '\t', '\n', '\v', '\f', '\r':
		cl |= clSeparator
	}
	return cl
}

// isASCII reports whether s has only ASCII characters.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether s contains sub (lower-case ASCII),
// ignoring ASCII case.
func containsFoldASCII(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for ; j < len(sub); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}
