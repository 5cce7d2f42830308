package secretary

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/secretary/interrupt"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/internal/abbrev"
	"github.com/aoi-protocol/aoi/internal/kana"
	"github.com/aoi-protocol/aoi/store"
)

// Question is a received aoi.query, already past authentication, ACL on its
// scope and rate limiting.
type Question struct {
	From  string
	Text  string
	Scope []string // context_scope: context ids or paths inside them ("" = all configured)
	// Allowed says whether the asker may read a resource: a context id
	// ("acme/webapp") or a path inside one ("acme/webapp/auth/jwt.go").
	// Every piece of evidence is checked; nil allows everything.
	Allowed func(resource string) bool
}

// Answer is the secretary's draft: the result to send and how sure it is.
type Answer struct {
	Result     wire.QueryResult
	Confidence float64 // 0..1 (seed 002 §2.3.3 levels); feed to interrupt.Decide
	Evidence   int     // events the answer rests on
	// Sources are the resources (ACL names: "acme/webapp/auth/jwt.go", a
	// context, "ctx/" for all of one) of every event the answer draws on:
	// its evidence, blockers, progress and work in progress. The asker
	// could read each when it was drafted; a draft released later is
	// checked against them again (a folder rule added since).
	Sources []string
}

// UnknownContextError reports a scope entry that names no configured
// context (the core answers it with CONTEXT_NOT_FOUND).
type UnknownContextError struct{ Scope string }

func (e *UnknownContextError) Error() string {
	return fmt.Sprintf("context %q is not one this agent mirrors; ask aoi.discover for its contexts", e.Scope)
}

// Bounds on an answer.
const (
	searchLimit   = 40
	maxFileRefs   = 5
	maxCommitRefs = 5
	maxBlockers   = 6
	snippetCap    = store.SnippetRunes
)

// Answer searches the mirror and builds a grounded result. It reads only;
// it never blocks on the sources.
func (s *Secretary) Answer(ctx context.Context, q Question) (Answer, error) {
	cfg := s.config()
	contexts, err := resolveScope(cfg.Contexts, q.Scope)
	if err != nil {
		return Answer{}, err
	}
	pq := parseQuery(q.Text)
	contexts, pq = pq.namedContexts(contexts)
	expansion := "glossary"
	if used, err := pq.llmExpand(ctx, cfg.Secretary.LLM, q.Text); err != nil {
		s.log.Warn("LLM query expansion failed; searching with the glossary's terms", "err", err)
	} else if used {
		expansion = "llm"
	}
	ac := &accessCheck{scope: q.Scope, contexts: contexts, allowed: q.Allowed}
	if pq, err = s.slashWords(ctx, pq, ac); err != nil {
		return Answer{}, err
	}
	if pq, err = s.loanwords(ctx, pq); err != nil {
		return Answer{}, err
	}
	hits, release, err := s.releaseEvidence(ctx, pq, contexts, ac)
	if err != nil {
		return Answer{}, err
	}
	if !release {
		if hits, err = s.evidence(ctx, pq, contexts, ac); err != nil {
			return Answer{}, err
		}
	}
	ac.citeHits(hits)
	ev := groupEvidence(hits, pq)
	progress, progressFrom, err := s.progress(ctx, hits, ev, contexts, ac)
	if err != nil {
		return Answer{}, err
	}
	var blockers, doing []string
	// What went into a tag that is cut: today's unfinished work and its
	// FIXMEs are no part of it (the second walk's v1.1.0 answer listed
	// them), so they are not looked for, nor cited.
	if !release || pq.Since {
		if blockers, err = s.blockers(ctx, pq, ev, contexts, ac); err != nil {
			return Answer{}, err
		}
		if doing, err = s.inProgress(ctx, pq, hits, ev, contexts, ac); err != nil {
			return Answer{}, err
		}
	}
	res := wire.QueryResult{
		Progress:    progress,
		Blockers:    blockers,
		ContextRefs: ev.refs(),
		Completed:   true,
	}
	conf := s.confidence(hits, pq)
	if release {
		conf = s.releaseConfidence(hits)
	}
	// Three decimals: 0.8999999999999999 is 0.9 to whoever reads the
	// audit log or the answer's metadata.
	conf = math.Round(conf*1000) / 1000
	facts := answerFacts{q: pq, hits: hits, ev: ev, blockers: blockers, progress: progress, progressFrom: progressFrom, inProgress: doing, now: s.now()}
	res.Summary, res.Metadata = s.summarise(ctx, q.Text, facts)
	res.Metadata[wire.MetaConfidence] = conf
	res.Metadata["expansion"] = expansion
	res.Metadata["evidence"] = len(hits)
	return Answer{Result: s.redactResult(res), Confidence: conf, Evidence: len(hits), Sources: ac.sources()}, nil
}

