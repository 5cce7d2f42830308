package secretary

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/secretary/glossary"
	"github.com/aoi-protocol/aoi/internal/kana"
	"github.com/aoi-protocol/aoi/store"
)

// parsedQuery is what a question asks about.
type parsedQuery struct {
	Terms []string // topic keywords to search for, lower-case, any language
	// Concepts groups Terms by what the question asked about: each group is
	// one word of the question with its translations (glossary) and its
	// pieces. Confidence counts concepts covered, not terms.
	Concepts [][]string
	// Weights[i][j] is how much a match on Concepts[i][j] counts: the
	// asked word 1, a translation of it a little less, a piece of it or a
	// translation into the other language less still.
	Weights       [][]float64
	Words         []string // what the asker typed, one per concept, for the summary
	Files         []string // mentioned paths (auth/jwt.go)
	Tickets       []string // ISSUE-123, #123
	Agents        []string // @eng-suzuki
	Versions      []string // releases named (v3.0.0, 1.4.0)
	Since         bool     // "since v1.0", "v1.0以降": what came after
	WantsProgress bool
	WantsBlockers bool
	WantsRecent   bool // "recently", "最近": the newest matches lead
	WantsWho      bool // "who", "誰": the answer names who did the work
	// LatestRelease: the question asks about the newest release without
	// naming it ("what's the latest tag?", "最新のリリースは？").
	LatestRelease bool
	// Relation: the question asks how two things bear on each other
	// ("is dark mode blocked on the redis config?"), so only evidence
	// naming both answers it.
	Relation bool
	// Replaced: the question speaks of something replaced ("we moved off
	// ansi_term", "乗り換えた"), so a swap of a plain word answers it too.
	Replaced bool
	// AsksCapability: the question asks whether something can be done
	// or exists ("can it…?", "is there…?", "…できる？"): the commit that
	// brought it answers as well as a newer edit, so age weighs less.
	AsksCapability bool
	Japanese       bool // answer in Japanese
	// properNames are words the question capitalised as a name that looks like
	// a plural (Windows): searched as written, not as the singular's
	// word (window, ウィンドウ).
	properNames map[string]bool
}

// capabilityRE asks whether something can be done or exists.
var capabilityRE = regexp.MustCompile(`(?i)^\s*(?:can|could)\s+(?:it|i|we|you|one|they)\b|^\s*(?:does|do)\s+(?:it|we|they)\s+(?:support|handle|have|offer|let|allow|work)\b|^\s*is\s+there\b|^\s*are\s+there\b|できる[？?]|できます[か？?]|出来る[？?]|使える[？?]|ある[？?]`)

var (
	ticketRE = regexp.MustCompile(`^(?:[A-Z][A-Z0-9]+-\d+|#\d+)$`)
	fileRE   = regexp.MustCompile(`^[\w.-]+(?:/[\w.-]+)*\.[A-Za-z0-9]{1,8}$|^[\w.-]+(?:/[\w.-]+)+/?$`)
)

// English words that carry no topic.
var stopwords = setOf(`a an and are as at be been being but by can could did do does doing done for from had has have
how i if in into is it its me my of on or our so than that the their them then there these they this to up us was we
were what when where which who whom why will with would you your about any anything some something tell know let
please currently right now today yet still already just get got there's what's how's happen happened happening
going go goes land landed lately recently recent latest newest last new week weeks work working worked also ever since been anyone
touch touched touches touching whose change changed changes changing
don doesn didn isn wasn aren weren hasn haven won can't ok coming come comes along went need needed like good shape
rely real really thing things much many far news against like off onto over under via using use used uses
anywhere everywhere somewhere anymore able whether should shall might may must both each either neither other others
same such only very too more most less least another per story all old stuff
asked ask asking through instead whatever remember remembered pm hey hi thanks thank
ship ships shipped way ways lot lots bunch nowadays one took rid inside within`)

// Words that ask for what happened lately (they stay stopwords: no topic).
// "last" asks for the newest ("who touched args.go last?"), "now",
// "currently", "still" and "anymore" for how things stand ("which Go
// version do we test with now?", "do we still use safe-chain?").
var recentWords = setOf(`recent recently lately latest newest last new now currently still anymore`)
var recentJA = []string{"最近", "最新", "近頃", "この頃", "最後", "廃止"}

// recentKana are words written in hiragana that ask how things stand now
// ("CI でまだ safe-chain 使ってる？": still); kana splits them away from
// the runs cutIntent reads, so the whole question is searched for them.
// "なくなった？" (is it gone?) asks for the latest state as "did we drop
// it?" does.
var recentKana = []string{"まだ", "なくなった", "なくなる", "なくした", "消えた"}

// latestReleaseRE asks about the newest release without naming it.
// "current" asks only as "what's the current version?": "pin it at its
// current version" names no release.
var latestReleaseRE = regexp.MustCompile(`(?i)\b(?:latest|last|newest|most recent)\s+(?:tag|release|version)s?\b|\bwhat(?:'s|\s+is)\s+(?:the\s+|its\s+)?current\s+(?:tag|release|version)\b|最新の?(?:リリース|タグ|バージョン)|直近の?(?:リリース|タグ)|前回の?リリース`)

// relationRE is what ties one thing in a question to another: X blocked
// on Y, X because of Y, Y待ちの X.
var relationRE = regexp.MustCompile(`(?i)\b(?:blocked|held up|stuck|waiting|hung up)\s+(?:on|by)\b|\bdepends?\s+on\b|\bbecause\s+of\b|\bdue\s+to\b|\bcaused\s+by\b|\bbroken\s+by\b|のせい|が原因|に依存|でブロック|にブロック|待ち`)

// theseDaysRE is "these days", "nowadays" in two words.
var theseDaysRE = regexp.MustCompile(`(?i)\bthese\s+days\b`)

// Words that ask whether something was removed: only its latest state
// answers that.
var removalWords = setOf(`gone drop dropped removed rid`)

// Words that ask who did the work (stopwords, or cut as intent).
var whoWords = setOf(`who whom whose`)
var whoJA = []string{"誰", "だれ", "どなた", "担当者"}

