package redact

import "strings"

// A token typed with an East Asian input method comes out in full-width
// letters ("ｇｈｐ＿…", U+FF01–U+FF5E, the full-width forms of "!" to
// "~"), which reads as the token and which no rule's ASCII expression
// matches. Redact runs the rules again on such text written in ASCII
// (narrowFullWidth) and maps what they find back onto the text as
// written.

// minNarrowRun is how many characters in a row, ASCII or full-width and
// not a space, text must hold for its narrowed copy to be scanned: a
// year or a word in full-width letters (２０２４年, ＡＰＩキー) is no token.
const minNarrowRun = 8

// narrowFullWidth returns s with each full-width form (U+FF01–U+FF5E)
// written as its ASCII character, and at, the offset in s each byte of
// the result comes from (and len(s) for its end), when s holds a run of
// minNarrowRun printable characters, ASCII or full-width, with a
// full-width letter or digit among them. Otherwise ok is false, and the
// narrowed text is not built (the common case: Japanese prose's
// full-width punctuation, "？", is no letter).
func narrowFullWidth(s string) (narrow string, at []int, ok bool) {
	if !holdsFullWidthToken(s) {
		return "", nil, false
	}
	b := make([]byte, 0, len(s))
	at = make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		if r, ok := fullWidthAt(s, i); ok {
			b = append(b, r)
			at = append(at, i)
			i += 3
			continue
		}
		b = append(b, s[i])
		at = append(at, i)
		i++
	}
	return string(b), append(at, len(s)), true
}

// holdsFullWidthToken reports whether s holds a run narrowFullWidth
// scans.
func holdsFullWidthToken(s string) bool {
	if !holdsFullWidthAlnum(s) {
		return false // most text: no full-width form, or only punctuation ("？")
	}
	run, letter := 0, false
	for i := 0; i < len(s); {
		if c := s[i]; c > ' ' && c < 0x7f {
			run++
			i++
		} else if r, ok := fullWidthAt(s, i); ok {
			run++
			letter = letter || isAlnum(r)
			i += 3
		} else {
			run, letter = 0, false
			// Skip to the next byte that may start a run's character.
			next := i + 1
			for next < len(s) && s[next] >= 0x80 && s[next] != 0xef {
				next++
			}
			i = next
		}
		if run >= minNarrowRun && letter {
			return true
		}
	}
	return false
}

// holdsFullWidthAlnum reports whether s holds a full-width letter or
// digit.
func holdsFullWidthAlnum(s string) bool {
	for i := strings.IndexByte(s, 0xef); i >= 0; {
		if r, ok := fullWidthAt(s, i); ok && isAlnum(r) {
			return true
		}
		next := strings.IndexByte(s[i+1:], 0xef)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// fullWidthAt returns the ASCII character of the full-width form
// starting at s[i], if one does (U+FF01–U+FF3F are EF BC 81–BF,
// U+FF40–U+FF5E are EF BD 80–9E).
func fullWidthAt(s string, i int) (byte, bool) {
	if i+2 >= len(s) || s[i] != 0xef {
		return 0, false
	}
	switch c := s[i+2]; s[i+1] {
	case 0xbc:
		if 0x81 <= c && c <= 0xbf {
			return '!' + (c - 0x81), true
		}
	case 0xbd:
		if 0x80 <= c && c <= 0x9e {
			return '`' + (c - 0x80), true
		}
	}
	return 0, false
}
