package redact

import "strings"

// A URL written escaped reads as the URL to whatever decodes it: percent-
// encoded in a query or a redirect's parameter
// ("https%3A%2F%2Fapp%3APASS%40db"), encoded twice when that parameter was
// itself put in a URL ("https%253A%252F%252Fapp%253APASS%2540db"), or with
// the \u002f escapes some JSON encoders write for "/"
// ("https:\u002f\u002fapp:PASS@db"). No rule's expression reads those
// escapes. Redact runs the rules again on such text with the escapes
// decoded (unescapeURL) and maps what they find back onto the text as
// written, as it does for full-width letters.

// urlEscapes are the escapes unescapeURL decodes (in either case), with
// what each stands for: what a URL's credentials sit between, and the
// "=", "?" and "&" that set a URL apart from a parameter's name before it
// ("to%3Dhttps%3A…": no word boundary before a scheme glued to "3D").
var urlEscapes = [...]struct {
	escape string
	char   byte
}{
	{"%3a", ':'}, {"%2f", '/'}, {"%40", '@'}, {"%3d", '='}, {"%3f", '?'}, {"%26", '&'},
	{"%253a", ':'}, {"%252f", '/'}, {"%2540", '@'}, {"%253d", '='}, {"%253f", '?'}, {"%2526", '&'},
	{`\u003a`, ':'}, {`\u002f`, '/'}, {`\u0040`, '@'},
}

// unescapeURL returns s with urlEscapes decoded (in either case), and at,
// the offset in s each byte of the result comes from (and len(s) for its
// end), when t holds an escaped "//" or "@": what a URL's credentials
// follow or precede. Otherwise ok
// is false, and nothing is built (the common case: "%" and "\u" are
// rare, and most that there are escape something else).
func unescapeURL(t *text) (view string, at []int, ok bool) {
	if !holdsEscapedURL(t) {
		return "", nil, false
	}
	s := t.raw
	b := make([]byte, 0, len(s))
	at = make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		if c, n := urlEscapeAt(s, i); n > 0 {
			b = append(b, c)
			at = append(at, i)
			i += n
			continue
		}
		b = append(b, s[i])
		at = append(at, i)
		i++
	}
	return string(b), append(at, len(s)), true
}

// holdsEscapedURL reports whether t holds "//" or "@" escaped.
func holdsEscapedURL(t *text) bool {
	if strings.IndexByte(t.raw, '%') < 0 && strings.IndexByte(t.raw, '\\') < 0 {
		return false
	}
	return t.has("%2f%2f") || t.has("%40") || t.has("%252f%252f") || t.has("%2540") ||
		t.has(`\u002f\u002f`) || t.has(`\u0040`)
}

// urlEscapeAt returns the character the escape at s[i] stands for and
// the escape's length, or 0 when none starts there.
func urlEscapeAt(s string, i int) (byte, int) {
	if c := s[i]; c != '%' && c != '\\' {
		return 0, 0
	}
	for _, e := range urlEscapes {
		if len(s)-i >= len(e.escape) && strings.EqualFold(s[i:i+len(e.escape)], e.escape) {
			return e.char, len(e.escape)
		}
	}
	return 0, 0
}
