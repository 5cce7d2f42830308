package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/aoi-protocol/aoi/internal/kana"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/internal/abbrev"
	"github.com/aoi-protocol/aoi/internal/fold"
	"github.com/aoi-protocol/aoi/internal/utf8cut"
)

// ContextSearch is a full-text search of the context mirror.
type ContextSearch struct {
	Terms []string // keywords in any language; 1–2 character terms use the short index
	// Concepts, when set, replaces Terms: each is one thing the question
	// asks about in every form it may be written (the asked word, its
	// translations, its pieces). An event covering a concept through any
	// form counts it once, so a bilingual event does not outrank one that
	// covers more of the question in one language.
	Concepts []ContextConcept
	Contexts []string // empty = all
	Kinds    []string // empty = all
	Limit    int      // hits to return: default 20, at most 200
	// Allow, when set, is asked about every candidate; a refused event is
	// never returned, however well it matches.
	Allow func(ev ContextEvent) bool
	// Recent says the question asks what happened lately ("what changed
	// in completion recently?"): matches rank by how new they are among
	// the matches, however old the whole history is.
	Recent bool
	// Timeless says the question asks whether something exists ("can it
	// write checkstyle XML?"): the commit that brought it answers as well
	// as the newest edit, so how new a match is weighs half as much.
	Timeless bool
	// ScoredTitle, when set, is the part of a candidate's title its match
	// is scored on (the hit keeps its whole title): a caller drops
	// boilerplate that would match any question using its words, such as
	// git's "Merge pull request #12 from" before a branch's name.
	ScoredTitle func(kind, title string) string
}

// ContextConcept is one concept of a search: its forms, best first, and
// how much a match on each counts (Weights[i] for Forms[i], 0 < w <= 1;
// missing or 0 means 1).
type ContextConcept struct {
	Forms   []string
	Weights []float64
	// Names are product names written like an inflected form of the
	// concept's word ("Windows" for a question about a window): a match
	// written as one of them counts as a match inside a longer word, as
	// much as "task" in "taskbar", so a question about a sliding window
	// does not rank the Windows port first.
	Names []Name
	// Version says the concept asks for a version ("which version did we
	// bump NVEncC to?"): a version number something is moved to (9.31,
	// v1.2.0; SaysVersionChange) in a field that names another of the
	// question's concepts covers it as its word does, since commits
	// bumping something write the number alone ("NVEncC を 9.31 に更新").
	Version bool
}

// versionChangeRE finds a version number that something is moved to:
// after "to", an arrow or a verb of change in the same clause ("bump X to
// 1.2", "update X 1.2", "→ 1.2"), or before に/へ and a verb of change
// ("X を 1.2 に上げる", "1.2 へ更新", "X 0.6 に対応", "8.26 に、NVEncC を…"). A number
// beside a name alone ("Mirakurun 4.0 の API 変更", "crash with X 1.2")
// only mentions that version.
var versionChangeRE = regexp.MustCompile(`(?i)(?:(?:\bto|->|→|=>)\s*(?:[\w./-]+\s+)?|` +
	`\b(?:bump(?:s|ed|ing)?|update[sd]?|updating|upgrad(?:e[sd]?|ing)|downgrad(?:e[sd]?|ing)|pin(?:s|ned)?|require[sd]?|switch(?:es|ed)?|migrate[sd]?)\b[^.\n;,]{0,40}?[^\w.])` +
	`v?\d+\.\d+|v?\d+\.\d+[\w.+-]*\s*(?:に|へ)(?:[、,]|\s*の?\s*(?:更新|上げ|アップ|変更|移行|固定|対応|し|する|した))`)

// SaysVersionChange reports whether text moves something to a version
// (versionChangeRE), rather than only mentioning one.
func SaysVersionChange(text string) bool { return versionChangeRE.MatchString(text) }