// Words that say what kind of answer is wanted rather than what about.
// "completion" is not one of them: in a codebase it is mostly a topic
// (shell completion, code completion).
var progressWords = setOf(`progress status going state update updates far percent complete completed finished remaining eta
green passing pass passes left look looks looking written`)
var blockerWords = setOf(`block blocks blocked blocker blockers blocking stuck problem problems issue issues impediment impediments risk risks waiting
hold holding held concern concerns prevent prevents preventing obstacle obstacles trouble troubles slowing hindering`)

// intentWord is a Japanese word that says what kind of answer is wanted.
type intentWord struct {
	word              string
	progress, blocker bool
}

// Japanese words (kanji/katakana runs or parts of them) that only say what
// kind of answer is wanted, or are too generic to search for.
var jaIntent = []intentWord{
	{"残作業", true, false}, {"進捗状況", true, false}, {"進捗", true, false}, {"状況", true, false}, {"進み具合", true, false}, {"完了", true, false},
	{"ブロッカー", false, true}, {"ブロック", false, true}, {"要因", false, true}, {"課題", false, true}, {"問題", false, true},
	{"障害", false, true}, {"原因", false, true}, {"待", false, true},
	{"現在", false, false}, {"実装", false, false}, {"機能", false, false}, {"最近", false, false}, {"今日", false, false},
	{"作業", false, false}, {"対応", false, false}, {"教", false, false}, {"何", false, false}, {"今", false, false},
	{"仕上", true, false}, {"未解決", false, true}, {"追加", false, false}, {"修正", false, false},
	{"最後", false, false}, {"担当者", false, false}, {"担当", false, false}, {"変更", false, false},
	{"懸念", false, true}, {"困", false, true}, {"詰", false, true}, {"妨", false, true},
	// Words that fit any topic: a mechanism, information, a measure, an
	// adjustment of anything.
	{"仕組", false, false}, {"情報", false, false}, {"対策", false, false}, {"調整", false, false},
}

// Conversational words: how a colleague tells the story around a question
// ("a user said…", "I heard…", "someone posted…", "it keeps…", "again"),
// not what it is about. The English ones are those of the SMART stop list
// (Salton's, as shipped by common IR toolkits) that the stopwords above
// lack, with the other forms of its speech verbs (say, tell) and hear; the
// Japanese ones the kanji words of the SlothLib list that name no thing a
// codebase holds (本当, 結局, 今回). They are searched only when nothing
// else in the question is.
var chatterEN = setOf(`said say says saying saw seen seem seems seemed someone somebody anybody everyone everybody nobody
again around keep keeps kept think thought believe wonder wondering sure maybe perhaps actually apparently certainly
probably definitely basically seriously hear heard hears hearing told tells telling mentioned mention mentions
behave behaves behaving properly
give gives giving proper want wants wanted wanting ones own rather whichever people specific afterward afterwards getting
suppose supposed supposedly`)
var chatterJA = setOf(`本当 確か 結局 全部 様々 我々 今回 前回 自体 多く 感じ 近く 何人`)

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
	pieces := map[string][]string{}
	add := func(t string, ps ...string) {
		words = append(words, t)
		if len(ps) > 0 {
			pieces[t] = ps
		}
	}
	text = strings.ReplaceAll(text, "’", "'")
	// "these days" is filler, as "nowadays" is: days is no topic. It
	// does not ask for the newest work ("can a justfile load two .env
	// files these days?" is answered by the commit that made it so).
	text = theseDaysRE.ReplaceAllString(text, "nowadays")
	asked := text
	text, phrases := cutQuoted(text)
	for _, p := range phrases {
		add(p)
		q.Japanese = q.Japanese || hasKana(p)
	}
	text = q.cutIntentPhrases(text)
	// Glossary words written with hiragana inside (文字化け, 見出し,
	// 切り替え) are taken whole before kana splits them.
	for _, p := range glossary.Phrases(text) {
		add(p.Entry)
		q.Japanese = true
		text = strings.Replace(text, p.Written, " ", 1)
	}
	// English names of one thing in two words ("control characters") are
	// one concept, searched with what commits call it otherwise.
	// So are the glossary's English entries of several words ("dark
	// mode"), which reach their Japanese name (ダークモード) only whole.
	for _, ph := range englishPhrases {
		m := ph.re.FindString(text)
		if m == "" {
			continue
		}
		if ph.joined == "" {
			add(ph.name)
		} else {
			// As asked ("memory management", not the entry's stem),
			// with the entry and the asked words joined as other forms.
			asked := plural(strings.Join(strings.FieldsFunc(strings.ToLower(m), isPhraseSeparator), " "))
			add(asked, ph.name, strings.ReplaceAll(asked, " ", ""))
		}
		text = ph.re.ReplaceAllString(text, " ")
	}
	q.Since = sinceRE.MatchString(text)
	q.AsksCapability = capabilityRE.MatchString(asked)
	q.Replaced = replacementCue.MatchString(text)
	q.Relation = relationRE.MatchString(text)
	q.LatestRelease = latestReleaseRE.MatchString(text)
	q.WantsRecent = slices.ContainsFunc(recentKana, func(w string) bool { return strings.Contains(text, w) })
	q.WantsWho = slices.ContainsFunc(whoJA, func(w string) bool { return strings.Contains(text, w) })
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
	if q.WantsProgress && displayCueRE.MatchString(asked) {
		// "can I see the encoding's progress in the browser?": progress
		// is what is shown, a topic, besides how the work is going.
		if q.Japanese {
			add("進捗")
		} else {
			add("progress")
		}
	}
	q.expand(words, pieces)
	return q
}

// displayCueRE says a question asks whether something is shown: then a
// progress word in it names a feature (a progress bar), not only the
// wish to hear how the work goes.
var displayCueRE = regexp.MustCompile(`(?i)\b(?:see|show|shows|shown|display|displayed|view|visible)\b|見られ|見れ|見え|表示|確認でき`)

// maxTerms bounds the search terms one question expands to.
const maxTerms = 16

