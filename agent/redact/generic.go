package redact

// mayHoldGenericKey is a necessary condition for a match of gitleaks'
// generic-api-key rule (v8 default config):
//
//	(?i)[\w.-]{0,50}?(?:access|auth|(?-i:[Aa]pi|API)|credential|creds|key|passw(?:or)?d|secret|token)
//	(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}
//	([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;]|\\[nr]|$)
//
// Every match has an operator character (= > : | , ?) that is
//   - preceded by a keyword, then at most 20 characters of [ \t\w.-], then
//     at most 3 of [\s'"], and
//   - followed by operator, quote, back-quote, whitespace or "=" characters
//     and then a secret of at least 10 characters from [A-Za-z0-9_.=+/-].
//
// Under (?i) the letters also match U+017F (ſ, as s) and U+212A (Kelvin
// sign, as k); foldASCII folds them to ASCII first. Every other non-ASCII
// byte is in none of the classes, as its character is in none. When no
// operator qualifies the rule cannot match, and the text can skip its
// costly expression.
func mayHoldGenericKey(s string) bool { return genericKeyMayMatch(newText(s)) }

// genericKeyMayMatch is mayHoldGenericKey on a text already folded.
func genericKeyMayMatch(t *text) bool {
	const minSecret = 10
	if !holdsGenericKeyword(t) {
		return false
	}
	text := t.folded
	for o := 0; o < len(text); o++ {
		c := text[o]
		if byteClass[c]&clOperator == 0 || c == '?' && (o+1 == len(text) || text[o+1] != '=') ||
			!secretFollows(text, o, minSecret) {
			continue // ("?" is an operator only in "?=")
		}
		if keywordPrecedes(text, o) {
			return true
		}
	}
	return false
}

// secretFollows reports whether, after the operator at o and any number of
// separator characters, a run of at least min secret characters starts.
func secretFollows(text string, o int, min int) bool {
	for p := o + 1; p < len(text); p++ {
		if secretRun(text, p, min) >= min {
			return true
		}
		if byteClass[text[p]]&clSeparator == 0 {
			return false
		}
	}
	return false
}

// secretRun is the length of the run of secret characters from p, counted
// up to min.
func secretRun(text string, p, min int) int {
	n := 0
	for ; n < min && p+n < len(text) && byteClass[text[p+n]]&clSecret != 0; n++ {
	}
	return n
}

// holdsGenericKeyword reports whether any of the rule's keywords occurs.
func holdsGenericKeyword(t *text) bool {
	for _, kw := range genericKeywords {
		if t.has(kw) {
			return true
		}
	}
	return false
}

// genericKeywords are the rule's keywords, lower-case ("api" stands for
// its case-sensitive [Aa]pi|API: a superset is safe).
var genericKeywords = []string{"access", "auth", "api", "credential", "creds", "key", "passwd", "password", "secret", "token"}

// keywordPrecedes reports whether a keyword ends before the operator at o
// with at most 20 characters of [ \t\w.-] and then at most 3 of [\s'"]
// between them.
func keywordPrecedes(text string, o int) bool {
	for y := 0; y <= 3 && y <= o; y++ {
		if y > 0 && !isQuoteSpace(text[o-y]) {
			break
		}
		end := o - y
		for x := 0; x <= 20 && x <= end; x++ {
			if x > 0 && !isNameChar(text[end-x]) {
				break
			}
			for _, kw := range genericKeywords {
				if k := end - x - len(kw); k >= 0 && text[k:end-x] == kw {
					return true
				}
			}
		}
	}
	return false
}

// isQuoteSpace is [\s'"] (\s is ASCII white space: \t \n \f \r space).
func isQuoteSpace(c byte) bool { return isSpace(c) || c == '\'' || c == '"' }

// isNameChar is [ \t\w.-] on folded text.
func isNameChar(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-' || c == ' ' || c == '\t'
}

const (
	clSecret    = 1 << iota // [A-Za-z0-9_.=+/-]
	clOperator              // first character of an operator: = > : | , ?
	clSeparator             // may stand between operator and secret: operator characters, ` ' " whitespace =
)

// byteClass is classOf for every byte, looked up instead of computed: the
// scan above reads every byte of a peer's request body.
var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		t[c] = classOf(byte(c))
	}
	return t
}()

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
