package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// ContextSearch is a full-text search of the context mirror.
type ContextSearch struct {
	Terms    []string // keywords in any language; 1–2 character terms use the short index
	Contexts []string // empty = all
	Kinds    []string // empty = all
	Limit    int      // hits to return: default 20, at most 200
	// Allow, when set, is asked about every candidate; a refused event is
	// never returned, however well it matches.
	Allow func(ev ContextEvent) bool
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
	Matched int       `json:"matched"` // how many distinct terms the event contains
}

// SnippetRunes caps a hit's snippet.
const SnippetRunes = 160

// Search tuning. Every term query walks its index newest-first and stops
// after candidatesPerTerm allowed rows (or maxScanPerTerm rows in all, or
// the time budget), so a query costs a few bounded index walks however
// large the index is; ranking happens in Go over at most a few hundred rows
// instead of ORDER BY rank over every match.
const (
	maxSearchTerms    = 8
	candidatesPerTerm = 120
	maxScanPerTerm    = 2000
	recencyHalfLife   = 72 * time.Hour
	// searchBudget bounds the index walks of one search. A rare phrase made
	// of common trigrams (a file path, say) can take FTS5 tens of
	// milliseconds to exhaust on a million rows; past the budget the search
	// ranks what it found, which are the newest matches.
	searchBudget = 25 * time.Millisecond
)

// errOutOfTime ends the index walks when the search budget is spent.
var errOutOfTime = errors.New("store: search time budget spent")

// SearchContext finds the events that best match q: bm25-like term scoring
// (title and key weigh more than body, rarer terms more than common ones,
// covering more terms more) times a recency factor.
func (db *DB) SearchContext(ctx context.Context, q ContextSearch) ([]ContextHit, error) {
	terms := normaliseTerms(q.Terms)
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
	if long := longTerms(terms); len(long) > 1 {
		// Events holding every long term can be older than each term's
		// newest candidates; fetch them too.
		walks = append(walks, matchAll(long))
	}
	budget, cancel := context.WithTimeout(ctx, searchBudget)
	defer cancel()
	for _, w := range walks {
		err := s.collect(budget, w)
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
	hits := rank(s.cands, terms, db.clock())
	if len(hits) > limit {
		hits = hits[:limit]
	}
	for i := range hits {
		hits[i].Snippet = snippet(hits[i].Body, hits[i].Title, firstMatched(hits[i], terms))
	}
	return hits, nil
}

// termMatch is one index walk: which table, which MATCH expression.
type termMatch struct {
	table string // context_fts | context_short
	expr  string
}

func matchFor(term string) termMatch {
	if isShortTerm(term) {
		return termMatch{"context_short", shortMatch(term)}
	}
	return termMatch{"context_fts", ftsString(term)}
}

func matchAll(terms []string) termMatch {
	parts := make([]string, len(terms))
	for i, t := range terms {
		parts[i] = ftsString(t)
	}
	return termMatch{"context_fts", strings.Join(parts, " AND ")}
}

func longTerms(terms []string) []string {
	var out []string
	for _, t := range terms {
		if !isShortTerm(t) {
			out = append(out, t)
		}
	}
	return out
}

// normaliseTerms lower-cases, trims and deduplicates terms, keeping at most
// maxSearchTerms.
func normaliseTerms(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range in {
		t = strings.ToLower(strings.TrimSpace(t))
		if t == "" || seen[t] || len(t) > 200 {
			continue
		}
		seen[t] = true
		out = append(out, t)
		if len(out) == maxSearchTerms {
			break
		}
	}
	return out
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
		if s.keep(ev) {
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

// rank scores the candidates and returns them best first.
func rank(cands map[int64]*ContextHit, terms []string, now time.Time) []ContextHit {
	type doc struct {
		hit        *ContextHit
		title, key string
		body       string
		tf         [][3]int // per term: title, key, body counts
		length     int
	}
	docs := make([]doc, 0, len(cands))
	df := make([]int, len(terms))
	totalLen := 0
	for _, h := range cands {
		d := doc{hit: h, title: strings.ToLower(h.Title), key: strings.ToLower(h.Key),
			body: strings.ToLower(ctxTruncate(h.Body, maxScoredBody)), tf: make([][3]int, len(terms))}
		d.length = utf8.RuneCountInString(d.title) + utf8.RuneCountInString(d.body) + 1
		for i, t := range terms {
			d.tf[i] = [3]int{strings.Count(d.title, t), strings.Count(d.key, t), strings.Count(d.body, t)}
			if d.tf[i] != [3]int{} {
				df[i]++
			}
		}
		totalLen += d.length
		docs = append(docs, d)
	}
	if len(docs) == 0 {
		return nil
	}
	avgLen := float64(totalLen) / float64(len(docs))
	n := float64(len(docs))
	out := make([]ContextHit, 0, len(docs))
	for _, d := range docs {
		const k1, b = 1.2, 0.75
		rel, matched := 0.0, 0
		for i, tf := range d.tf {
			w := float64(3*tf[0] + 2*tf[1] + tf[2])
			if w == 0 {
				continue
			}
			matched++
			idf := math.Log(1 + (n-float64(df[i])+0.5)/(float64(df[i])+0.5))
			rel += idf * w * (k1 + 1) / (w + k1*(1-b+b*float64(d.length)/avgLen))
		}
		coverage := float64(matched) / float64(len(terms))
		age := max(now.Sub(d.hit.TS), 0)
		recency := math.Exp2(-float64(age) / float64(recencyHalfLife))
		h := *d.hit
		h.Matched = matched
		h.Score = (rel + coverage) * (0.5 + coverage) * (0.5 + 0.5*recency)
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