// Name is a proper name spelled like a form of a common word. Capitalised
// ("Windows", "GitHub Actions") a word is the name wherever it stands; in
// lower case only when Lower is set and the word is part of an identifier
// (windows-latest, cfg(windows), x86_64-pc-windows-msvc), as an operating
// system's name is in build targets and CI matrices.
type Name struct {
	Word  string
	Lower bool
}

// ContextHit is one search result.
type ContextHit struct {
	ID      int64     `json:"id"`
	Source  string    `json:"source"`
	Kind    string    `json:"kind"`
	Ctx     string    `json:"ctx"`
	Key     string    `json:"key"`
	Title   string    `json:"title"`
	Snippet string    `json:"snippet"` // at most SnippetRunes characters around the first match
	Body    string    `json:"-"`       // the stored body, for callers that derive facts (never sent as is)
	Meta    string    `json:"meta,omitempty"`
	TS      time.Time `json:"ts"`
	Score   float64   `json:"score"`
	Matched int       `json:"matched"` // how many distinct terms (concepts, when given) the event contains
}

// SnippetRunes caps a hit's snippet.
const SnippetRunes = 160

// Search tuning. Every term query walks its index newest-first and stops
// after candidatesPerTerm allowed rows (or maxScanPerTerm rows in all, or
// the time budget), so a query costs a few bounded index walks however
// large the index is; ranking happens in Go over at most a few hundred rows
// instead of ORDER BY rank over every match.
const (
	maxSearchTerms    = 12
	candidatesPerTerm = 120
	maxScanPerTerm    = 2000
	recencyHalfLife   = 72 * time.Hour
	// searchBudget bounds the index walks of one search. A rare phrase made
	// of common trigrams (a file path, say) can take FTS5 tens of
	// milliseconds to exhaust on a million rows; past the budget the search
	// ranks what it found, which are the newest matches.
	searchBudget = 25 * time.Millisecond
)

// WithSearchBudget replaces the time bound of one SearchContext's index
// walks once one has found something (default 25 ms; the first walk is
// never cut, later ones until something is found after four times as long). An evaluation that must give the same answers on
// a busy machine as on a quiet one sets a generous bound.
func WithSearchBudget(d time.Duration) Option {
	return func(o *options) { o.searchBudget = d }
}

// errOutOfTime ends the index walks when the search budget is spent.
var errOutOfTime = errors.New("store: search time budget spent")