// namedContexts narrows contexts to those the question names ("what's new
// in nadesiko3?", "promises-bookの最近の作業", "the Unity SDK" for
// sora-unity-sdk): the name says where to look, not what to look for, so
// its concepts are dropped. A question naming none keeps every context.
func (q parsedQuery) namedContexts(contexts []string) ([]string, parsedQuery) {
	var named []string
	keep := q
	keep.Concepts, keep.Weights, keep.Words, keep.Terms = nil, nil, nil, nil
	naming := make([]bool, len(q.Words))
	for i := range q.Words {
		// A name written in words ("Unity SDK", "argument parser"): two or
		// three of them in a row, joined as the repository joins them.
		for n := 3; n >= 1; n-- {
			if i+n > len(q.Words) {
				continue
			}
			span := strings.Join(q.Words[i:i+n], "-")
			for _, c := range contexts {
				if namesContext(span, c) {
					if !slices.Contains(named, c) {
						named = append(named, c)
					}
					for j := i; j < i+n; j++ {
						naming[j] = true
					}
				}
			}
		}
	}
	for i, w := range q.Words {
		if naming[i] {
			continue
		}
		keep.Concepts = append(keep.Concepts, q.Concepts[i])
		keep.Weights = append(keep.Weights, q.Weights[i])
		keep.Words = append(keep.Words, w)
	}
	if len(named) == 0 {
		return contexts, q
	}
	for _, g := range keep.Concepts {
		keep.Terms = append(keep.Terms, g...)
	}
	return named, keep
}

// namesContext reports whether a word of the question is a context's
// identifier or its last segment (uchan-nos/mikanos: "mikanos"), or that
// segment's last hyphenated words (shortNames: "argument-parser").
func namesContext(word, ctxID string) bool {
	id := strings.ToLower(ctxID)
	name := id[strings.LastIndex(id, "/")+1:]
	if len(name) >= 3 && (word == id || plural(word) == plural(name)) {
		return true
	}
	return slices.Contains(shortNames(name), word)
}

// searchConcepts is the question as the store searches it.
func (q parsedQuery) searchConcepts() []store.ContextConcept {
	out := make([]store.ContextConcept, len(q.Concepts))
	for i, g := range q.Concepts {
		out[i] = store.ContextConcept{Forms: g, Weights: q.Weights[i], Names: q.conceptNames(i), Version: q.asksVersion(i)}
	}
	return out
}

// asksVersion reports whether concept i asks for a version ("which
// version did we bump it to?", 「どのバージョンに上げた？」) in a question
// naming something else too: a version number then says it.
func (q parsedQuery) asksVersion(i int) bool {
	if len(q.Concepts) < 2 || len(q.Concepts[i]) == 0 {
		return false
	}
	switch q.Concepts[i][0] {
	case "version", "versions", "バージョン":
		return true
	}
	return false
}

// namesLike are product names spelled as the plural of a common word. The
// index holds text lower-cased, so "window" found every commit about the
// Windows port; a question asking for the word in lower case ("a sliding
// window", ウィンドウ) is not about the name, and a match the text writes
// as the name counts as little as one inside a longer word. A question
// typing the name itself ("windows", "GitHub Actions") searches it as
// before. Only plurals are listed: a name spelled as the word itself
// (Chrome, Slack, Edge) cannot be told from it at a sentence's start.
var namesLike = map[string][]store.Name{
	"window": {{Word: "Windows", Lower: true}}, // the operating system, also in build targets
	"action": {{Word: "Actions"}},              // GitHub Actions
	"page":   {{Word: "Pages"}},                // GitHub Pages, Cloudflare Pages
	"worker": {{Word: "Workers"}},              // Cloudflare Workers
	"team":   {{Word: "Teams"}},                // Microsoft Teams
}

