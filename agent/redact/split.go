package redact

import (
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
	trie *ahocorasick.Trie
	// byPattern lists, per keyword (its index in the trie), the detectors
	// of the rules it names.
	byPattern [][]*detect.Detector
	// always run on every text: the rules without keywords.
	always []*detect.Detector
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
		one := ruleDetector(d, map[string]config.Rule{id: ru})
		if len(ru.Keywords) == 0 {
			sd.always = append(sd.always, one)
			continue
		}
		for _, k := range ru.Keywords {
			k = strings.ToLower(k)
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
	return sd
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

// spans runs the rules whose keywords occur in s (and those without
// keywords) and locates their findings in s.
func (sd *splitDetector) spans(s string) []span {
	var out []span
	for _, d := range sd.always {
		out = append(out, detectorSpans(d, s)...)
	}
	matches := sd.trie.MatchString(strings.ToLower(s))
	if len(matches) == 0 {
		return out
	}
	var ran []*detect.Detector // a rule runs once even when several keywords name it
	for _, m := range matches {
		for _, d := range sd.byPattern[m.Pattern()] {
			if containsDetector(ran, d) {
				continue
			}
			ran = append(ran, d)
			out = append(out, detectorSpans(d, s)...)
		}
	}
	return out
}

func containsDetector(ds []*detect.Detector, d *detect.Detector) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}