// slashWords reads each slash-joined word of the question that names no
// file or folder of the index ("csh/tcsh", "CI/CD") as the words it joins
// (asWords): kept whole, as a path, it matched nothing. A path the index
// knows ("src/db", "auth/jwt") stays a path.
func (s *Secretary) slashWords(ctx context.Context, pq parsedQuery, ac *accessCheck) (parsedQuery, error) {
	for _, f := range slices.Clone(pq.Files) {
		if !slashJoined(f) {
			continue
		}
		known, err := s.knownPath(ctx, strings.Trim(f, "/"), ac)
		if err != nil {
			return pq, err
		}
		if !known {
			pq = pq.asWords(f)
		}
	}
	return pq, nil
}

// knownPath reports whether an event the asker may read touches the path
// p, or a file in the folder p.
func (s *Secretary) knownPath(ctx context.Context, p string, ac *accessCheck) (bool, error) {
	hits, err := s.db.SearchContext(ctx, store.ContextSearch{Terms: []string{strings.ToLower(p)}, Limit: 20, Allow: ac.allow})
	if err != nil {
		return false, err
	}
	low := strings.ToLower(p)
	for _, h := range hits {
		paths := eventFiles(store.ContextEvent{Kind: h.Kind, Key: h.Key, Meta: h.Meta})
		if f := fileOfMarker(store.ContextEvent{Kind: h.Kind, Key: h.Key}); f != "" {
			paths = append(paths, f)
		}
		for _, path := range paths {
			path = strings.ToLower(path)
			if path == low || strings.HasSuffix(path, "/"+low) || strings.HasPrefix(path, low+"/") || strings.Contains(path, "/"+low+"/") {
				return true, nil
			}
		}
	}
	return false, nil
}

// recentWindow is the past a question with no topic ("what's new?") is
// answered from, when anything happened in it.
const recentWindow = 7 * 24 * time.Hour

// evidence finds the events the answer rests on: a search for the topic
// terms, or the recent activity when the question names no topic.
func (s *Secretary) evidence(ctx context.Context, pq parsedQuery, contexts []string, ac *accessCheck) ([]store.ContextHit, error) {
	if len(pq.Terms) > 0 {
		// No Contexts filter: notes tied to no context must match too; the
		// access check keeps every event inside the asked contexts.
		hits, err := s.db.SearchContext(ctx, store.ContextSearch{Concepts: pq.searchConcepts(), Limit: searchLimit, Allow: ac.allow, Recent: pq.WantsRecent,
			Timeless: pq.AsksCapability && !pq.WantsRecent, ScoredTitle: scoredTitle})
		if err != nil {
			return nil, err
		}
		if hits, err = s.successors(ctx, pq, fileFirst(hits, pq.Files), ac); err != nil {
			return nil, err
		}
		return s.mergedWork(ctx, hits, ac)
	}
	hits, err := s.recentWork(ctx, contexts, ac, s.now().Add(-recentWindow))
	if err != nil || len(hits) > 0 {
		return hits, err
	}
	// A quiet week: the newest work there is, however old (the answer
	// says how old); "nothing recorded" would be wrong.
	return s.recentWork(ctx, contexts, ac, time.Time{})
}

// recentWork is the newest work since a time (zero: ever), newest first.
func (s *Secretary) recentWork(ctx context.Context, contexts []string, ac *accessCheck, since time.Time) ([]store.ContextHit, error) {
	recent, err := s.db.RecentContext(ctx, store.ContextRecent{Kinds: workKinds, Since: since, Limit: 200})
	if err != nil {
		return nil, err
	}
	var kept, state []store.ContextEvent
	for _, e := range recent {
		if len(kept)+len(state) == searchLimit {
			break
		}
		if !ac.allow(e) || !inContexts(contexts, e.Ctx) {
			continue
		}
		if isStateKind(e.Kind) {
			state = append(state, e)
		} else {
			kept = append(kept, e)
		}
	}
	// A snapshot (the uncommitted changes, the branch) is stamped when it
	// was last seen, so it always looks newest: it goes after the newest
	// commit, so the answer says what was done before what is under way.
	at := slices.IndexFunc(kept, func(e store.ContextEvent) bool { return e.Kind == "commit" }) + 1
	kept = append(kept[:at], append(state, kept[at:]...)...)
	hits := make([]store.ContextHit, 0, len(kept))
	for _, e := range kept {
		// The score falls with the rank, so commits and the files they
		// touched interleave in time order.
		hits = append(hits, store.ContextHit{ID: e.ID, Source: e.Source, Kind: e.Kind, Ctx: e.Ctx, Key: e.Key, Title: e.Title,
			Body: e.Body, Meta: e.Meta, TS: e.TS, Snippet: clipRunes(strings.Join(strings.Fields(e.Title), " "), snippetCap), Matched: 1,
			Score: 1 / float64(1+len(hits))})
	}
	return hits, nil
}