// conceptNames are the names concept i's English forms are spelled like,
// unless the question typed one of them.
func (q parsedQuery) conceptNames(i int) []store.Name {
	typed := ""
	if i < len(q.Words) {
		typed = strings.ToLower(q.Words[i])
	}
	var out []store.Name
	for _, f := range q.Concepts[i] {
		for _, n := range namesLike[f] {
			if !strings.EqualFold(n.Word, typed) && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// Weights of a concept's forms (see parsedQuery.Weights).
const (
	weightWord        = 1.0
	weightTranslation = 0.9 // 認証 → auth
	weightPiece       = 0.6 // 専用モード → モード
	weightOther       = 0.5 // a piece's translation; Japanese forms of an English word
)

type form struct {
	text   string
	weight float64
}

// expand turns the question's words into concepts: each word with its
// glossary translations and, for a kanji/katakana run, the pieces it is
// made of, so 読み取り専用モード meets "read-only mode" and ライセンス表示
// meets ライセンス情報. pieces holds the other forms of an English word
// joined from several (see joinedForms), searched after its translations.
func (q *parsedQuery) expand(words []string, pieces map[string][]string) {
	seen := map[string]bool{}
	split, compoundForms := splitCompounds(words)
	for _, w := range withoutChatter(split) {
		if w == "" || seen[w] {
			continue
		}
		seen[w] = true
		display, base := w, w
		if !isCJKWord(w) && !q.properNames[w] {
			base = plural(w) // the glossary's form: "tokens" → token
			w = searchStem(base)
		}
		group, weights := []string{w}, []float64{weightWord}
		var alts []form
		if !q.properNames[w] { // a name is not translated
			alts = alternatives(base)
		}
		for _, alt := range alts {
			if !seen[alt.text] && alt.text != w {
				seen[alt.text] = true
				group = append(group, alt.text)
				weights = append(weights, alt.weight)
			}
		}
		for _, p := range pieces[display] {
			if !seen[p] && p != w {
				seen[p] = true
				group = append(group, p)
				weights = append(weights, pieceWeight(p, display))
			}
		}
		// A piece of a compound is also met by the compound's English
		// (スタック of スタックトレース by "stacktrace"), which holds the
		// piece's translation only inside a longer word, a half match.
		// Each piece's concept takes it, not seen: all of them do.
		for _, f := range compoundForms[display] {
			if !slices.Contains(group, f) {
				group = append(group, f)
				weights = append(weights, weightTranslation)
			}
		}
		q.Concepts = append(q.Concepts, group)
		q.Weights = append(q.Weights, weights)
		q.Words = append(q.Words, display)
	}
	q.Terms = termsOf(q.Concepts)
}

// withoutChatter drops the conversational words (chatterEN, chatterJA)
// from words that hold any other.
func withoutChatter(words []string) []string {
	isChatter := func(w string) bool { return chatterEN[w] || chatterEN[plural(w)] || chatterJA[w] }
	if !slices.ContainsFunc(words, func(w string) bool { return !isChatter(w) }) {
		return words
	}
	return slices.DeleteFunc(slices.Clone(words), isChatter)
}

// splitCompounds replaces a kanji/katakana compound the glossary does not
// know by the words it is made of (コマンド履歴 → コマンド, 履歴): each is
// a concept of its own, so an event about "command history" covers both,
// and one about commands only covers half. The compound written whole
// still matches every piece.
//
// forms holds, for each piece of a compound made wholly of glossary
// words, the compound's English (see compoundEnglish).
func splitCompounds(words []string) (out []string, forms map[string][]string) {
	for _, w := range words {
		if !isCJKWord(w) || glossary.English(w) != nil {
			out = append(out, w)
			continue
		}
		parts := compoundParts(w)
		if len(parts) == 1 && (glossary.English(parts[0]) != nil || kana.Word(parts[0]) && utf8.RuneCountInString(parts[0]) >= 3) {
			// A glossary word and a character that is no word of its own
			// (ターミナル上, "on the terminal"): the word reaches English.
			// So does a katakana word the glossary lacks (スラッグ化,
			// "slugify"): alone it reaches English by its sound
			// (loanwords); with 化 attached it matched nothing.
			out = append(out, parts[0])
			continue
		}
		if len(parts) < 2 {
			out = append(out, w)
			continue
		}
		out = append(out, parts...)
		if en := compoundEnglish(w, parts); en != nil {
			if forms == nil {
				forms = map[string][]string{}
			}
			for _, p := range parts {
				forms[p] = append(forms[p], en...)
			}
		}
	}
	return out, forms
}

// compoundEnglish is a compound's English when every piece of it is a
// glossary word translated by one English word: the pieces' first
// translations in the compound's order, as a phrase and as one word
// (ジョブキュー: "job queue", "jobqueue"; コマンド履歴: "command
// history"), the way English writes such a noun and identifiers join it.
// nil otherwise.
func compoundEnglish(compound string, parts []string) []string {
	if len(parts) < 2 || len(parts) > 3 {
		return nil
	}
	// The pieces come longest first (glossary.Within): put them back in
	// the order the compound writes them.
	parts = slices.Clone(parts)
	slices.SortStableFunc(parts, func(a, b string) int { return strings.Index(compound, a) - strings.Index(compound, b) })
	var words []string
	for _, p := range parts {
		ens := glossary.English(p)
		if len(ens) == 0 || !isLatinWord(ens[0]) || len(ens[0]) < 3 {
			return nil
		}
		words = append(words, ens[0])
	}
	return []string{strings.Join(words, " "), strings.Join(words, "")}
}

// compoundParts cuts a run where its script changes (専用モード → 専用,
// モード) and around the glossary's entries inside each piece
// (音声合成プラグイン → 音声合成, プラグイン); what is left between them
// stays a part when it is two characters or more.
//
// A glossary word written in both scripts (外部キー, 主キー) is taken
// whole before the run is cut where its script changes: 複合外部キー
// ("compound foreign key") was cut into 複合, 外部 and キー, and searched
// "external" and "key" instead of "foreign key".
func compoundParts(run string) []string {
	for _, k := range glossary.Within(run) {
		if k == run || scriptPieces(k) == nil {
			continue
		}
		before, after, _ := strings.Cut(run, k)
		out := []string{k}
		for _, r := range []string{before, after} {
			if r != "" {
				out = append(out, compoundParts(r)...)
			}
		}
		return out
	}
	pieces := scriptPieces(run)
	if pieces == nil {
		pieces = []string{run}
	}
	var out []string
	for _, p := range pieces {
		if glossary.English(p) != nil {
			out = append(out, p)
			continue
		}
		known := glossary.Within(p)
		rest := p
		for _, k := range known {
			rest = strings.Replace(rest, k, "\x00", 1)
		}
		left := strings.Split(rest, "\x00")
		if kana.Word(p) && !allKnown(left) {
			// A katakana word is cut only into glossary words: キー (key)
			// inside カラースキーム (colour scheme) is no key.
			out = append(out, p)
			continue
		}
		out = append(out, known...)
		for _, l := range left {
			out = append(out, kanjiWords(l)...)
		}
	}
	return out
}

// allKnown reports whether every non-empty piece is a glossary word.
func allKnown(pieces []string) bool {
	for _, p := range pieces {
		if p != "" && glossary.English(p) == nil {
			return false
		}
	}
	return true
}

// kanjiWords splits what the glossary left of a run into words: a run of
// four kanji is most often two words of two (時間短縮 → 時間, 短縮), so it
// is cut in the middle; anything else of two characters or more stays
// whole, and a single character is dropped.
func kanjiWords(run string) []string {
	r := []rune(run)
	switch {
	case len(r) < 2:
		return nil
	case len(r) == 4 && allHan(r):
		return []string{string(r[:2]), string(r[2:])}
	}
	return []string{run}
}

func allHan(r []rune) bool {
	for _, c := range r {
		if !unicode.Is(unicode.Han, c) {
			return false
		}
	}
	return true
}

// alternatives are the other forms of one word of a question: for a
// Japanese word its English translations (else its pieces and theirs);
// for an English word its Japanese forms, weighted low: they must not
// draw unrelated Japanese work ahead of English history that matches
// (make eval: English top-3 64% → 50% when they weighed as much as the
// word).
func alternatives(w string) []form {
	out := alternativeForms(w)
	// Each Japanese form written with okurigana is also searched as
	// history writes it without (取り消し: 取消, 切り替え: 切替).
	if v := withoutOkurigana(w); v != "" {
		out = append([]form{{v, weightWord}}, out...)
	}
	for _, f := range slices.Clone(out) {
		if v := withoutOkurigana(f.text); v != "" && v != f.text {
			out = append(out, form{v, f.weight})
		}
	}
	return out
}

// okurigana are the kana that end a verb's stem in a noun made of two
// verbs (取り消し, 切り替え, 読み込み, 立ち上げ): the i and e rows, but
// not に, で, へ or て, which are particles more often than okurigana.
const okurigana = "いきぎしじちぢひびぴみりえけげせぜねべぺめれ"

// withoutOkurigana is a Japanese word of kanji and okurigana with its
// okurigana left out, as official and technical writing often spells it
// (取り消し → 取消, 呼び出し → 呼出), or "" for a word of another shape.
func withoutOkurigana(w string) string {
	var b strings.Builder
	kanji, dropped := 0, 0
	prevKana := false
	for i, r := range w {
		switch {
		case unicode.Is(unicode.Han, r):
			b.WriteRune(r)
			kanji++
			prevKana = false
		case strings.ContainsRune(okurigana, r) && i > 0 && !prevKana:
			dropped++
			prevKana = true
		default:
			return ""
		}
	}
	if kanji < 2 || dropped == 0 {
		return ""
	}
	return b.String()
}

// alternativeForms are alternatives before the spellings without
// okurigana are added.
func alternativeForms(w string) []form {
	var out []form
	if !isCJKWord(w) {
		for _, en := range englishSynonyms[w] {
			out = append(out, form{en, weightOther})
			if strings.Contains(w, " ") {
				// A phrase's synonym is the thing's name ("try again" is a
				// retry), so history written in Japanese says it with the
				// name's translation (リトライ). A word's synonyms are looser
				// ("drop" → remove: 削除 would draw every deletion).
				for _, ja := range glossary.Japanese(en) {
					out = append(out, form{ja, weightOther})
				}
			}
		}
		jas := glossary.Japanese(w)
		if st := searchStem(w); jas == nil && st != w && len(st) >= 3 {
			// An inflected word the glossary lacks is looked up by its
			// stem: "tagged" is a tag (タグ), as the note holding up
			// the release says.
			jas = glossary.Japanese(st)
		}
		for _, ja := range jas {
			out = append(out, form{ja, weightOther})
			// The entry's other English forms: authentication → 認証 →
			// auth.
			for _, en := range glossary.English(ja) {
				if en != w && en != searchStem(w) {
					out = append(out, form{en, weightOther})
				}
			}
		}
		return out
	}
	ens := glossary.English(w)
	for _, en := range ens {
		out = append(out, form{en, weightTranslation})
	}
	// What commits say instead of a translation (遅い → slow → perf).
	for _, en := range ens {
		for _, syn := range englishSynonyms[en] {
			out = append(out, form{syn, weightOther})
		}
	}
	// Other Japanese words for the same thing (番号 → number →
	// ナンバリング, 設定 → config → 構成), low: history written in
	// Japanese uses loanwords and native words interchangeably.
	for _, en := range ens {
		for _, ja := range glossary.Japanese(en) {
			if ja != w && !strings.Contains(ja, w) {
				out = append(out, form{ja, weightOther})
			}
		}
	}
	return out
}

// englishSynonyms are the few words askers use for what commits say
// otherwise: a speed-up is committed as "perf:" or "optimize", a doc
// change as "doc"/"docs". Weighted as low as a translation.
var englishSynonyms = map[string][]string{
	"faster":        {"perf", "optimi", "speed"},
	"quicker":       {"perf", "optimi", "speed"},
	"slower":        {"perf", "slow"},
	"slow":          {"perf", "optimi"},
	"fast":          {"perf", "optimi"},
	"speed":         {"perf", "fast", "optimi"},
	"speedup":       {"perf", "fast", "optimi"},
	"performance":   {"perf", "optimi"},
	"godoc":         {"doc"},
	"documentation": {"doc"},
	// Go's word for public is exported; an inactive issue or branch is
	// stale; a config is dumped to a stream by writing it to a writer.
	"public":   {"export"},
	"inactive": {"stale"},
	"dump":     {"write", "export"},
	"stream":   {"writer", "reader"},
	// What was removed is committed as remove, delete or drop.
	"gone": {"remov", "delet", "drop"}, "drop": {"remov", "delet"}, "removed": {"drop", "delet"},
	// A program that crashes panics in Go and Rust.
	"crash": {"panic"}, "panic": {"crash"},
	// What a terminal lets one click is a hyperlink (OSC 8); a package
	// kept at its version is pinned.
	"click": {"hyperlink"}, "clickable": {"hyperlink"},
	"freeze": {"pin"}, "frozen": {"pin"},
	// Two-word names (englishPhrases): terminal control characters are
	// escape sequences, and what keeps them out of the output sanitizes it.
	"control character": {"escape sequence", "escape", "sanitiz"},
	"escape sequence":   {"control character", "escape", "sanitiz"},
	"escape code":       {"escape sequence", "escape"},
	// Everyday words for what commits name otherwise; "again" and
	// "over" alone are stopwords, so the phrase is searched whole too.
	"try again":    {"retry"},
	"start over":   {"reset", "reinstall"},
	"account name": {"username", "user name"},
	"user name":    {"username"},
	"file name":    {"filename"},
	// Everyday words for what commits call otherwise: what a tool spits
	// out it generates; a Mac runs macOS; a websocket behind TLS is wss.
	"spit out": {"generat", "output"},
	"mac":      {"macos"}, "macs": {"macos"},
	"websocket": {"wss"},
	// "how many times" counts; it asks no time of day (時刻).
	"how many time": {"count", "max"},
	// How long something took is its time or duration; a cap is a limit.
	"how long":    {"time", "duration", "elapsed"},
	"cap":         {"limit", "max"},
	"same time":   {"simultaneous", "concurren"},
	"same moment": {"simultaneous", "concurren"},
	// What is turned on or off is enabled or disabled (有効化, 無効化).
	"turn on": {"enabl"}, "turn off": {"disabl"}, "switch on": {"enabl"}, "switch off": {"disabl"},
	// What is set up is a setup or integrated: "set" alone
	// matches every setter and "set X to Y" (held-out set 15: "did Travis
	// CI get set up?" put "integrate Travis CI" third at 0.6).
	"set up": {"setup", "integrat"},
	// What is wiped is cleared or reset in a commit (held-out: "are pooled
	// events wiped now?" for "objects returned to pool are cleared").
	"wipe": {"clear", "reset"}, "wiped": {"clear", "reset"}, "wipes": {"clear", "reset"}, "wiping": {"clear", "reset"},
	// Direct3D, DirectX's graphics API, is written D3D (D3D12).
	"directx": {"d3d", "direct3d"}, "direct3d": {"d3d"},
	// What was pulled, ripped or taken out was removed.
	"pull out": {"remov", "delet", "drop"}, "rip out": {"remov", "delet", "drop"}, "take out": {"remov", "delet", "drop"},
}

// englishPhrase is a key of englishSynonyms or an English entry of the
// glossary written in two words or more, matched in a question in any
// case, plural or hyphenated. joined is the glossary entry written as one
// word (stack trace: stacktrace), as identifiers and many commits write it.
type englishPhrase struct {
	name, joined string
	re           *regexp.Regexp
}

// phrasalParticles end a verb's phrase (turn off, spit out, start over).
var phrasalParticles = setOf(`on off out over up`)

var englishPhrases = func() []englishPhrase {
	var out []englishPhrase
	for _, k := range slices.Sorted(maps.Keys(englishSynonyms)) {
		verb, particle, _ := strings.Cut(k, " ")
		switch {
		case phrasalParticles[particle]:
			// A verb and its particle: in any tense, and around a pronoun
			// ("turn it off", "turned just that off").
			forms := `(?i)\b` + verb + `(?:s|es|ed|d|ing|` + verb[len(verb)-1:] + `ed|` + verb[len(verb)-1:] + `ing)?`
			expr := forms + `(?:\s+(?:just|only|it|that|this|them|these|those|all|everything)){0,2}[\s-]+` + particle + `\b`
			if particle == "on" || particle == "off" {
				// What is switched on or off may be named between, one
				// word, when the particle ends the clause ("switch
				// load_dotenv off, e.g. in prod"; "switch branches on CI"
				// is no switching on).
				expr += `|` + forms + `\s+[\w.-]+\s+` + particle + `(?:\s*[,.;:!?)]|\s*$)`
			}
			re := regexp.MustCompile(expr)
			out = append(out, englishPhrase{name: k, re: re})
		case particle != "":
			re := regexp.MustCompile(`(?i)\b` + strings.ReplaceAll(k, " ", `[\s-]+`) + `s?\b`)
			out = append(out, englishPhrase{name: k, re: re})
		}
	}
	return append(out, glossaryPhrases(out)...)
}()

// glossaryPhrases are the glossary's English entries of several words
// (dark mode → ダークモード, stack trace → スタックトレース) that no
// synonym phrase already names. An entry is a stem when the glossary
// writes one ("memory manag"), so its last word may go on ("memory
// management"); a last word of three letters or less only takes a plural
// ("sign in" is not "sign into").
func glossaryPhrases(have []englishPhrase) []englishPhrase {
	var out []englishPhrase
	for _, k := range glossary.EnglishPhrases() {
		if slices.ContainsFunc(have, func(p englishPhrase) bool { return p.name == k }) {
			continue
		}
		words := strings.Fields(k)
		tail := `s?\b`
		if len(words[len(words)-1]) >= 4 {
			tail = `\w*`
		}
		re := regexp.MustCompile(`(?i)\b` + strings.Join(quoteAll(words), `[\s_-]+`) + tail)
		out = append(out, englishPhrase{name: k, joined: strings.Join(words, ""), re: re})
	}
	return out
}

func isPhraseSeparator(r rune) bool { return unicode.IsSpace(r) || r == '-' || r == '_' }

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = regexp.QuoteMeta(w)
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
func (q *parsedQuery) latinToken(w string, add func(string, ...string)) {
	w = strings.Trim(w, ".,;:!?\"'()[]{}<>")
	// A possessive or contraction keeps its word: weyk's → weyk,
	// what's → what, isn't → isn (a stopword).
	if i := strings.IndexByte(w, '\''); i > 0 {
		w = w[:i]
	}
	switch {
	case w == "":
	case w == "Go":
		// Capitalised, "Go" is the language ("which Go version"); the
		// verb is a stopword.
		add("go")
	case w == "Windows":
		// Capitalised, the operating system: not the plural of a window
		// (ウィンドウ drew every Japanese commit about a UI window).
		if q.properNames == nil {
			q.properNames = map[string]bool{}
		}
		q.properNames["windows"] = true
		add("windows")
	case strings.HasPrefix(w, "@") && len(w) > 1:
		q.Agents = append(q.Agents, w[1:])
	case versionRE.MatchString(w):
		// v0.10.1 and 0.10.1 are the same release, however the question
		// and the history write it.
		low := strings.ToLower(w)
		q.Versions = append(q.Versions, low)
		if v, ok := strings.CutPrefix(low, "v"); ok {
			add(low, v)
		} else {
			add(low, "v"+low)
		}
	case ticketRE.MatchString(w):
		q.Tickets = append(q.Tickets, w)
		add(strings.ToLower(strings.TrimPrefix(w, "#")))
	case qualifiedRE.MatchString(w):
		// io.Writer, errors.As: a package's name, not a file.
		low := strings.ToLower(w)
		add(low, joinedForms(low, ".")...)
	case strings.ContainsAny(w, "/.") && fileRE.MatchString(w):
		q.Files = append(q.Files, w)
		add(strings.ToLower(w))
	default:
		for _, part := range strings.FieldsFunc(strings.ToLower(w), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-'
		}) {
			part = strings.Trim(part, "-_")
			// "Did we drop X?", "is X gone now?" ask for its latest state.
			q.WantsRecent = q.WantsRecent || recentWords[part] || removalWords[part]
			q.WantsWho = q.WantsWho || whoWords[part]
			switch {
			case progressWords[part]:
				q.WantsProgress = true
			case blockerWords[part]:
				q.WantsBlockers = true
			case stopwords[part] || stopwords[plural(part)] || len(part) < 2:
				// "happens" is "happen": a stopword in any form.
			default:
				// As asked: the answer quotes it; expand searches its stem.
				add(part, append(joinedForms(part, "-"), ableStem(part)...)...)
			}
		}
	}
}

// qualifiedRE matches a Go-style qualified name (io.Writer, errors.As,
// toml.Marshal): a package and an exported name, which fileRE would take
// for a file with an odd extension.
var qualifiedRE = regexp.MustCompile(`^[a-z][a-z0-9]*(?:\.[A-Z][A-Za-z0-9]*)+$`)

// joinedForms are the other forms of a word joined from several with sep.
// A hyphenated word is also searched as prose writes it ("a denial of
// service"), as much as the word itself; its words alone are not searched:
// "call" of "call-site" finds every "caller" (a held-out question fell out
// of the top three when they were, at a piece's weight). A qualified name
// (io.writer) is also searched by its words that are no stopword, as
// pieces: commits say "the Writer". nil for a word that is not joined.
func joinedForms(w, sep string) []string {
	parts := strings.Split(w, sep)
	if len(parts) < 2 {
		return nil
	}
	if sep == "-" {
		return []string{strings.Join(parts, " ")}
	}
	var forms []string
	for _, p := range parts {
		if len(p) >= 3 && !stopwords[p] && !stopwords[plural(p)] {
			forms = append(forms, searchStem(plural(p)))
		}
	}
	return forms
}

// ableStem is the word an adjective in -able or -ible is made from, as
// a piece of it ("nullable": null, as "null許容" and "null safety" write
// it), or nil: the stem must be a word of four letters or more, not one
// whose y turned to i (reliable, variable).
func ableStem(w string) []string {
	for _, suf := range []string{"able", "ible"} {
		if st, ok := strings.CutSuffix(w, suf); ok && len(st) >= 4 && !strings.HasSuffix(st, "i") {
			return []string{st}
		}
	}
	return nil
}

// pieceWeight is how much another form of the asked word counts: the
// word written with spaces (io-writer: "io writer") or without them
// (stack trace: stacktrace) is the word itself; one of its words is a
// piece.
func pieceWeight(form, word string) float64 {
	if strings.Contains(form, " ") || form == strings.ReplaceAll(word, " ", "") {
		return weightWord
	}
	return weightPiece
}

// plural drops a plural "s" so "tokens" also finds "token" (the trigram
// index matches substrings, so the shorter form finds both). A word in
// "-ies" keeps it: "librarie" would find neither form, and searchStem cuts
// it to "librar", which finds both.
func plural(w string) string {
	if len(w) > 4 && !strings.ContainsAny(w, "./") && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "ies") {
		return w[:len(w)-1]
	}
	return w
}

// stemSuffixes are cut from an English word to search for every form of
// it: the index matches substrings and the ranking counts a match followed
// by an inflection as the whole word, so "schedul" finds "scheduler" and
// "scheduling", "merg" finds "merge" and "merged", "librar" finds "library"
// and "libraries". Each suffix has the shortest stem it may leave (a final
// "y" at least five: "query" and "reply" stay whole, or "repl" would find
// "replace"; "exactly" is "exact", "family" stays).
var stemSuffixes = []struct {
	suffix  string
	minStem int
}{{"ations", 5}, {"ation", 5}, {"ings", 4}, {"ing", 4}, {"ions", 5}, {"ion", 5}, {"ers", 5}, {"er", 5}, {"ied", 4}, {"ies", 4}, {"ed", 4}, {"es", 4}, {"s", 4}, {"ly", 5}, {"y", 5}}

// irregularStems are stems the suffix rules cannot reach: "fix" is
// shorter than minStem, yet "what was fixed" asks for "Fix …" commits.
var irregularStems = map[string]string{"fixed": "fix", "fixes": "fix", "fixing": "fix"}

// searchStem is the form of an English word the search uses.
func searchStem(w string) string {
	if irr, ok := irregularStems[w]; ok {
		return irr
	}
	if strings.ContainsAny(w, "./_") || !isLatinWord(w) {
		return w // a path, an identifier or a version: as typed
	}
	for _, s := range stemSuffixes {
		if strings.HasSuffix(w, s.suffix) && len(w)-len(s.suffix) >= s.minStem {
			return undoubled(w[:len(w)-len(s.suffix)], s.suffix)
		}
	}
	// A short word whose -ed follows a consonant after a vowel dropped
	// its own e: "saved" is "save", "moved" "move" ("speed", "embed" stay).
	if n := len(w); n >= 5 && strings.HasSuffix(w, "ed") && strings.IndexByte("aeiouwy", w[n-3]) < 0 && strings.IndexByte("aeiou", w[n-4]) >= 0 {
		return w[:n-1]
	}
	return w
}

// undoubled drops the consonant English doubles before -ed and -ing
// after one short vowel ("tagged" → tag, "mapping" → map, "committed" →
// commit), so the stem is the word itself and finds it and its
// translation (tag → タグ); "tagg" found neither. Doubles a word has of
// its own (call, pass, buzz, staff) and a stem with no consonant before
// its vowel (add, err) are kept.
func undoubled(stem, suffix string) string {
	switch suffix {
	case "ed", "ing", "ings":
	default:
		return stem
	}
	n := len(stem)
	if n < 4 {
		return stem
	}
	c, v, before := stem[n-1], stem[n-3], stem[n-4]
	if c != stem[n-2] || strings.IndexByte("lszfaeiouwxy", c) >= 0 || strings.IndexByte("aeiou", v) < 0 || strings.IndexByte("aeiou", before) >= 0 {
		return stem
	}
	return stem[:n-1]
}

func isLatinWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return w != ""
}

