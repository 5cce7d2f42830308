package secretary

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/secretary/glossary"
)

// parsedQuery is what a question asks about.
type parsedQuery struct {
	Terms []string // topic keywords to search for, lower-case, any language
	// Concepts groups Terms by what the question asked about: each group is
	// one word of the question with its translations (glossary) and its
	// pieces. Confidence counts concepts covered, not terms.
	Concepts      [][]string
	Files         []string // mentioned paths (auth/jwt.go)
	Tickets       []string // ISSUE-123, #123
	Agents        []string // @eng-suzuki
	WantsProgress bool
	WantsBlockers bool
	Japanese      bool // answer in Japanese
}

var (
	ticketRE = regexp.MustCompile(`^(?:[A-Z][A-Z0-9]+-\d+|#\d+)$`)
	fileRE   = regexp.MustCompile(`^[\w.-]+(?:/[\w.-]+)*\.[A-Za-z0-9]{1,8}$|^[\w.-]+(?:/[\w.-]+)+/?$`)
)

// English words that carry no topic.
var stopwords = setOf(`a an and are as at be been being but by can could did do does doing done for from had has have
how i if in into is it its me my of on or our so than that the their them then there these they this to up us was we
were what when where which who whom why will with would you your about any anything some something tell know let
please currently right now today yet still already just get got there's what's how's`)

// Words that say what kind of answer is wanted rather than what about.
var progressWords = setOf(`progress status going state update updates far percent complete completed completion finished remaining eta`)
var blockerWords = setOf(`block blocks blocked blocker blockers blocking stuck problem problems issue issues impediment impediments risk risks waiting`)

// Japanese words (kanji/katakana runs or parts of them) that only say what
// kind of answer is wanted, or are too generic to search for.
var jaIntent = []struct {
	word              string
	progress, blocker bool
}{
	{"進捗状況", true, false}, {"進捗", true, false}, {"状況", true, false}, {"進み具合", true, false}, {"完了", true, false},
	{"ブロッカー", false, true}, {"ブロック", false, true}, {"要因", false, true}, {"課題", false, true}, {"問題", false, true},
	{"障害", false, true}, {"原因", false, true}, {"待", false, true},
	{"現在", false, false}, {"実装", false, false}, {"機能", false, false}, {"最近", false, false}, {"今日", false, false},
	{"作業", false, false}, {"対応", false, false}, {"教", false, false}, {"何", false, false}, {"今", false, false},
}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// parseQuery splits a question into topic terms and mentions. Latin text
// splits on spaces and punctuation (keeping paths and ticket ids whole);
// Japanese splits at kana particles and punctuation, keeping kanji and
// katakana runs, from which intent words are then cut out.
func parseQuery(text string) parsedQuery {
	var q parsedQuery
	var words []string
	add := func(t string) { words = append(words, t) }
	for _, tok := range tokenize(text) {
		if tok.cjk {
			q.Japanese = true
			for _, part := range q.cutIntent(tok.text) {
				if len([]rune(part)) >= 2 {
					add(part)
				}
			}
			continue
		}
		q.latinToken(tok.text, add)
	}
	if !q.Japanese {
		q.Japanese = hasKana(text)
	}
	q.expand(words)
	return q
}

// maxTerms bounds the search terms one question expands to.
const maxTerms = 16

// expand turns the question's words into concepts: each word with its
// glossary translations and, for a kanji/katakana run, the pieces it is
// made of, so 読み取り専用モード meets "read-only mode" and ライセンス表示
// meets ライセンス情報.
func (q *parsedQuery) expand(words []string) {
	seen := map[string]bool{}
	for _, w := range words {
		if w == "" || seen[w] {
			continue
		}
		group := []string{w}
		seen[w] = true
		for _, alt := range alternatives(w) {
			if !seen[alt] {
				seen[alt] = true
				group = append(group, alt)
			}
		}
		q.Concepts = append(q.Concepts, group)
	}
	// Every concept's own word first, then the alternatives, so the cap
	// cuts translations before it cuts anything the asker typed.
	for _, g := range q.Concepts {
		q.Terms = append(q.Terms, g[0])
	}
	for _, g := range q.Concepts {
		for _, alt := range g[1:] {
			if len(q.Terms) < maxTerms {
				q.Terms = append(q.Terms, alt)
			}
		}
	}
}

// alternatives are the other forms of one word of a question. Only
// Japanese words are translated: an English word already finds English
// history, and adding its Japanese forms drew in unrelated Japanese work
// (make eval: English top-3 64% → 50% with them).
func alternatives(w string) []string {
	if !isCJKWord(w) {
		return nil
	}
	out := append([]string(nil), glossary.English(w)...)
	if len(out) > 0 {
		return out
	}
	for _, piece := range append(scriptPieces(w), glossary.Within(w)...) {
		if piece != w && utf8.RuneCountInString(piece) >= 2 {
			out = append(out, piece)
			out = append(out, glossary.English(piece)...)
		}
	}
	return out
}