// workKinds are the events that say what was done or is being done. Markers
// and failing tests are left to the blockers: stamped when last seen, they
// would always look newest and crowd out the work.
var workKinds = []string{"commit", "worktree", "branch", KindNote, KindReport, KindError, KindTask, "summary", "prompt"}

// confidence applies seed 002 §2.3.3 to the best match: its age, and how
// many of the question's terms the evidence covers.
func (s *Secretary) confidence(hits []store.ContextHit, pq parsedQuery) float64 {
	// State snapshots (branch, uncommitted changes, markers) are stamped
	// when they were last seen, not when the work happened: they would
	// make any matching question look fresh.
	i := slices.IndexFunc(hits, func(h store.ContextHit) bool { return !isStateKind(h.Kind) })
	if i < 0 {
		return interrupt.Confidence(false, 0, 0)
	}
	best := hits[i]
	return interrupt.Confidence(true, s.now().Sub(best.TS), quality(hits, pq))
}

// quality is how much of the question the evidence covers: the share of
// its concepts the best hit holds; when that is half or more, averaged
// with the share the five best hits hold between them (the rest of the
// question is found right next to it). A best hit covering less stays as
// it is: scattered matches of single words are what off-topic questions
// get, and so does a question relating two things (pq.Relation): "is dark
// mode blocked on the redis config?" is not answered by one commit about
// dark mode and another about auth's Redis config (the walk's case,
// auto-sent at 0.95).
func quality(hits []store.ContextHit, pq parsedQuery) float64 {
	var top []store.ContextHit
	for _, h := range hits {
		if !isStateKind(h.Kind) && len(top) < 5 {
			top = append(top, h)
		}
	}
	if len(top) == 0 {
		return 0
	}
	q1 := coverage(top[0], pq)
	if q1 < 0.5 || len(pq.Concepts) == 0 || pq.Relation {
		return q1
	}
	covered := 0.0
	for i := range pq.Concepts {
		best := 0.0
		for _, h := range top {
			best = max(best, pq.cover(h, i))
		}
		covered += best
	}
	return (q1 + covered/float64(len(pq.Concepts))) / 2
}

// coverage is the share of the question's concepts the hit covers: a
// concept counts when the hit contains its word or any of its translations
// and pieces.
func coverage(h store.ContextHit, pq parsedQuery) float64 {
	if len(pq.Concepts) == 0 {
		return 1
	}
	covered := 0.0
	for i := range pq.Concepts {
		covered += pq.cover(h, i)
	}
	return covered / float64(len(pq.Concepts))
}

// cover is how well a hit covers the question's concept i (conceptCover);
// a concept asking for a version is covered by a version number something
// is moved to where the hit names another of the question's concepts
// ("bump NVEncC to 9.31" for "which version did we bump NVEncC to?"), as
// the search ranks it; a number beside the name alone ("fix the crash
// with NVEncC 9.31") only mentions that version.
func (pq parsedQuery) cover(h store.ContextHit, i int) float64 {
	c := conceptCover(h, pq.Concepts[i], pq.conceptNames(i))
	if c == coverAbout || !pq.asksVersion(i) {
		return c
	}
	about, _, _ := strings.Cut(h.Body, store.CodeMark)
	if !store.SaysVersionChange(strings.ToLower(h.Title + "\n" + about)) {
		return c
	}
	for j, g := range pq.Concepts {
		if j != i && conceptCover(h, g, pq.conceptNames(j)) == coverAbout {
			return coverAbout
		}
	}
	return c
}

// Coverage of a concept by one hit.
const (
	coverAbout = 1.0 // named in its title, key, message or the files it lists
	// coverCode: named only in code a commit added. Sample text, word
	// lists and long diffs mention everything, so a match there alone
	// would make an answer look sure of a topic the work was never about.
	coverCode = 0.5
)

