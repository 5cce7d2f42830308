package redact

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// splitDetector does what one gitleaks detector does, at a fraction of
// its fixed cost per call. gitleaks' DetectString lower-cases the text,
// finds the rules' keywords in it, then walks all ~220 rules, looking each
// rule's keywords up (lower-casing every keyword again), and builds a
// logger per rule it runs. Here the keywords are found once and only the
// rules they name run, each through a detector holding that rule alone.
//
// The findings are the same: gitleaks runs a rule exactly when one of its
// keywords occurs in the lower-cased text (or it has none), and each
// rule's findings depend on that rule alone. The one step that looks
// across rules drops a "generic" finding that a specific rule also found;
// a rule set with a generic rule is therefore not split (splitRules).
type splitDetector struct {
	// trie finds the keywords in texts too long for a pair set.
	trie *ahocorasick.Trie
	// keywords are the rules' keywords, lower-cased, by their index in
	// the trie. keywordPairs holds every keyword's byte pairs (pairBit),
	// one keyword after another, keyword i's ending at pairsEnd[i]: a
	// short text's pair set rules most keywords out without reading
	// them (walking the trie, 2 KiB per state, and reading the keywords
	// themselves both missed the cache on most steps, as a request's
	// redaction runs between two others' TLS and SQLite work).
	keywords     []string
	keywordPairs []uint16
	pairsEnd     []int
	// byPattern lists, per keyword (its index in the trie), the rules it
	// names.
	byPattern [][]*ruleScan
	// always run on every text: the rules without keywords.
	always []*ruleScan
}

// ruleScan is one gitleaks rule and a detector holding it alone.
type ruleScan struct {
	d *detect.Detector
	// re is the rule's expression. gitleaks reports nothing for a text
	// (without a file path) the expression does not match, so a text it
	// rejects skips the detector's fixed cost (allocations, a logger per
	// call); a text it matches goes through gitleaks as before.
	re *regexp.Regexp
	// lit is lower-case text every match of re contains (requiredLiteral),
	// or "": a text without it cannot match, and skips the expression too.
	lit string
}

// spans runs the rule on s; lower is s folded (foldASCII).
func (rs *ruleScan) spans(s, lower string) []span {
	if rs.lit != "" && !strings.Contains(lower, rs.lit) {
		return nil
	}
	if rs.re != nil && !rs.re.MatchString(s) {
		return nil
	}
	return detectorSpans(rs.d, s)
}

func newRuleScan(d *detect.Detector, ru config.Rule) *ruleScan {
	rs := &ruleScan{d: d, re: ru.Regex}
	if ru.Regex != nil {
		if re, err := syntax.Parse(ru.Regex.String(), syntax.Perl); err == nil {
			rs.lit = requiredLiteral(re)
		}
	}
	return rs
}

