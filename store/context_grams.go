package store

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxShortGrams bounds the short-term tokens kept per event.
const maxShortGrams = 4096

// isCJK reports whether r belongs to a script written without spaces
// between words, where every character pair is a candidate word.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Thai) || r == 'ー'
}

// contextShortGrams returns what context_short indexes for a text: the CJK
// bigrams (a lone CJK character on its own) and the words of one or two
// letters, lower-cased, deduplicated, space-separated. Longer terms are
// served by the trigram index.
func contextShortGrams(text string) string {
	seen := map[string]struct{}{}
	var out []string
	emit := func(tok string) {
		if _, dup := seen[tok]; dup || len(out) >= maxShortGrams {
			return
		}
		seen[tok] = struct{}{}
		out = append(out, tok)
	}
	var run []rune
	flush := func(cjk bool) {
		switch {
		case len(run) == 0:
		case cjk && len(run) == 1:
			emit(string(run))
		case cjk:
			for i := 0; i+1 < len(run); i++ {
				emit(string(run[i : i+2]))
			}
		case len(run) <= 2:
			emit(strings.ToLower(string(run)))
		}
		run = run[:0]
	}
	inCJK := false
	for _, r := range text {
		var word, cjk bool
		if r < utf8.RuneSelf { // most text: skip the Unicode tables
			word = 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
		} else {
			word, cjk = unicode.IsLetter(r) || unicode.IsDigit(r), isCJK(r)
		}
		if !word && !cjk || cjk != inCJK {
			flush(inCJK)
		}
		if word || cjk {
			run = append(run, r)
			inCJK = cjk
		}
	}
	flush(inCJK)
	return strings.Join(out, " ")
}

// ftsString quotes s as an FTS5 string literal.
func ftsString(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// maxTermTrigrams bounds the trigrams one term's match expression asks
// for; a longer term's rows are checked for the whole term anyway.
const maxTermTrigrams = 12

// trigramMatch is the context_fts MATCH expression for a term of three or
// more characters. The index (detail=none) cannot match a phrase, so the
// expression asks for rows holding trigrams that cover the term end to end
// without overlap ("billing": bil, lin, ing), ANDed: a superset of the rows
// holding the term, which the search checks for the term itself. Each
// trigram asked for costs a lookup in every index segment, so the
// overlapping ones, which would narrow the candidates little, are left out,
// and a long term asks for at most maxTermTrigrams, spread over it.
func trigramMatch(term string) string {
	r := []rune(term)
	last := len(r) - 3
	var starts []int
	for i := 0; i < last; i += 3 {
		starts = append(starts, i)
	}
	starts = append(starts, last)
	if len(starts) > maxTermTrigrams {
		picked := make([]int, maxTermTrigrams)
		for i := range picked {
			picked[i] = starts[i*(len(starts)-1)/(maxTermTrigrams-1)]
		}
		starts = picked
	}
	seen := map[string]bool{}
	var parts []string
	for _, i := range starts {
		if g := string(r[i : i+3]); !seen[g] {
			seen[g] = true
			parts = append(parts, ftsString(g))
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}

// isShortTerm reports whether term needs the short-term index (fewer than
// three characters, which a trigram cannot match).
func isShortTerm(term string) bool { return utf8.RuneCountInString(term) < 3 }

// shortMatch is the context_short MATCH expression for a 1–2 character
// term. A lone CJK character is a prefix query over the bigrams starting
// with it (plus itself when it stood alone).
func shortMatch(term string) string {
	r, _ := utf8.DecodeRuneInString(term)
	if utf8.RuneCountInString(term) == 1 && isCJK(r) {
		return ftsString(term) + "*"
	}
	return ftsString(term)
}
