// Package kana tells katakana words apart in text that writes them
// without spaces: ランチ (lunch) is no word of ブランチ (branch), as "charm"
// is no word of "charmbracelet".
package kana

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsKatakana reports whether r is katakana or the long-vowel mark ー.
func IsKatakana(r rune) bool { return unicode.Is(unicode.Katakana, r) || r == 'ー' }

// Word reports whether s is a katakana word: katakana and ー only.
func Word(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !IsKatakana(r) {
			return false
		}
	}
	return true
}

// Before and After report whether katakana touches text[i:end] on that
// side: the match then is a piece of a longer katakana word.
func Before(text string, i int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return i > 0 && IsKatakana(r)
}

func After(text string, end int) bool {
	r, _ := utf8.DecodeRuneInString(text[end:])
	return end < len(text) && IsKatakana(r)
}

// StartsWord reports whether text holds term at the start of a word: for
// a katakana term, an occurrence with no katakana just before it (a
// compound that goes on after it, リリースノート for リリース, counts); any
// occurrence for other terms.
func StartsWord(text, term string) bool {
	if !Word(term) {
		return strings.Contains(text, term)
	}
	for from := 0; ; {
		i := strings.Index(text[from:], term)
		if i < 0 {
			return false
		}
		if i += from; !Before(text, i) {
			return true
		}
		from = i + len(term)
	}
}
