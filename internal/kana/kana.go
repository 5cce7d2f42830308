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

// Before and After report whether a match at text[i:end] is a piece of
// a longer katakana word: one or two katakana touch it on that side (ブ
// before ランチ in ブランチ, ャー after ランチ in ランチャー). Three or more
// are most often a word of their own joined without a space, as compounds
// are written (リリース before ワークフロー, ノート after リリース).
func Before(text string, i int) bool {
	n := 0
	for j := i; j > 0 && n < maxAffix+1; n++ {
		r, size := utf8.DecodeLastRuneInString(text[:j])
		if !IsKatakana(r) {
			break
		}
		j -= size
	}
	return n >= 1 && n <= maxAffix
}

func After(text string, end int) bool {
	n := 0
	for j := end; j < len(text) && n < maxAffix+1; n++ {
		r, size := utf8.DecodeRuneInString(text[j:])
		if !IsKatakana(r) {
			break
		}
		j += size
	}
	return n >= 1 && n <= maxAffix
}

// maxAffix is the most katakana that can touch a match and still make it
// part of one word with them.
const maxAffix = 2

// StartsWord reports whether text holds term as a word or at the start
// of one: for a katakana term, an occurrence that is not the end of a
// longer katakana word (Before); any occurrence for other terms.
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

// HasJapanese reports whether s holds kana or kanji: text written in
// Japanese (or quoting it).
func HasJapanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}