// scriptPieces splits a run where kanji meets katakana (専用モード → 専用,
// モード).
func scriptPieces(run string) []string {
	var out []string
	var cur []rune
	kata := false
	for i, r := range []rune(run) {
		k := unicode.Is(unicode.Katakana, r) || r == 'ー'
		if i > 0 && k != kata {
			out = append(out, string(cur))
			cur = cur[:0]
		}
		kata = k
		cur = append(cur, r)
	}
	if len(out) == 0 {
		return nil // one script: nothing to split
	}
	return append(out, string(cur))
}

func isCJKWord(w string) bool {
	for _, r := range w {
		if isKanjiKatakana(r) {
			return true
		}
	}
	return false
}

// latinToken classifies one space-separated word.
func (q *parsedQuery) latinToken(w string, add func(string)) {
	w = strings.Trim(w, ".,;:!?\"'()[]{}<>")
	switch {
	case w == "":
	case strings.HasPrefix(w, "@") && len(w) > 1:
		q.Agents = append(q.Agents, w[1:])
	case ticketRE.MatchString(w):
		q.Tickets = append(q.Tickets, w)
		add(strings.ToLower(strings.TrimPrefix(w, "#")))
	case strings.ContainsAny(w, "/.") && fileRE.MatchString(w):
		q.Files = append(q.Files, w)
		add(strings.ToLower(w))
	default:
		for _, part := range strings.FieldsFunc(strings.ToLower(w), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-'
		}) {
			part = strings.Trim(part, "-_")
			switch {
			case progressWords[part]:
				q.WantsProgress = true
			case blockerWords[part]:
				q.WantsBlockers = true
			case stopwords[part] || part == "":
			default:
				add(stem(part))
			}
		}
	}
}

// stem drops a plural "s" so "tokens" also finds "token" (the trigram
// index matches substrings, so the shorter form finds both).
func stem(w string) string {
	if len(w) > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
		return w[:len(w)-1]
	}
	return w
}

// cutIntent removes intent and generic words from a kanji/katakana run,
// noting which answers they ask for, and returns the remaining pieces.
func (q *parsedQuery) cutIntent(run string) []string {
	parts := []string{run}
	for _, in := range jaIntent {
		var next []string
		for _, p := range parts {
			if strings.Contains(p, in.word) {
				q.WantsProgress = q.WantsProgress || in.progress
				q.WantsBlockers = q.WantsBlockers || in.blocker
				next = append(next, strings.Split(p, in.word)...)
			} else {
				next = append(next, p)
			}
		}
		parts = next
	}
	return parts
}

type token struct {
	text string
	cjk  bool
}

// okuriganaRE finds verbs and nouns written kanji + okurigana + kanji
// (読み取り, 書き込み, 取り消し, 引き継ぎ): hiragana splits them into
// single characters that find nothing, so they are kept whole as well.
var okuriganaRE = regexp.MustCompile(`\p{Han}[りみきしちいえけせびぎじ]\p{Han}[りみきしちいえけせびぎじ]?`)

// tokenize splits text into latin words (runs without spaces or CJK) and
// kanji/katakana runs; kana particles, spaces and CJK punctuation separate.
// Okurigana compounds are added whole after the runs.
func tokenize(text string) []token {
	out := splitRuns(text)
	for _, w := range okuriganaRE.FindAllString(text, -1) {
		out = append(out, token{text: w, cjk: true})
	}
	return out
}

func splitRuns(text string) []token {
	var out []token
	var cur []rune
	curCJK := false
	flush := func() {
		if len(cur) > 0 {
			out = append(out, token{text: string(cur), cjk: curCJK})
		}
		cur = cur[:0]
	}
	for _, r := range text {
		switch {
		case isKanjiKatakana(r):
			if !curCJK {
				flush()
			}
			curCJK = true
			cur = append(cur, r)
		case unicode.IsSpace(r) || unicode.Is(unicode.Hiragana, r) || isCJKPunct(r):
			flush()
			curCJK = false
		default:
			if curCJK {
				flush()
			}
			curCJK = false
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

func isKanjiKatakana(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Katakana, r) || r == 'ー' || unicode.Is(unicode.Hangul, r)
}

func isCJKPunct(r rune) bool {
	return (r >= 0x3000 && r <= 0x303F) || (r >= 0xFF00 && r <= 0xFF0F) || (r >= 0xFF1A && r <= 0xFF20) || r == '・'
}

func hasKana(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) {
			return true
		}
	}
	return false
}