// splitRules builds a splitDetector with d's rules and configuration, or
// returns nil when d has a generic rule (its findings depend on the other
// rules' findings).
func splitRules(d *detect.Detector) *splitDetector {
	sd := &splitDetector{}
	index := map[string]int{} // keyword → pattern index
	var keywords []string
	for id, ru := range d.Config.Rules {
		if strings.Contains(strings.ToLower(id), "generic") {
			return nil
		}
		if !scansText(ru) {
			continue
		}
		one := newRuleScan(ruleDetector(d, map[string]config.Rule{id: ru}), ru)
		if !isASCII(one.lit) {
			return nil // spans looks for it in text only ASCII letters were folded in
		}
		if len(ru.Keywords) == 0 {
			sd.always = append(sd.always, one)
			continue
		}
		for _, k := range ru.Keywords {
			k = strings.ToLower(k)
			if !isASCII(k) {
				return nil
			}
			i, ok := index[k]
			if !ok {
				i = len(keywords)
				index[k] = i
				keywords = append(keywords, k)
				sd.byPattern = append(sd.byPattern, nil)
			}
			sd.byPattern[i] = append(sd.byPattern[i], one)
		}
	}
	sd.trie = ahocorasick.NewTrieBuilder().AddStrings(keywords).Build()
	sd.keywords = keywords
	for _, k := range keywords {
		for i := 0; i+1 < len(k); i++ {
			sd.keywordPairs = append(sd.keywordPairs, uint16(pairBit(k[i], k[i+1])))
		}
		sd.pairsEnd = append(sd.pairsEnd, len(sd.keywordPairs))
	}
	return sd
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// scansText reports whether rule can find anything in a text scanned
// without a file path (DetectString): a rule restricted to paths its
// expression rejects for "" never does, nor does one with no content
// expression. (Such rules still cost gitleaks a pass per call; the
// PKCS#12 file rule is one.)
func scansText(ru config.Rule) bool {
	if ru.Path != nil && !ru.Path.MatchString("") {
		return false
	}
	return ru.Regex != nil || ru.Path != nil
}

// ruleDetector is a detector with d's configuration but only rules.
func ruleDetector(d *detect.Detector, rules map[string]config.Rule) *detect.Detector {
	cfg := d.Config
	cfg.Rules = rules
	cfg.Keywords = map[string]struct{}{}
	for _, ru := range rules {
		for _, k := range ru.Keywords {
			cfg.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	one := detect.NewDetector(cfg)
	one.MaxDecodeDepth = d.MaxDecodeDepth
	return one
}

// spans runs the rules whose keywords occur in the text (and those
// without keywords) and locates their findings in it. Keywords are looked
// for in the folded text, which holds an ASCII word wherever
// strings.ToLower would (foldASCII); a splitDetector is built only when
// every keyword and required literal is ASCII.
func (sd *splitDetector) spans(t *text) []span {
	var out []span
	s, lower := t.raw, t.folded
	for _, rs := range sd.always {
		out = append(out, rs.spans(s, lower)...)
	}
	hits := sd.keywordsIn(t)
	if len(hits) == 0 {
		return out
	}
	var ran []*ruleScan // a rule runs once even when several keywords name it
	for _, h := range hits {
		for _, rs := range sd.byPattern[h.pattern] {
			if slices.Contains(ran, rs) {
				continue
			}
			ran = append(ran, rs)
			out = append(out, rs.spans(s, lower)...)
		}
	}
	return out
}

// keywordHit is a keyword found in a text: its index in the trie, and
// where its first occurrence ends.
type keywordHit struct{ pattern, end int }

// keywordsIn finds the keywords in t's folded text in the order the trie
// reports them (by where they end; at one end, the longer first), each
// keyword once. The rules run in that order, so which rule names a secret
// two of them find is the trie's answer either way. A short text asks its
// pair set; a longer one walks the trie.
func (sd *splitDetector) keywordsIn(t *text) []keywordHit {
	if t.foldedPairs == nil {
		return sd.keywordsByTrie(t.folded)
	}
	t.hits = sd.keywordsByPairs(t.hits[:0], t.folded, t.foldedPairs)
	return t.hits
}

func (sd *splitDetector) keywordsByTrie(folded string) []keywordHit {
	var hits []keywordHit
	seen := make(map[int]bool)
	for _, m := range sd.trie.MatchString(folded) {
		if p := int(m.Pattern()); !seen[p] {
			seen[p] = true
			hits = append(hits, keywordHit{pattern: p, end: int(m.Pos()) + len(sd.keywords[p])})
		}
	}
	return hits
}

// keywordsByPairs looks for a keyword only when every one of its byte
// pairs is in the text's set, then sorts what it found as the trie would.
// It appends them to hits.
func (sd *splitDetector) keywordsByPairs(hits []keywordHit, folded string, pairs *pairSet) []keywordHit {
	start := 0
	for i, end := range sd.pairsEnd {
		held := pairs.holdsAll(sd.keywordPairs[start:end])
		start = end
		if !held {
			continue
		}
		k := sd.keywords[i]
		if at := strings.Index(folded, k); at >= 0 {
			hits = append(hits, keywordHit{pattern: i, end: at + len(k)})
		}
	}
	slices.SortFunc(hits, func(a, b keywordHit) int {
		if a.end != b.end {
			return a.end - b.end
		}
		return len(sd.keywords[b.pattern]) - len(sd.keywords[a.pattern])
	})
	return hits
}