// conceptCover is how well a hit covers a concept: coverAbout, coverCode
// or 0 when it holds none of the concept's forms, or holds one only as a
// name spelled like it (names: "window" in "the Windows build").
func conceptCover(h store.ContextHit, forms []string, names []store.Name) float64 {
	about, code, _ := strings.Cut(h.Body, store.CodeMark)
	// The whole title: a merge's "Merge" boilerplate does not rank it
	// (scoredTitle), but a merge does say the work was merged.
	written, writtenCode := h.Title+"\n"+h.Key+"\n"+about, code
	aboutName := func(t string) bool { return store.NameOnly(written, t, names) }
	codeName := func(t string) bool { return store.NameOnly(writtenCode, t, names) }
	lowAbout := withoutMarkerWord(strings.ToLower(written))
	lowCode := withoutMarkerWord(strings.ToLower(writtenCode))
	cover := 0.0
	for _, t := range forms {
		// A katakana form covers only as a word of its own or the start
		// of one: a held-out question about ランチ (lunch) was covered by
		// every ブランチ (branch). A Latin one found only inside a longer
		// word covers half as much (wordPart).
		switch {
		case kana.StartsWord(lowAbout, t) && !aboutName(t):
			cover = max(cover, coverAbout*wordPart(lowAbout, written, t))
		case kana.StartsWord(lowCode, t) && !codeName(t):
			cover = max(cover, coverCode*wordPart(lowCode, writtenCode, t))
		}
		if cover == coverAbout {
			break
		}
	}
	return cover
}

// coverPart is how much a match inside a longer word covers of what a
// whole-word match does.
const coverPart = 0.5

// wordPart is 1 when low (text lower-cased; orig as written) holds the
// Latin term as a word: on its own, with an ending that keeps it the same
// word ("merged", "optimization", "configurable"), after a capital that
// starts a word in an identifier (parseJWT), or as the start of a longer
// word it is a common abbreviation of (perf, auth, compat, config). A term
// found only inside a longer, different word ("time" in "timestamp" or
// "timeout", "app" in "happy") is coverPart: a held-out question about how
// long recipes took was answered at the threshold from a [timestamp]
// attribute. Other terms (katakana, kanji, phrases) are 1.
func wordPart(low, orig, term string) float64 {
	if term == "" || !isWordByte(term[0]) || !isWordByte(term[len(term)-1]) || !isASCIIText(term) {
		return 1
	}
	camel := len(orig) == len(low)
	found := false
	for from := 0; from < len(low); {
		i := strings.Index(low[from:], term)
		if i < 0 {
			break
		}
		i += from
		end := i + len(term)
		from = end
		found = true
		starts := i == 0 || !isWordByte(low[i-1]) || camel && isUpper(orig[i]) && !isUpper(orig[i-1])
		if !starts {
			continue
		}
		rest := end
		for rest < len(low) && isWordByte(low[rest]) && !(camel && isUpper(orig[rest]) && !isUpper(orig[rest-1])) {
			rest++
		}
		tail := low[end:rest]
		if sameWord(term, tail, low[i:rest]) {
			return 1
		}
	}
	if !found {
		return 1 // matched by another rule (kana.StartsWord): not ours to weigh
	}
	return coverPart
}

// sameWordEnding lists what may follow a word and leave it the same word:
// inflections and derivations ("config" in "configurable", "optimiz" in
// "optimization").
var sameWordEnding = setOf(`s es e ed d er ers ing ings ion ions ation ations y ies ied ly ment ments
or ors ity ities ance ances ence ences al als ally able ible ability ibility ive ives ize izes ized izing izer izers
ise ises ised ising ization izations isation ness ful ous ic ics ical ure ures ist ists ism ator ators ate ates ated ating
age ages ant ants ent ents ry ries ery`)

// sameWord reports whether word, which starts with term and goes on with
// tail, is term's own word: term itself, term with an ending, or, for an
// abbreviation (package abbrev), one of the words it shortens.
func sameWord(term, tail, word string) bool {
	if tail == "" {
		return true
	}
	if abbrev.Is(term) {
		return abbrev.Ending[tail] || abbrev.Shortens(term, word)
	}
	return sameWordEnding[tail] || doubledEnding(tail, term[len(term)-1])
}

// doubledEnding reports whether tail is the term's last consonant doubled
// and an ending ("tag" in "tagged").
func doubledEnding(tail string, last byte) bool {
	return len(tail) >= 3 && tail[0] == last && strings.IndexByte("aeiouy", last) < 0 && sameWordEnding[tail[1:]]
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z'
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func isASCIIText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isStateKind(kind string) bool {
	return kind == "branch" || kind == "worktree" || kind == "marker" || kind == "tag"
}

// redactResult passes every outgoing string through the redactor again.
func (s *Secretary) redactResult(r wire.QueryResult) wire.QueryResult {
	r.Summary = s.redactor().String(r.Summary)
	for i := range r.Blockers {
		r.Blockers[i] = s.redactor().String(r.Blockers[i])
	}
	for i := range r.ContextRefs {
		r.ContextRefs[i].Ref = s.redactor().String(r.ContextRefs[i].Ref)
		r.ContextRefs[i].Summary = s.redactor().String(r.ContextRefs[i].Summary)
	}
	return r
}
