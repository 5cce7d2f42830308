package redact

import (
	"strings"
	"sync"
)

// seedPhraseRule is a wallet's seed phrase: 12 to 24 words (any case) of
// the BIP-0039 English list in a row (bip39.go), which give whoever reads
// them the wallet. Words may be separated by spaces, line breaks or
// commas, and numbered ("1. abandon 2. ability …"). With a label before
// them ("seed phrase:", "mnemonic", "recovery phrase", "wallet words")
// any 12 to 24 such words are taken; without one the words must stand
// alone, 12, 15, 18, 21 or 24 of them filling their line or string, so a
// run of list words inside a sentence stays. Everyday prose does not
// pass either way: "the", "and", "for", "with" and "is" are not on the
// list.
var seedPhraseRule = rule{
	id:   "seed-phrase",
	find: seedPhrases,
	may:  mayHoldSeedPhrase,
}

// mayHoldSeedPhrase is seedPhraseRule's prefilter: 12 words have 11
// separators between them: spaces, tabs, line breaks or commas, or
// hyphens (abandon-ability-…), or Japanese commas or spaces among those.
func mayHoldSeedPhrase(t *text) bool {
	n := strings.Count(t.raw, " ") + strings.Count(t.raw, "\n")
	if n >= 11 {
		return true
	}
	n += strings.Count(t.raw, ",") + strings.Count(t.raw, "\t") + strings.Count(t.raw, "\r")
	if n >= 11 || strings.Count(t.raw, "-") >= 11 {
		return true
	}
	for _, w := range wideSeparators {
		if n += strings.Count(t.raw, w); n >= 11 {
			return true
		}
	}
	return false
}

// wideSeparators are the separators between a phrase's words outside
// ASCII: the Japanese comma and space, the full-width comma, a bullet.
var wideSeparators = []string{"、", "\u3000", "，", "•"}

// wideSeparatorAt is the length of the wide separator s holds at i, or 0.
func wideSeparatorAt(s string, i int) int {
	if c := s[i]; c != 0xe3 && c != 0xef && c != 0xe2 { // their first bytes
		return 0
	}
	for _, w := range wideSeparators {
		if strings.HasPrefix(s[i:], w) {
			return len(w)
		}
	}
	return 0
}

// bip39Words is bip39English as a set, built on first use.
var bip39Words = sync.OnceValue(func() map[string]struct{} {
	words := strings.Fields(bip39English)
	set := make(map[string]struct{}, len(words))
	for _, w := range words {
		set[w] = struct{}{}
	}
	return set
})

// seedLabels name a seed phrase, lower case.
var seedLabels = []string{"seed", "mnemonic", "recovery phrase", "recovery words", "recovery key", "backup phrase",
	"secret phrase", "secret recovery", "wallet", "12 words", "24 words", "12-word", "24-word",
	"シード", "復元フレーズ", "復元ワード", "リカバリーフレーズ", "リカバリフレーズ", "ニーモニック", "バックアップフレーズ", "ウォレット"}

// seedLabelWords are list words that are part of a label ("seed phrase
// abandon …"): before a labelled phrase, not in it.
var seedLabelWords = map[string]bool{"seed": true, "phrase": true, "word": true, "secret": true, "key": true}

// seedWindow is how far before a phrase its label may stand.
const seedWindow = 120

// seedPhrases finds seedPhraseRule's matches: each phrase's words, from
// the first to the last.
func seedPhrases(t *text) [][]int {
	s := seedText(t)
	var out [][]int
	// The words of the current run, where only separators came between
	// them; most runs are short, and stay on the stack.
	var buf [32][2]int
	run := buf[:0]
	flush := func() {
		if len(run) >= 12 {
			out = append(out, phrasesIn(t, run)...)
		}
		run = run[:0]
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z':
			j := i
			for j < len(s) && 'a' <= s[j] && s[j] <= 'z' {
				j++
			}
			if j-i < 3 || j-i > 8 || (i > 0 && isWordByte(s[i-1])) || (j < len(s) && isWordByte(s[j])) {
				flush()
				for j < len(s) && isWordByte(s[j]) {
					j++
				}
			} else {
				run = append(run, [2]int{i, j})
			}
			i = j
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '-' || c == '*':
			i++ // "-" and "*" join words (abandon-ability) or mark a list's items
		case '0' <= c && c <= '9':
			// A number before a word: "1. abandon", "2) ability", "#3 able".
			j := i
			for j < len(s) && '0' <= s[j] && s[j] <= '9' {
				j++
			}
			if j < len(s) && (s[j] == '.' || s[j] == ')' || s[j] == ':') {
				j++
			}
			if j-i > 3 || j == len(s) || (s[j] != ' ' && s[j] != '\t') || (i > 0 && isWordByte(s[i-1])) {
				flush()
			}
			i = j
		case c == '#' && i+1 < len(s) && '0' <= s[i+1] && s[i+1] <= '9':
			i++
		default:
			if n := wideSeparatorAt(s, i); n > 0 {
				i += n
				continue
			}
			if len(run) > 0 {
				flush()
			}
			i++
		}
	}
	flush()
	return out
}

