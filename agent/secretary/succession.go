package secretary

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/aoi-protocol/aoi/store"
)

// A question about something the work replaced ("which crate do we use for
// colours now? we moved off ansi_term") is answered by what replaced it,
// and by what replaced that in turn: hexyl swapped ansi_term for anstyle,
// then anstyle for owo-colors. The search finds the first swap (it names
// ansi_term); the later ones name only the crate in between, so they are
// looked up one step at a time.

// replacedRE reads a swap in a commit title: "Replace X with Y", "Switch
// from X to Y", "Migrate from X to Y", "Use Y instead of X". Names may be
// quoted with backticks or quotes; "deprecated" before the old name is
// skipped.
var replacedRE = []*regexp.Regexp{
	regexp.MustCompile("(?i)\\b(?:replace[ds]?|replacing|swap(?:ped|s)?)\\s+(?:the\\s+)?(?:deprecated\\s+)?[`'\"]?(?P<old>[\\w.-]+)[`'\"]?(?:\\s+crate|\\s+package|\\s+library)?\\s+(?:with|by|for)\\s+[`'\"]?(?P<new>[\\w.-]+)"),
	regexp.MustCompile("(?i)\\b(?:switch(?:ed|es)?|migrate[ds]?|migrating|mov(?:e[ds]?|ing))\\s+from\\s+[`'\"]?(?P<old>[\\w.-]+)[`'\"]?\\s+to\\s+[`'\"]?(?P<new>[\\w.-]+)"),
	regexp.MustCompile("(?i)\\buse[ds]?\\s+[`'\"]?(?P<new>[\\w.-]+)[`'\"]?\\s+instead\\s+of\\s+[`'\"]?(?P<old>[\\w.-]+)"),
}

// swap is one replacement read from a title, names lower-case. named
// says the old name was written as a name: quoted, or with a character no
// English word has (ansi_term, yaml.v2, owo-colors).
type swap struct {
	old, new string
	named    bool
}

// replacementCue is a question's way of saying something was replaced:
// then a swap of a plain word ("Switch from logrus to slog") counts too.
var replacementCue = regexp.MustCompile(`(?i)\b(?:moved?\s+(?:off|away)|replac|switch|migrat|instead|drop|anymore|no longer)|置き換え|移行|移し|移っ|乗り換え|やめた`)

// readSwap returns the replacement a title announces, if any.
func readSwap(title string) (swap, bool) {
	line := firstLine(title)
	for _, re := range replacedRE {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		old := m[re.SubexpIndex("old")]
		s := swap{old: strings.ToLower(strings.Trim(old, ".-")), new: strings.ToLower(strings.Trim(m[re.SubexpIndex("new")], ".-"))}
		s.named = strings.ContainsAny(old, "_.-0123456789") || quotedIn(line, old) || innerCapital(old)
		if s.old != "" && s.new != "" && s.old != s.new {
			return s, true
		}
	}
	return swap{}, false
}

// innerCapital reports whether a name has a capital after its first
// letter, as product names do (MkDocs, GitHub) and words do not.
func innerCapital(name string) bool {
	return strings.ContainsFunc(name[1:], unicode.IsUpper)
}

// quotedIn reports whether line writes name in backticks or quotes.
func quotedIn(line, name string) bool {
	for _, q := range []string{"`", "'", "\""} {
		if strings.Contains(line, q+name+q) {
			return true
		}
	}
	return false
}

// maxSwaps bounds how many replacements one answer follows.
const maxSwaps = 3

// successors puts first, and ranks highest, the events that replaced what
// the question names, newest replacement first: the newest says what is
// used now. A question that names nothing replaced keeps its hits as they
// are.
func (s *Secretary) successors(ctx context.Context, pq parsedQuery, hits []store.ContextHit, ac *accessCheck) ([]store.ContextHit, error) {
	first, name := firstSwap(hits, pq)
	if first == nil {
		return hits, nil
	}
	chain := []store.ContextHit{*first}
	for len(chain) < maxSwaps {
		next, err := s.replacementOf(ctx, name, chain[len(chain)-1], ac)
		if err != nil {
			return hits, err
		}
		if next == nil {
			break
		}
		sw, _ := readSwap(next.Title)
		chain, name = append(chain, *next), sw.new
	}
	// The answer cites its evidence best score first: the chain ranks
	// above every hit, the newest replacement highest.
	top := 0.0
	for _, h := range hits {
		top = max(top, h.Score)
	}
	slices.Reverse(chain)
	for i := range chain {
		chain[i].Score = top + float64(len(chain)-i)
	}
	out := chain
	for _, h := range hits {
		if !slices.ContainsFunc(chain, func(c store.ContextHit) bool { return c.ID == h.ID }) {
			out = append(out, h)
		}
	}
	return out, nil
}

// firstSwap is the best hit that replaces a thing the question names, and
// the name that replaced it: a swap of a name (quoted, ansi_term) before
// one of a plain word, which counts only when the question speaks of
// replacing ("Replace colors with ANSI styles" is no crate the asker
// means by "colors").
func firstSwap(hits []store.ContextHit, pq parsedQuery) (*store.ContextHit, string) {
	for _, plain := range []bool{false, true} {
		if plain && !pq.Replaced {
			break
		}
		for i, h := range hits {
			if sw, ok := readSwap(h.Title); ok && sw.named != plain && pq.names(sw.old) {
				return &hits[i], sw.new
			}
		}
	}
	return nil, ""
}

// replacementOf finds the event, newer than prev, whose title replaces
// name with something else.
func (s *Secretary) replacementOf(ctx context.Context, name string, prev store.ContextHit, ac *accessCheck) (*store.ContextHit, error) {
	if len(name) < 3 {
		return nil, nil
	}
	found, err := s.db.SearchContext(ctx, store.ContextSearch{Terms: []string{name}, Limit: 50, Allow: ac.allow, Recent: true})
	if err != nil {
		return nil, err
	}
	var best *store.ContextHit
	for i, h := range found {
		sw, ok := readSwap(h.Title)
		if !ok || sw.old != name || h.Ctx != prev.Ctx || !h.TS.After(prev.TS) {
			continue
		}
		if best == nil || h.TS.Before(best.TS) {
			best = &found[i] // the first replacement after prev
		}
	}
	return best, nil
}

// names reports whether the question names w as one of its words (any
// form of a concept, or the word as typed).
func (q parsedQuery) names(w string) bool {
	for _, g := range q.Concepts {
		if slices.Contains(g, w) {
			return true
		}
	}
	return slices.Contains(q.Words, w)
}