// cutIntent removes intent and generic words from a kanji/katakana run,
// noting which answers they ask for, and returns the remaining pieces.
func (q *parsedQuery) cutIntent(run string) []string {
	q.WantsRecent = q.WantsRecent || slices.ContainsFunc(recentJA, func(w string) bool { return strings.Contains(run, w) })
	parts := []string{run}
	for _, in := range jaIntent {
		var next []string
		for _, p := range parts {
			if strings.Contains(p, in.word) && !onlyInsideLongerWords(p, in.word) {
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

// onlyInsideLongerWords reports whether every occurrence of the katakana
// intent word in run is a piece of a longer word that names a thing:
// katakana touch it (コードブロック, ブロックチェーン), or a kanji noun
// follows it that is neither 中 nor another intent word (ブロック要素,
// ブロック図; but ブロック中, ブロック要因). Such a question asks about code
// blocks or blockchains, not about what holds work up.
func onlyInsideLongerWords(run, word string) bool {
	if !kana.Word(word) {
		return false
	}
	for from := 0; ; {
		i := strings.Index(run[from:], word)
		if i < 0 {
			return true
		}
		i += from
		from = i + len(word)
		if !touchesKatakana(run, i, from) && !startsKanjiNoun(run[from:]) {
			return false
		}
	}
}

// touchesKatakana reports whether katakana stand right before run[i:end]
// or right after it.
func touchesKatakana(run string, i, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(run[:i])
	after, _ := utf8.DecodeRuneInString(run[end:])
	return kana.IsKatakana(before) || kana.IsKatakana(after)
}

// startsKanjiNoun reports whether rest starts with kanji other than 中
// ("in the state of") or an intent word: the word before it is then the
// first half of a compound noun.
func startsKanjiNoun(rest string) bool {
	r, _ := utf8.DecodeRuneInString(rest)
	if !unicode.Is(unicode.Han, r) || r == '中' {
		return false
	}
	return !slices.ContainsFunc(jaIntent, func(in intentWord) bool { return strings.HasPrefix(rest, in.word) })
}

// quotedRE finds text the asker quoted: searched as one phrase.
var quotedRE = regexp.MustCompile(`「([^」]{2,40})」|『([^』]{2,40})』|"([^"]{3,40})"|“([^”]{3,40})”`)

// cutQuoted takes the quoted phrases out of text.
func cutQuoted(text string) (string, []string) {
	var phrases []string
	rest := quotedRE.ReplaceAllStringFunc(text, func(m string) string {
		for _, g := range quotedRE.FindStringSubmatch(m)[1:] {
			if g = strings.ToLower(strings.TrimSpace(g)); g != "" {
				phrases = append(phrases, g)
			}
		}
		return " "
	})
	return rest, phrases
}

// cutIntentPhrases removes intent words written with kana inside
// (進み具合): the run splitter would cut them into pieces that look like
// topics.
func (q *parsedQuery) cutIntentPhrases(text string) string {
	for _, in := range jaIntent {
		if hasHiragana(in.word) && strings.Contains(text, in.word) {
			q.WantsProgress = q.WantsProgress || in.progress
			q.WantsBlockers = q.WantsBlockers || in.blocker
			text = strings.ReplaceAll(text, in.word, " ")
		}
	}
	return text
}

func hasHiragana(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Hiragana, r) {
			return true
		}
	}
	return false
}

type token struct {
	text string
	cjk  bool
}

// okuriganaRE finds verbs and nouns written kanji + okurigana + kanji +
// okurigana (読み取り, 書き込み, 取り消し, 埋め込み, 引き継ぎ): hiragana
// splits them into single characters that find nothing, so they are kept
// whole as well. The closing kana is required: without it an adjective
// and the next word (遅い問題) would read as one.
var okuriganaRE = regexp.MustCompile(`\p{Han}[りみきしちいえけせびぎじめ]\p{Han}[りみきしちいえけせびぎじめ]`)

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

// slashJoined reports whether a path the question mentions may as well be
// words joined by a slash ("csh/tcsh", "CI/CD", "TCP/IP"): no element
// has an extension and each is a word of letters and digits.
func slashJoined(p string) bool {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) < 2 {
		return false
	}
	for _, part := range parts {
		if part == "" || strings.ContainsFunc(part, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			return false
		}
	}
	return true
}

// asWords takes a slash-joined word the index knows no path for as the
// words it joins: it is no longer a file the answer looks for, and its
// concept is also found by each word ("tcsh" alone covers "csh/tcsh", as
// the asker meant either). Words that are stopwords are not searched.
func (q parsedQuery) asWords(p string) parsedQuery {
	low := strings.ToLower(p)
	i := slices.Index(q.Words, low)
	if i < 0 {
		return q
	}
	out := q
	out.Files = slices.DeleteFunc(slices.Clone(q.Files), func(f string) bool { return f == p })
	out.Concepts, out.Weights = slices.Clone(q.Concepts), slices.Clone(q.Weights)
	group, weights := slices.Clone(q.Concepts[i]), slices.Clone(q.Weights[i])
	for _, part := range strings.Split(strings.Trim(low, "/"), "/") {
		if stopwords[part] || len(part) < 2 {
			continue
		}
		if part = searchStem(plural(part)); !slices.Contains(group, part) {
			group = append(group, part)
			weights = append(weights, weightWord)
		}
	}
	out.Concepts[i], out.Weights[i] = group, weights
	out.Terms = termsOf(out.Concepts)
	return out
}

// termsOf lists the search terms of concepts: every concept's own word
// first, then the alternatives, so the cap cuts translations before it
// cuts anything the asker typed.
func termsOf(concepts [][]string) []string {
	var terms []string
	for _, g := range concepts {
		terms = append(terms, g[0])
	}
	for _, g := range concepts {
		for _, alt := range g[1:] {
			if len(terms) < maxTerms {
				terms = append(terms, alt)
			}
		}
	}
	return terms
}