// SearchContext finds the events that best match q: bm25-like term scoring
// (title and key weigh more than body, rarer terms more than common ones,
// covering more terms more) times a recency factor.
func (db *DB) SearchContext(ctx context.Context, q ContextSearch) ([]ContextHit, error) {
	terms, plan := searchPlan(q)
	if len(terms) == 0 {
		return nil, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 200)
	s := &searcher{db: db, q: q, cands: map[int64]*ContextHit{}}
	walks := make([]termMatch, 0, len(terms)+1)
	for _, t := range terms {
		walks = append(walks, matchFor(t))
	}
	if all, ok := matchAll(terms, plan); ok {
		// Events holding every concept can be older than each term's
		// newest candidates; fetch them too.
		walks = append(walks, all)
	}
	bound := searchBudget
	if db.opts.searchBudget > 0 {
		bound = db.opts.searchBudget
	}
	budget, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	// The first walk is never cut short, and until a walk has found
	// something only a bound four times longer applies: on a busy machine
	// the budget could run out before the first walk ends and leave a
	// question that has answers with none (each walk reads at most
	// maxScanPerTerm rows).
	hard, cancelHard := context.WithTimeout(ctx, 4*bound)
	defer cancelHard()
	for i, w := range walks {
		wctx := budget
		switch {
		case i == 0:
			wctx = ctx
		case len(s.cands) == 0:
			wctx = hard
		}
		err := s.collect(wctx, w)
		if errors.Is(err, errOutOfTime) && ctx.Err() == nil {
			break // rank what the walks found in time
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
	}
	hits := rank(s.cands, terms, plan, db.clock(), q.ScoredTitle, q.Timeless)
	if q.Recent {
		preferNewer(hits)
	}
	if len(hits) > limit {
		hits = hits[:limit]
	}
	for i := range hits {
		hits[i].Snippet = snippet(hits[i].Body, hits[i].Title, firstMatched(hits[i], terms))
	}
	return hits, nil
}

// termMatch is one index walk: which table, which MATCH expression, and
// which terms a row must really hold.
type termMatch struct {
	table string // context_fts | context_short
	expr  string
	// need lists, per concept, the forms of which a row must hold at least
	// one (in its title, body or key). The trigram index records only which
	// rows hold each trigram (detail=none), so a match on every trigram of
	// a term can still lack the term itself; nil means the expression is
	// exact (short terms).
	need [][]string
}

func matchFor(term string) termMatch {
	if isShortTerm(term) {
		return termMatch{table: "context_short", expr: shortMatch(term)}
	}
	return termMatch{table: "context_fts", expr: trigramMatch(term), need: [][]string{{term}}}
}

// matchAll is the walk for events holding every concept (through any of
// its long forms); ok is false when fewer than two concepts have one.
func matchAll(terms []string, plan []termPlan) (termMatch, bool) {
	var groups [][]string
	for i, t := range terms {
		if isShortTerm(t) {
			continue
		}
		c := plan[i].concept
		for len(groups) <= c {
			groups = append(groups, nil)
		}
		groups[c] = append(groups[c], t)
	}
	var parts []string
	var need [][]string
	for _, g := range groups {
		if len(g) == 0 {
			continue
		}
		exprs := make([]string, len(g))
		for i, t := range g {
			exprs[i] = trigramMatch(t)
		}
		parts = append(parts, "("+strings.Join(exprs, " OR ")+")")
		need = append(need, g)
	}
	if len(parts) < 2 {
		return termMatch{}, false
	}
	return termMatch{table: "context_fts", expr: strings.Join(parts, " AND "), need: need}, true
}

// holds reports whether ev holds, for every group of m.need, one of its
// terms (lower-case) in its title, body or key.
func (m termMatch) holds(ev ContextEvent) bool {
	for _, g := range m.need {
		found := false
		for _, t := range g {
			if containsFold(ev.Title, t) || containsFold(ev.Body, t) || containsFold(ev.Key, t) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// containsFold reports whether text holds term (lower-case), ignoring case
// as the trigram tokenizer does; ASCII terms are matched without copying
// the text.
func containsFold(text, term string) bool {
	if isASCII(term) {
		return fold.ContainsASCII(text, term)
	}
	return strings.Contains(text, term) || strings.Contains(strings.ToLower(text), term)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// termPlan says which concept a search term belongs to and how much a
// match on it counts.
type termPlan struct {
	concept int
	weight  float64
	// japanese says the term is written in Japanese; crossed that its
	// concept's asked word is not (a translation into the other language).
	japanese, crossed bool
	names             []Name // the concept's names (ContextConcept.Names)
	version           bool   // the concept asks for a version (ContextConcept.Version)
}

// nativeWeight is what a match on a translation counts in a document whose
// title is written in the translation's language: such a document could
// not have used the asked word (an English commit never says 複数選択), so
// a translation (0.9 or more) counts as the word itself. Elsewhere (a
// Japanese commit named by the English translation of a Japanese
// question) the weight stands: that document could have said it in the
// question's words. Looser forms (a synonym, an English word's Japanese
// forms, 0.5) keep their discount everywhere: テスト or ウィンドウ in
// Japanese titles would draw every Japanese commit about tests. rank uses
// it only for a document covering two concepts or more.
func (p termPlan) nativeWeight(japaneseTitle bool) float64 {
	if !p.crossed || p.japanese != japaneseTitle || p.weight < 0.9 {
		return p.weight
	}
	return 1
}

// searchPlan lower-cases, trims and deduplicates the search's terms,
// keeping at most maxSearchTerms: every concept's first form before any
// other form, so the cap drops translations before asked words.
func searchPlan(q ContextSearch) ([]string, []termPlan) {
	concepts := q.Concepts
	if len(concepts) == 0 {
		for _, t := range q.Terms {
			concepts = append(concepts, ContextConcept{Forms: []string{t}})
		}
	}
	seen := map[string]bool{}
	var terms []string
	var plan []termPlan
	for round := 0; len(terms) < maxSearchTerms; round++ {
		more := false
		for ci, c := range concepts {
			if round >= len(c.Forms) {
				continue
			}
			more = true
			t := strings.ToLower(strings.TrimSpace(c.Forms[round]))
			if t == "" || seen[t] || len(t) > 200 || len(terms) == maxSearchTerms {
				continue
			}
			seen[t] = true
			w := 1.0
			if round < len(c.Weights) && c.Weights[round] > 0 && c.Weights[round] < 1 {
				w = c.Weights[round]
			}
			terms = append(terms, t)
			ja := kana.HasJapanese(t)
			plan = append(plan, termPlan{concept: ci, weight: w, japanese: ja, crossed: ja != kana.HasJapanese(c.Forms[0]), names: c.Names, version: c.Version})
		}
		if !more {
			break
		}
	}
	return terms, plan
}

type searcher struct {
	db    *DB
	q     ContextSearch
	cands map[int64]*ContextHit
}

// collect walks one term's matches newest-first, keeping the rows that pass
// the filters, until it has enough, has scanned its budget of rows, or the
// search's time budget ends (then it keeps what it found and reports
// errOutOfTime, so the caller ranks what it has).
func (s *searcher) collect(ctx context.Context, m termMatch) error {
	query := `SELECT e.id, e.source, e.kind, e.ctx, e.key, e.title, e.body, e.ts, e.meta
		FROM ` + m.table + ` JOIN context_events e ON e.id = ` + m.table + `.rowid
		WHERE ` + m.table + ` MATCH ? ORDER BY ` + m.table + `.rowid DESC LIMIT ?`
	rows, err := s.db.rd.QueryContext(ctx, query, m.expr, maxScanPerTerm)
	if err != nil {
		if ctx.Err() != nil {
			return errOutOfTime
		}
		return fmt.Errorf("store: search context: %w", err)
	}
	defer rows.Close()
	kept := 0
	for kept < candidatesPerTerm && rows.Next() {
		ev, err := scanContextEvent(rows)
		if err != nil {
			if ctx.Err() != nil {
				return errOutOfTime // the rows were closed under us
			}
			return err
		}
		if m.holds(ev) && s.keep(ev) {
			kept++
		}
	}
	if err := rows.Err(); err != nil {
		if ctx.Err() != nil {
			return errOutOfTime
		}
		return fmt.Errorf("store: search context: %w", err)
	}
	return nil
}

// keep applies the filters and records ev as a candidate.
func (s *searcher) keep(ev ContextEvent) bool {
	if _, dup := s.cands[ev.ID]; dup {
		return true
	}
	if !contains(s.q.Contexts, ev.Ctx) || !contains(s.q.Kinds, ev.Kind) {
		return false
	}
	if s.q.Allow != nil && !s.q.Allow(ev) {
		return false
	}
	s.cands[ev.ID] = &ContextHit{ID: ev.ID, Source: ev.Source, Kind: ev.Kind, Ctx: ev.Ctx, Key: ev.Key,
		Title: ev.Title, Body: ev.Body, Meta: ev.Meta, TS: ev.TS}
	return true
}

// contains reports whether set is empty (no filter) or holds v.
func contains(set []string, v string) bool {
	if len(set) == 0 {
		return true
	}
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// maxScoredBody bounds how much of a body the ranking reads.
const maxScoredBody = 4 << 10

// Fields of an event the ranking reads, and how much a match in each
// counts: the title (a commit's subject) says what the event is about; the
// rest of the message and the files it lists less; code it added least
// (sample text and long diffs mention everything).
const (
	fieldTitle = iota
	fieldKey
	fieldText
	fieldCode
	nFields
)

// minIDF keeps the field weights meaningful when every candidate matches.
const minIDF = 0.7

var fieldWeight = [nFields]float64{1, 0.6, 0.5, 0.25}

// CodeMark starts the added-code excerpt of a commit's body (the git
// source writes it).
const CodeMark = "\nadded:\n"

// preferNewer reorders ranked hits for a question about what happened
// lately: each score is scaled by the hit's place in the matches' order of
// time (the oldest keeps a quarter, the newest all of it), so the newest
// work on the topic leads even when all of it is months old and the
// recency in rank no longer tells it apart. The place, not the time: in a
// history of years, work of today and of last week would otherwise lie
// side by side.
func preferNewer(hits []ContextHit) {
	if len(hits) < 2 {
		return
	}
	byTime := make([]int, len(hits))
	for i := range byTime {
		byTime[i] = i
	}
	sort.SliceStable(byTime, func(a, b int) bool { return WrittenAt(hits[byTime[a]]).Before(WrittenAt(hits[byTime[b]])) })
	last := float64(len(hits) - 1)
	for place, i := range byTime {
		hits[i].Score *= 0.25 + 0.75*float64(place)/last
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
}

// MetaAdded is the meta key (RFC 3339) of when what a state event
// describes was written, when that is older than its TS: a TODO marker is
// stamped when it was last seen, its line was committed months before.
const MetaAdded = "added"

// WrittenAt is when what a hit describes was written: its MetaAdded time
// when it has one, else its TS. Recency counts from it.
func WrittenAt(h ContextHit) time.Time {
	if !strings.Contains(h.Meta, `"`+MetaAdded+`"`) {
		return h.TS // most events: spare the JSON
	}
	var m struct {
		Added time.Time `json:"added"`
	}
	if json.Unmarshal([]byte(h.Meta), &m) == nil && !m.Added.IsZero() && m.Added.Before(h.TS) {
		return m.Added
	}
	return h.TS
}

// rank scores the candidates and returns them best first: BM25 over the
// title, key, message and added code, each normalised by its own length
// and weighted by what it says; per concept the best of its forms; times
// how much of the question the event covers and its recency.
func rank(cands map[int64]*ContextHit, terms []string, plan []termPlan, now time.Time, scoredTitle func(kind, title string) string, timeless bool) []ContextHit {
	recencyWeight := 0.5
	if timeless {
		recencyWeight = 0.25
	}
	type doc struct {
		hit           *ContextHit
		japaneseTitle bool
		tf            [][nFields]float64 // per term and field
		len           [nFields]float64
		versions      [nFields]bool // the field moves something to a version number (termPlan.version)
	}
	docs := make([]doc, 0, len(cands))
	df := make([]int, len(terms))
	var total [nFields]float64
	named := anyNames(plan)
	asksVersion := slices.ContainsFunc(plan, func(p termPlan) bool { return p.version })
	for _, h := range cands {
		body := strings.ToLower(utf8cut.Prefix(h.Body, maxScoredBody))
		text, code, _ := strings.Cut(body, CodeMark)
		title := h.Title
		if scoredTitle != nil {
			title = scoredTitle(h.Kind, title)
		}
		orig := [nFields]string{title, h.Key}
		if named {
			// The case the text was written in tells a name from a word.
			orig[2], orig[3], _ = strings.Cut(utf8cut.Prefix(h.Body, maxScoredBody), CodeMark)
		}
		fields := [nFields]string{strings.ToLower(title), strings.ToLower(h.Key), text, code}
		d := doc{hit: h, japaneseTitle: kana.HasJapanese(h.Title), tf: make([][nFields]float64, len(terms))}
		for f, s := range fields {
			if f == 0 {
				s = h.Title // the length of the whole title: the part scored on does not weigh more for being short
			}
			d.len[f] = float64(utf8.RuneCountInString(s) + 1)
			total[f] += d.len[f]
		}
		if asksVersion {
			for f, s := range fields {
				d.versions[f] = SaysVersionChange(s)
			}
		}
		for i, t := range terms {
			for f, s := range fields {
				d.tf[i][f] = occurrencesNamed(s, orig[f], t, plan[i].names)
			}
			if d.tf[i] != [nFields]float64{} {
				df[i]++
			}
		}
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return nil
	}
	nConcepts := 0
	for _, p := range plan {
		nConcepts = max(nConcepts, p.concept+1)
	}
	n := float64(len(docs))
	out := make([]ContextHit, 0, len(docs))
	best := make([]float64, nConcepts)
	covered := make([]float64, nConcepts)
	bestNative := make([]float64, nConcepts)
	coveredNative := make([]float64, nConcepts)
	for _, d := range docs {
		const k1, b = 1.2, 0.75
		clear(best)
		clear(covered)
		clear(bestNative)
		clear(coveredNative)
		for i, tf := range d.tf {
			rel := 0.0
			for f, x := range tf {
				if x > 0 {
					norm := 1 - b + b*d.len[f]*n/total[f]
					rel += fieldWeight[f] * x * (k1 + 1) / (x + k1*norm)
				}
			}
			if rel == 0 {
				continue
			}
			// Floored: a term every candidate holds still tells a title that
			// names it from code that mentions it.
			idf := max(math.Log(1+(n-float64(df[i])+0.5)/(float64(df[i])+0.5)), minIDF)
			p := plan[i]
			w := p.nativeWeight(d.japaneseTitle)
			best[p.concept] = max(best[p.concept], p.weight*idf*rel)
			bestNative[p.concept] = max(bestNative[p.concept], w*idf*rel)
			// A match inside a longer word ("charm" in charmbracelet) covers
			// the question's word only as much as it matches it.
			q := 0.0
			for _, x := range tf {
				q = max(q, x)
			}
			covered[p.concept] = max(covered[p.concept], p.weight*min(q, 1))
			coveredNative[p.concept] = max(coveredNative[p.concept], w*min(q, 1))
		}
		if asksVersion {
			versionNumbers(d.tf, d.versions, plan, best, covered, bestNative, coveredNative)
		}
		matched := 0
		for c := range covered {
			if covered[c] > 0 {
				matched++
			}
		}
		if matched >= 2 {
			// Translations count in full only where the document covers
			// more of the question than one word: one concept named in
			// the other language ("driver" for ドライバ) is no better
			// evidence than the same word in the question's language.
			best, bestNative = bestNative, best
			covered, coveredNative = coveredNative, covered
		}
		rel, cov := 0.0, 0.0
		for c := range best {
			rel += best[c]
			cov += covered[c]
		}
		coverage := cov / float64(nConcepts)
		age := max(now.Sub(WrittenAt(*d.hit)), 0)
		recency := math.Exp2(-float64(age) / float64(recencyHalfLife))
		h := *d.hit
		h.Matched = matched
		h.Score = (rel + coverage) * (0.5 + coverage) * (1 - recencyWeight + recencyWeight*recency)
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID > out[j].ID
	})
	return out
}

// versionNumbers covers a concept asking for a version (termPlan.version)
// that none of its forms matched, when a field that matches another
// concept moves something to a version number: as one match of the word in that field,
// at the lowest idf.
func versionNumbers(tf [][nFields]float64, versions [nFields]bool, plan []termPlan, best, covered, bestNative, coveredNative []float64) {
	for _, p := range plan {
		if !p.version || covered[p.concept] > 0 {
			continue
		}
		for f, has := range versions {
			other := false
			for j, q := range plan {
				if q.concept != p.concept && tf[j][f] >= 1 {
					other = true
				}
			}
			if !other || !has {
				continue
			}
			rel := fieldWeight[f] * minIDF
			best[p.concept] = max(best[p.concept], rel)
			bestNative[p.concept] = max(bestNative[p.concept], rel)
			covered[p.concept], coveredNative[p.concept] = 1, 1
			break
		}
	}
}

// Occurrences is how many times text holds term, both lower-case, each
// latin match weighted by where it falls (see occurrences): 1 or more
// means the term appears as a word of its own.
func Occurrences(text, term string) float64 {
	if term == "" {
		return 0
	}
	return occurrences(text, term)
}

// occurrences counts term in text (both lower-case), each match of a
// latin term weighted by where it falls: a whole word, or the word plus
// an inflection ("merg" in "merged"), counts fully; the start of a longer
// word ("task" in "taskbar") counts 0.5; the middle of a word ("app" in
// "happy") 0.2. A short form (package abbrev) counts fully at the start of
// a word it shortens ("auth" in "authentication") and 0.2 at the start of
// another word ("auth" in "author"). Terms in scripts without spaces
// count every match fully.
func occurrences(text, term string) float64 {
	return occurrencesNamed(text, "", term, nil)
}

// occurrencesNamed is occurrences, with a match that orig (text as
// written, before lower-casing) spells as one of names counted 0.2, as a
// match inside a longer word. With orig empty, or not of text's length
// (lower-casing changed a letter's width), names are not told apart.
func occurrencesNamed(text, orig, term string, names []Name) float64 {
	if kana.Word(term) {
		return kanaOccurrences(text, term)
	}
	if !isWordChar(term[0]) && !isWordChar(term[len(term)-1]) {
		return float64(strings.Count(text, term))
	}
	sum := 0.0
	for from := 0; from < len(text); {
		i := strings.Index(text[from:], term)
		if i < 0 {
			break
		}
		i += from
		end := i + len(term)
		switch {
		case isWordChar(term[0]) && i > 0 && isWordChar(text[i-1]):
			sum += 0.2
		case !isWordChar(term[len(term)-1]):
			sum++
		default:
			rest := end
			for rest < len(text) && isWordChar(text[rest]) {
				rest++
			}
			switch {
			case len(names) > 0 && nameAt(text, orig, i, rest, names):
				sum += 0.2
			case inflection[text[end:rest]] || doubledInflection(text[end:rest], term[len(term)-1]):
				sum++
			case abbrev.Is(term) && abbrev.Shortens(term, text[i:rest]):
				sum++ // "auth" in "authentication": the word it shortens
			case abbrev.Is(term):
				sum += 0.2 // "auth" in "author": another word, as a match inside one
			default:
				sum += 0.5
			}
		}
		from = end
	}
	return sum
}

// kanaOccurrences is occurrences for a katakana term, whose words touch
// with no space between them: inside a longer katakana word (ランチ in
// ブランチ) a match counts 0.2, at the start of one (リリース in
// リリースノート) 0.5, as a Latin term's matches do.
func kanaOccurrences(text, term string) float64 {
	sum := 0.0
	for from := 0; ; {
		i := strings.Index(text[from:], term)
		if i < 0 {
			return sum
		}
		i += from
		end := i + len(term)
		switch {
		case kana.Before(text, i):
			sum += 0.2
		case kana.After(text, end):
			sum += 0.5
		default:
			sum++
		}
		from = end
	}
}

// inflection lists the endings after which a match still names the same
// word.
var inflection = map[string]bool{"": true, "s": true, "es": true, "e": true, "ed": true, "d": true, "er": true, "ers": true,
	"ing": true, "ings": true, "ion": true, "ions": true, "ation": true, "ations": true, "y": true, "ies": true, "ied": true,
	"ly": true, "ment": true, "ments": true}

// doubledInflection reports whether rest, what follows a match, is the
// match's last consonant doubled and an ending ("tag" in "tagged", "map"
// in "mapping"): the same word, as English spells it.
func doubledInflection(rest string, last byte) bool {
	if len(rest) < 3 || rest[0] != last || strings.IndexByte("aeiouy", last) >= 0 {
		return false
	}
	switch rest[1:] {
	case "ed", "ing", "ings", "er", "ers":
		return true
	}
	return false
}

func isWordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z'
}

// firstMatched is the first term h contains ("" if none).
func firstMatched(h ContextHit, terms []string) string {
	for _, t := range terms {
		if indexFold(h.Body, t) >= 0 || indexFold(h.Title, t) >= 0 {
			return t
		}
	}
	return ""
}

// snippet returns up to SnippetRunes characters of body around term (or of
// title when the body does not hold it), on one line.
func snippet(body, title, term string) string {
	text := body
	at := -1
	if term != "" {
		at = indexFold(body, term)
		if at < 0 && indexFold(title, term) >= 0 {
			text, at = title, indexFold(title, term)
		}
	}
	if text == "" {
		text = title
	}
	text = strings.Join(strings.Fields(text), " ")
	if at >= 0 {
		at = indexFold(text, term) // positions moved with the whitespace
	}
	runes := []rune(text)
	start := 0
	if at > 0 {
		pos := utf8.RuneCountInString(text[:at])
		start = max(0, pos-SnippetRunes/3)
	}
	end := min(len(runes), start+SnippetRunes)
	out := string(runes[start:end])
	if start > 0 {
		out = "…" + string(runes[start+1:end])
	}
	if end < len(runes) {
		out = string([]rune(out)[:utf8.RuneCountInString(out)-1]) + "…"
	}
	return out
}

// indexFold is a case-insensitive strings.Index that returns a byte offset
// into s (-1 when absent).
func indexFold(s, sub string) int {
	if sub == "" {
		return -1
	}
	ls := strings.ToLower(s)
	i := strings.Index(ls, strings.ToLower(sub))
	if i < 0 || len(ls) != len(s) {
		if i >= 0 {
			return 0 // lower-casing changed byte lengths: fall back to the start
		}
		return -1
	}
	return i
}

// anyNames reports whether a term of the plan has names to tell apart.
func anyNames(plan []termPlan) bool {
	return slices.ContainsFunc(plan, func(p termPlan) bool { return len(p.names) > 0 })
}

// identifierPunct are the characters that join a word into an identifier
// or a build target (windows-latest, cfg(windows), pc-windows-msvc).
const identifierPunct = "-_()/`"

// nameAt reports whether the word text[i:end] (lower-case) is written in
// orig as one of names: capitalised, or in lower case inside an
// identifier for a name that is so written too.
func nameAt(text, orig string, i, end int, names []Name) bool {
	if len(orig) != len(text) || i > 0 && isWordChar(text[i-1]) {
		return false
	}
	word := text[i:end]
	for _, n := range names {
		if !strings.EqualFold(word, n.Word) {
			continue
		}
		if c := orig[i]; c >= 'A' && c <= 'Z' {
			return true
		}
		if n.Lower && (i > 0 && strings.IndexByte(identifierPunct, text[i-1]) >= 0 ||
			end < len(text) && strings.IndexByte(identifierPunct, text[end]) >= 0) {
			return true
		}
	}
	return false
}

// NameOnly reports whether text (as written) holds term (lower-case)
// and every match of it is written as one of names (see Name): "window"
// in "Fix the Windows build" is the operating system, not a window.
func NameOnly(text, term string, names []Name) bool {
	if len(names) == 0 || term == "" || kana.Word(term) {
		return false
	}
	low := strings.ToLower(text)
	found := false
	for from := 0; ; {
		i := strings.Index(low[from:], term)
		if i < 0 {
			return found
		}
		i += from
		end := i + len(term)
		for end < len(low) && isWordChar(low[end]) {
			end++
		}
		if !nameAt(low, text, i, end, names) {
			return false
		}
		found = true
		from = i + len(term)
	}
}
