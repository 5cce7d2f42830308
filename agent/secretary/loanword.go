package secretary

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/secretary/glossary"
	"github.com/aoi-protocol/aoi/internal/kana"
	"github.com/aoi-protocol/aoi/store"
)

// Loanwords: Japanese history writes an English word the glossary does
// not know in katakana (retweet → リツイート), and English history the
// English word a Japanese question writes in katakana. Both are brought
// to one rough sound key (englishKey, katakanaKey) and matched against the
// words the mirror's titles hold (loanVocab): an English word of the
// question is also searched as the katakana words of the index that sound
// like it, a katakana word as the English words that do.

// Sound classes: letters English and katakana spell the same sound with
// map to one symbol (l and r one, b and v one, j and g one); vowels and
// y to 'V'; h and w, which katakana spells as a vowel or not at all, drop.
var soundClass = func() [128]byte {
	var t [128]byte
	for _, p := range []string{"aV", "eV", "iV", "oV", "uV", "yV", "bb", "vb", "ck", "dd", "ff", "gg", "jg",
		"kk", "qk", "lr", "rr", "mm", "nn", "pp", "ss", "zs", "tt", "CC"} {
		t[p[0]] = p[1]
	}
	return t
}()

// Vowels a key keeps, as bits: which katakana vowels a vowel group may
// be written with.
const (
	vowelA = 1 << iota
	vowelE
	vowelI
	vowelO
	vowelU
)

// englishVowels are the katakana vowels an English vowel letter is
// written with (name: ネーム, tweet: ツイート, bus: バス); katakana's
// vowels are themselves.
var englishVowels = [128]uint8{'a': vowelA | vowelE, 'e': vowelE | vowelI, 'i': vowelI, 'o': vowelO, 'u': vowelU | vowelA, 'y': vowelI}
var kanaVowels = [128]uint8{'a': vowelA, 'e': vowelE, 'i': vowelI, 'o': vowelO, 'u': vowelU}

// soundKey is a word's rough sound: consonant classes and vowel groups
// (V, with the vowels each may be written with), runs of one consonant
// folded.
type soundKey struct {
	sym    []byte
	vowels []uint8 // per sym: the vowel bits of a V
}

func (k *soundKey) add(s byte, vowels uint8) {
	if s == 0 {
		return
	}
	if n := len(k.sym); n > 0 && k.sym[n-1] == s {
		k.vowels[n-1] |= vowels
		return
	}
	k.sym = append(k.sym, s)
	k.vowels = append(k.vowels, vowels)
}

// skeleton is a key's consonants.
func (k soundKey) skeleton() string { return strings.ReplaceAll(string(k.sym), "V", "") }

// englishKey is an English word's sound key: digraphs folded (ch, sh, th,
// ph, ck, x), c before e, i or y as s, a final e after a consonant silent,
// an r after a vowel and before a consonant or the end dropped, the vowel
// then written a (server: サーバー; or: オー or アー).
func englishKey(w string) soundKey {
	w = strings.ToLower(w)
	for _, r := range [][2]string{{"tch", "C"}, {"ch", "C"}, {"sh", "s"}, {"th", "s"}, {"ph", "f"}, {"ck", "k"}, {"x", "ks"},
		{"ce", "se"}, {"ci", "si"}, {"cy", "sy"}, {"gh", ""}} {
		w = strings.ReplaceAll(w, r[0], r[1])
	}
	if n := len(w); n > 2 && w[n-1] == 'e' && soundClass[w[n-2]] != 'V' {
		w = w[:n-1]
	}
	var k soundKey
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return soundKey{}
		}
		if c == 'r' && i > 0 && soundClass[w[i-1]] == 'V' && (i+1 == len(w) || w[i+1] != 'r' && soundClass[w[i+1]] != 'V') {
			last := &k.vowels[len(k.vowels)-1]
			*last = *last&vowelO | vowelA
			continue
		}
		k.add(soundClass[c], englishVowels[c])
	}
	return k
}

