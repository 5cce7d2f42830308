// Package glossary maps software terms between Japanese and English, so a
// question asked in one language finds work recorded in the other
// ("認証の進捗は?" finds commits about auth). The pairs are built in
// (terms.tsv); the secretary applies them at query time.
package glossary

import (
	_ "embed"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

//go:embed terms.tsv
var termsTSV string

type tables struct {
	jaToEn map[string][]string
	enToJa map[string][]string
	jaKeys []string // Japanese entries, longest first (for finding them inside runs)
	kana   []string // those written with hiragana inside (文字化け, 見出し), longest first
}

var load = sync.OnceValue(func() *tables {
	t := &tables{jaToEn: map[string][]string{}, enToJa: map[string][]string{}}
	for _, line := range strings.Split(termsTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ja, en, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		ja = strings.ToLower(strings.TrimSpace(ja))
		for _, e := range strings.Split(en, "|") {
			e = strings.ToLower(strings.TrimSpace(e))
			if e == "" {
				continue
			}
			t.jaToEn[ja] = append(t.jaToEn[ja], e)
			t.enToJa[e] = append(t.enToJa[e], ja)
		}
	}
	for ja := range t.jaToEn {
		t.jaKeys = append(t.jaKeys, ja)
	}
	sort.Slice(t.jaKeys, func(i, j int) bool {
		li, lj := utf8.RuneCountInString(t.jaKeys[i]), utf8.RuneCountInString(t.jaKeys[j])
		if li != lj {
			return li > lj
		}
		return t.jaKeys[i] < t.jaKeys[j]
	})
	for _, k := range t.jaKeys {
		if hasHiragana(k) {
			t.kana = append(t.kana, k)
		}
	}
	return t
})

func hasHiragana(s string) bool {
	for _, r := range s {
		if r >= 'ぁ' && r <= 'ゖ' {
			return true
		}
	}
	return false
}

// Size is the number of distinct Japanese and English entries.
func Size() (ja, en int) {
	t := load()
	return len(t.jaToEn), len(t.enToJa)
}

// English returns the English forms of a Japanese term, or nil.
func English(ja string) []string { return load().jaToEn[strings.ToLower(ja)] }

// Japanese returns the Japanese forms of an English term, or nil. An
// English word matches an entry it equals, or one that is its stem
// ("authentication" → the entry "authenticat").
//
// A shorter stem's Japanese that the found forms hold whole is added
// after them: "dependency" finds 依存関係 (dependenc) and 依存 (depend),
// as Japanese commits mostly say 依存 alone ("…の依存削除").
func Japanese(en string) []string {
	t := load()
	en = strings.ToLower(en)
	best := en
	if t.enToJa[en] == nil {
		// The longest entry that is a stem of the word, so the answer
		// does not depend on map order.
		best = ""
		for e := range t.enToJa {
			if len(e) >= 5 && len(e) > len(best) && strings.HasPrefix(en, e) {
				best = e
			}
		}
	}
	found := t.enToJa[best]
	if found == nil {
		return nil
	}
	var heads []string
	for e, jas := range t.enToJa {
		if e == best || len(e) < 5 || !strings.HasPrefix(best, e) {
			continue
		}
		for _, ja := range jas {
			if !slices.Contains(found, ja) && !slices.Contains(heads, ja) && slices.ContainsFunc(found, func(f string) bool { return strings.Contains(f, ja) }) {
				heads = append(heads, ja)
			}
		}
	}
	if len(heads) == 0 {
		return found
	}
	slices.Sort(heads)
	return append(slices.Clone(found), heads...)
}

// EnglishPhrases lists the glossary's English entries written in more than
// one word ("dark mode", "stack trace"), longest first: a question naming
// one names one thing, to be looked up whole rather than word by word
// (dark → 暗い, mode → モード would never reach ダークモード).
func EnglishPhrases() []string {
	t := load()
	var out []string
	for en := range t.enToJa {
		if strings.Contains(en, " ") {
			out = append(out, en)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}

// Within lists the glossary's Japanese entries found inside a run of
// kanji/katakana (longest first, none overlapping an earlier one), so
// "トークン再発行" yields トークン and 再発行 and "読み取り専用モード" the
// pieces the glossary knows.
func Within(run string) []string {
	t := load()
	var found []string
	taken := make([]bool, len(run))
	for _, k := range t.jaKeys {
		if utf8.RuneCountInString(k) < 2 || len(k) > len(run) {
			continue
		}
		for from := 0; ; {
			i := strings.Index(run[from:], k)
			if i < 0 {
				break
			}
			i += from
			if !overlaps(taken, i, i+len(k)) {
				for j := i; j < i+len(k); j++ {
					taken[j] = true
				}
				found = append(found, k)
				break
			}
			from = i + 1
		}
	}
	return found
}

// Phrase is a glossary entry found in a text and how the text writes it:
// the entry itself, or another form of the verb it comes from (取り込む,
// 取り込んで for the entry 取り込み).
type Phrase struct{ Entry, Written string }

// Phrases lists the glossary's entries written with hiragana inside
// (文字化け, 見出し, 切り替え) that text holds, longest first, none
// overlapping an earlier one. Hiragana separates words in a question, so
// these would otherwise reach the search only as their kanji pieces. An
// entry that is a verb's stem form is found in the verb's other forms too
// (a held-out question asked for the mechanism that 取り込む comments).
func Phrases(text string) []Phrase {
	t := load()
	var found []Phrase
	taken := make([]bool, len(text))
	for _, k := range t.kana {
		at, written := strings.Index(text, k), k
		if at < 0 {
			at, written = verbForm(text, k)
		}
		if at >= 0 && !overlaps(taken, at, at+len(written)) {
			for j := at; j < at+len(written); j++ {
				taken[j] = true
			}
			found = append(found, Phrase{Entry: k, Written: written})
		}
	}
	return found
}

// godanRows maps the i-row kana a godan verb's stem form ends in (取り込み,
// 見出し) to the kana its other forms put there: the plain and negative
// forms (取り込む, 取り込まない), the conditional, the volitional, and
// the te-form's sound change (取り込んで, 書いて, 切って). An ichidan
// verb's stem form (切り替え) is a prefix of its forms and needs none.
var godanRows = map[rune]string{
	'み': "まむめもん", 'び': "ばぶべぼん", 'に': "なぬねのん",
	'し': "さすせそ", 'き': "かくけこい", 'ぎ': "がぐげごい",
	'ち': "たつてとっ", 'り': "らるれろっ", 'い': "わうえおっ",
}

// verbForm finds entry in text as another form of the godan verb it is
// the stem form of, returning where and as what, or -1. The rest of the
// entry must hold a kanji, so a short all-kana entry does not match
// inside other words.
func verbForm(text, entry string) (int, string) {
	last, size := utf8.DecodeLastRuneInString(entry)
	endings, ok := godanRows[last]
	stem := entry[:len(entry)-size]
	if !ok || !strings.ContainsFunc(stem, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
		return -1, ""
	}
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], stem)
		if i < 0 {
			break
		}
		i += from
		next, n := utf8.DecodeRuneInString(text[i+len(stem):])
		if n > 0 && strings.ContainsRune(endings, next) {
			return i, text[i : i+len(stem)+n]
		}
		from = i + len(stem)
	}
	return -1, ""
}

func overlaps(taken []bool, from, to int) bool {
	for i := from; i < to; i++ {
		if taken[i] {
			return true
		}
	}
	return false
}
