package store

import "strings"

// Forgetting and exporting find an agent id in free text as a whole name:
// "pm-tanaka" matches in "asked pm-tanaka." and `{"from":"pm-tanaka"}` but
// not inside "pm-tanaka2" or "npm-tanaka", so forgetting one agent never
// rewrites another's name. Matching ignores ASCII case (ids are lower-case,
// people write PM-Tanaka).

// lowerASCII lower-cases ASCII letters only, keeping byte offsets.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// isNameByte reports whether c can continue an agent id.
func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// wholeName reports whether the match s[i:j] is not part of a longer name.
// A trailing '.' ends a sentence, not a name, unless a name byte follows it.
func wholeName(s string, i, j int) bool {
	if i > 0 && isNameByte(s[i-1]) {
		return false
	}
	if j >= len(s) || !isNameByte(s[j]) {
		return true
	}
	return s[j] == '.' && (j+1 >= len(s) || !isNameByte(s[j+1]) || s[j+1] == '.')
}

// mentionSpans returns the [start, end) byte spans where id occurs in s as
// a whole name.
func mentionSpans(s, id string) [][2]int {
	if id == "" || len(s) < len(id) {
		return nil
	}
	low, lid := lowerASCII(s), lowerASCII(id)
	var spans [][2]int
	for from := 0; from <= len(low)-len(lid); {
		k := strings.Index(low[from:], lid)
		if k < 0 {
			break
		}
		i, j := from+k, from+k+len(lid)
		if wholeName(s, i, j) {
			spans = append(spans, [2]int{i, j})
			from = j
		} else {
			from = i + 1
		}
	}
	return spans
}

// mentions reports whether s names id.
func mentions(s, id string) bool { return len(mentionSpans(s, id)) > 0 }

// replaceMentions replaces every whole-name occurrence of id in s.
func replaceMentions(s, id, with string) (string, bool) {
	spans := mentionSpans(s, id)
	if len(spans) == 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(with)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String(), true
}