// romaji spells each katakana in Latin letters, as loanwords use them
// (ツ tsu, シ shi, ヴ vu); small kana are vowels, ー lengthens the one
// before, ッ and ・ are nothing.
var romaji = func() map[rune]string {
	m := map[rune]string{}
	rows := []string{
		"ア a イ i ウ u エ e オ o カ ka キ ki ク ku ケ ke コ ko ガ ga ギ gi グ gu ゲ ge ゴ go",
		"サ sa シ si ス su セ se ソ so ザ za ジ ji ズ zu ゼ ze ゾ zo タ ta チ Ci ツ tu テ te ト to",
		"ダ da ヂ ji ヅ zu デ de ド do ナ na ニ ni ヌ nu ネ ne ノ no ハ ha ヒ hi フ fu ヘ he ホ ho",
		"バ ba ビ bi ブ bu ベ be ボ bo パ pa ピ pi プ pu ペ pe ポ po マ ma ミ mi ム mu メ me モ mo",
		"ヤ ya ユ yu ヨ yo ラ ra リ ri ル ru レ re ロ ro ワ wa ヲ o ン n ヴ vu",
		"ァ a ィ i ゥ u ェ e ォ o ャ ya ュ yu ョ yo",
	}
	for _, row := range rows {
		f := strings.Fields(row)
		for i := 0; i+1 < len(f); i += 2 {
			r, _ := utf8.DecodeRuneInString(f[i])
			m[r] = f[i+1]
		}
	}
	return m
}()

// katakanaKey is a katakana word's sound key (empty when it holds
// anything else).
func katakanaKey(w string) soundKey {
	var k soundKey
	for _, r := range w {
		if r == 'ッ' || r == '・' || r == 'ー' {
			continue
		}
		ro, ok := romaji[r]
		if !ok {
			return soundKey{}
		}
		for i := 0; i < len(ro); i++ {
			k.add(soundClass[ro[i]], kanaVowels[ro[i]])
		}
	}
	// ン before b, p or m is an m (コンパイル: compile).
	for i := 0; i+1 < len(k.sym); i++ {
		if k.sym[i] == 'n' && strings.IndexByte("bpm", k.sym[i+1]) >= 0 {
			k.sym[i] = 'm'
		}
	}
	return k
}

// soundsAlike reports whether an English word's key and a katakana word's
// key are one word's: the same consonants in order and every English
// vowel group matched by one katakana may write it with, where katakana
// may put a vowel between consonants English writes together (test:
// テスト). Conservative: two consonants at least, and both start alike.
func soundsAlike(en, ka soundKey) bool {
	if !slices.Contains(en.sym, 'V') || len(en.sym) == 0 || len(ka.sym) == 0 || en.sym[0] != ka.sym[0] || len(en.skeleton()) < 2 || en.skeleton() != ka.skeleton() {
		return false
	}
	i := 0
	for j := range ka.sym {
		switch {
		case i < len(en.sym) && en.sym[i] == ka.sym[j] && (en.sym[i] != 'V' || en.vowels[i]&ka.vowels[j] != 0):
			i++
		case ka.sym[j] != 'V':
			return false
		}
	}
	return i == len(en.sym)
}

// loanVocab holds the English and katakana words of the mirror's titles
// by skeleton, read as the mirror grows (the span of event ids read).
type loanVocab struct {
	mu       sync.Mutex
	started  bool  // low and high are set
	low      int64 // ids read: [low, high]
	high     int64
	english  map[string][]string // skeleton → words
	katakana map[string][]string
	seen     map[string]bool
	// learning is set while learnOlderLoanwords runs.
	learning atomic.Bool
}

// maxLoanVocab bounds the words kept; past it, new words are not learned.
const maxLoanVocab = 200000

// learnWords adds titles' words (titleWords).
func (v *loanVocab) learnWords(words []string) {
	for _, w := range words {
		if v.seen[w] || len(v.seen) >= maxLoanVocab {
			continue
		}
		v.seen[w] = true
		if kana.Word(w) {
			if k := katakanaKey(w); len(k.sym) > 0 {
				v.katakana[k.skeleton()] = append(v.katakana[k.skeleton()], w)
			}
			continue
		}
		v.learnEnglish(w)
		// Its stem too: history says "grouping" and "bytes" where a
		// question says グループ and バイト.
		if st := searchStem(plural(w)); st != w && len(st) >= 4 && !v.seen[st] {
			v.seen[st] = true
			v.learnEnglish(st)
		}
	}
}