// phrasesIn returns the seed phrases among run's words (12 or more, each
// of 3 to 8 lower-case letters): the stretches of list words that pass.
func phrasesIn(t *text, run [][2]int) [][]int {
	s := seedText(t)
	words := bip39Words()
	var out [][]int
	from := 0
	for k := 0; k <= len(run); k++ {
		if k < len(run) {
			if _, ok := words[s[run[k][0]:run[k][1]]]; ok {
				continue
			}
		}
		if k-from >= 12 {
			if m := seedPhrase(t, run[from:k]); m != nil {
				out = append(out, m)
			}
		}
		from = k + 1
	}
	return out
}

// seedPhrase returns the match of the phrase among words (12 or more list
// words in a row), or nil.
func seedPhrase(t *text, words [][2]int) []int {
	s := seedText(t)
	labelled := words
	for len(labelled) > 12 && seedLabelWords[s[labelled[0][0]:labelled[0][1]]] {
		labelled = labelled[1:] // "seed phrase abandon …": the label's words
	}
	if seedLabelled(t, labelled[0][0]) {
		labelled = labelled[:min(len(labelled), 24)]
		start, end := labelled[0][0], labelled[len(labelled)-1][1]
		return []int{start, end, start, end}
	}
	if n := len(words); n > 24 || n%3 != 0 || !oneCase(t.raw, words) {
		return nil
	}
	start, end := words[0][0], words[len(words)-1][1]
	if !phraseBoundary(s, start, -1) || !phraseBoundary(s, end, 1) {
		return nil
	}
	return []int{start, end, start, end}
}

// oneCase reports whether the words are written all in lower case or all
// in capitals: a phrase without a label, unlike a line of prose that
// starts with a capital ("Place essay sketch board …").
func oneCase(s string, words [][2]int) bool {
	lower, upper := true, true
	for _, w := range words {
		word := s[w[0]:w[1]]
		lower = lower && strings.ToLower(word) == word
		upper = upper && strings.ToUpper(word) == word
	}
	return lower || upper
}

// seedText is t as the words are read: in lower case when folding kept
// its offsets ("SEED: ABANDON ABILITY …", "Legal winner …" are phrases
// too), as written otherwise.
func seedText(t *text) string {
	if len(t.folded) == len(t.raw) {
		return t.folded
	}
	return t.raw
}

// seedLabelled reports whether a seed phrase's label stands before at,
// within seedWindow bytes.
func seedLabelled(t *text, at int) bool {
	lower := t.folded
	if len(lower) != len(t.raw) {
		lower = strings.ToLower(t.raw)
	}
	if len(lower) != len(t.raw) {
		return false
	}
	before := lower[max(0, at-seedWindow):at]
	for _, l := range seedLabels {
		if strings.Contains(before, l) {
			return true
		}
	}
	return false
}

// phraseBoundary reports whether a phrase without a label may start (dir
// -1) or end (dir 1) at i: only spaces, then the text's or a line's end,
// a quote, or a label's colon before it. Before its start may also stand
// its first word's number or bullet ("1. ", "2) ", "#3 ", "- ").
func phraseBoundary(s string, i, dir int) bool {
	for {
		if dir < 0 {
			i--
		}
		if i < 0 || i >= len(s) {
			return true
		}
		if dir < 0 {
			if j := listMarkerStart(s, i); j >= 0 {
				i = j
				continue
			}
		}
		switch c := s[i]; c {
		case ' ', '\t':
			if dir > 0 {
				i++
			}
			continue
		case '\n', '\r', '"', '\'', '`', '|', '[', ']':
			return true
		case ':', '=', '>', '(':
			return dir < 0
		case '.', ')':
			return dir > 0
		}
		return false
	}
}

// listMarkerStart is where the number or bullet of a list's item that
// ends at i starts ("12." "3)" "#4" "-" "*"), when a space follows it;
// -1 when s holds none there.
func listMarkerStart(s string, i int) int {
	if i+1 >= len(s) || s[i+1] != ' ' && s[i+1] != '\t' {
		return -1
	}
	switch c := s[i]; {
	case c == '-' || c == '*':
		return i
	case c == '.' || c == ')' || c == ':' || '0' <= c && c <= '9':
		j := i
		if c < '0' || c > '9' {
			j--
		}
		k := j
		for k >= 0 && '0' <= s[k] && s[k] <= '9' {
			k--
		}
		if k == j || j-k > 3 {
			return -1
		}
		if k >= 0 && s[k] == '#' {
			k--
		}
		return k + 1
	}
	return -1
}

// isWordByte is [A-Za-z0-9_]: \w, the word characters of Go's \b.
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' }