func (v *loanVocab) learnEnglish(w string) {
	if k := englishKey(w); len(k.sym) > 0 {
		v.english[k.skeleton()] = append(v.english[k.skeleton()], w)
	}
}

// titleWords are a title's katakana runs of three kana or more and its
// English words of four letters or more, lower-case, camel case split
// (DeleteRetweet: delete, retweet).
func titleWords(title string) []string {
	var out []string
	var run []rune
	flush := func() {
		w := string(run)
		run = run[:0]
		switch {
		case kana.Word(w) && utf8.RuneCountInString(w) >= 3:
			out = append(out, w)
		case len(w) >= 4 && isLatinLetters(w):
			out = append(out, strings.ToLower(w))
		}
	}
	prev := rune(0)
	for _, r := range title {
		switch {
		case kana.IsKatakana(r):
			if len(run) > 0 && !kana.IsKatakana(run[0]) {
				flush()
			}
		case r < utf8.RuneSelf && unicode.IsLetter(r):
			if len(run) > 0 && (kana.IsKatakana(run[0]) || unicode.IsUpper(r) && unicode.IsLower(prev)) {
				flush()
			}
		default:
			flush()
			prev = r
			continue
		}
		run = append(run, r)
		prev = r
	}
	flush()
	return out
}

func isLatinLetters(w string) bool {
	for _, r := range w {
		if r >= utf8.RuneSelf || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// loanBatch is how many titles one read takes; loanBudget how many new
// ones a question may read. A mirror of a million events would otherwise
// be read whole at the first question that needs it (seconds, with every
// other question waiting on the lock): a question learns the newest
// titles, those added since the last one, within loanBudget; the older
// ones are learned in the background (learnOlderLoanwords), a batch at a
// time, holding the lock only to add a batch's words.
var (
	loanBatch  = 5000
	loanBudget = 4 * loanBatch
)

// loanVocabulary learns the titles of events added since the last call,
// within loanBudget, and sets the background learning of the older ones
// going when some are left.
func (s *Secretary) loanVocabulary(ctx context.Context) (*loanVocab, error) {
	v := &s.loans
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.seen == nil {
		v.english, v.katakana, v.seen = map[string][]string{}, map[string][]string{}, map[string]bool{}
	}
	low, high, err := s.db.ContextSpan(ctx)
	if err != nil || high == 0 {
		return v, err
	}
	if !v.started { // nothing read yet: the newest budget's worth is new
		v.started = true
		v.high = max(low, high-int64(loanBudget)+1) - 1
		v.low = v.high + 1
	}
	if high > v.high {
		from := max(v.high+1, high-int64(loanBudget)+1)
		words, err := titleWordsIn(ctx, s.db, from, high)
		if err != nil {
			return v, err
		}
		v.learnWords(words)
		if from > v.high+1 { // more arrived than one budget: the gap is left
			v.low = from
		}
		v.high = high
	}
	if v.low > low && v.learning.CompareAndSwap(false, true) {
		go s.learnOlderLoanwords()
	}
	return v, nil
}

// learnOlderLoanwords learns the titles older than those read, newest
// first, a batch at a time, resting three times as long as each batch took
// (a quarter of a core at most). It ends when every title is read, or when
// the store fails (it is closing).
func (s *Secretary) learnOlderLoanwords() {
	v := &s.loans
	defer v.learning.Store(false)
	for {
		start := time.Now()
		more, err := s.learnOlderBatch()
		if err != nil || !more {
			return
		}
		time.Sleep(3 * time.Since(start))
	}
}

// learnOlderBatch learns one batch of older titles and says whether any
// are left. It reads them and splits their words without the vocabulary's
// lock, which a question waits for, and takes it only to add the words.
// An empty window (events pruned) still moves on by a batch, so a long run
// of them ends.
func (s *Secretary) learnOlderBatch() (more bool, err error) {
	v := &s.loans
	ctx := context.Background()
	low, _, err := s.db.ContextSpan(ctx)
	if err != nil {
		return false, err
	}
	v.mu.Lock()
	to := v.low - 1
	v.mu.Unlock()
	if to < low {
		return false, nil
	}
	from := max(low, to-int64(loanBatch)+1)
	words, err := titleWordsIn(ctx, s.db, from, to)
	if err != nil {
		return false, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.learnWords(words)
	if v.low == to+1 { // else a question left a gap above: read from there
		v.low = from
	}
	return v.low > low, nil
}

// titleWordsIn reads the titles of events from..to, a batch at a time,
// and returns their words (titleWords).
func titleWordsIn(ctx context.Context, db *store.DB, from, to int64) ([]string, error) {
	var words []string
	for from <= to {
		ts, err := db.ContextTitles(ctx, from, to, loanBatch)
		if err != nil || len(ts) == 0 {
			return words, err
		}
		for _, t := range ts {
			words = append(words, titleWords(t.Title)...)
		}
		from = ts[len(ts)-1].ID + 1
	}
	return words, nil
}

// maxLoanMatches is the most index words one word of a question is also
// searched as; a key more words share says too little to be kept.
const maxLoanMatches = 2

// loanwords adds to each concept of the question whose word the glossary
// cannot translate the index's words in the other script that sound like
// it (retweet → リツイート, テストスイート → testsuite). A katakana word's
// English match weighs as a glossary translation: katakana writes the
// English word itself (バイト is byte), so English history that covers
// more of the question than that word names it as the question does
// (store: nativeWeight); at the discount of an English word's Japanese
// forms, Japanese commits naming グループ alone outranked "Support byte
// grouping" for バイトのグループ化. An English word's katakana matches keep
// that discount, as its glossary forms do.
func (s *Secretary) loanwords(ctx context.Context, pq parsedQuery) (parsedQuery, error) {
	v, err := s.loanVocabulary(ctx)
	if err != nil {
		return pq, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	out := pq
	changed := false
	for i, g := range pq.Concepts {
		matches := v.alike(pq.Words[i], g[0])
		if len(matches) == 0 || len(matches) > maxLoanMatches {
			continue
		}
		if !changed {
			out.Concepts, out.Weights = slices.Clone(pq.Concepts), slices.Clone(pq.Weights)
			changed = true
		}
		group, weights := slices.Clone(g), slices.Clone(pq.Weights[i])
		weight := weightOther
		if kana.Word(pq.Words[i]) {
			weight = weightTranslation
		}
		for _, m := range matches {
			if !slices.Contains(group, m) {
				group = append(group, m)
				weights = append(weights, weight)
			}
		}
		out.Concepts[i], out.Weights[i] = group, weights
	}
	if changed {
		out.Terms = termsOf(out.Concepts)
	}
	return out, nil
}

// alike lists the index's words in the other script that sound like a
// question's word (asked as word, searched as stem), when the glossary
// has no translation of it.
func (v *loanVocab) alike(word, stem string) []string {
	var out []string
	switch {
	case kana.Word(word) && utf8.RuneCountInString(word) >= 3:
		if glossary.English(word) != nil {
			return nil
		}
		ka := katakanaKey(word)
		for _, en := range v.english[ka.skeleton()] {
			// One word however inflected (byte, bytes): its stem finds
			// every form, and counts once against maxLoanMatches.
			if st := searchStem(plural(en)); soundsAlike(englishKey(en), ka) && !slices.Contains(out, st) {
				out = append(out, st)
			}
		}
	case len(word) >= 5 && isLatinLetters(word):
		if glossary.Japanese(word) != nil || glossary.Japanese(stem) != nil {
			return nil
		}
		en := englishKey(plural(word))
		for _, ka := range v.katakana[en.skeleton()] {
			if soundsAlike(en, katakanaKey(ka)) {
				out = append(out, ka)
			}
		}
	}
	return out
}
