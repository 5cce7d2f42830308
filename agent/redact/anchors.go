package redact

import (
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// anchoring lets a rule try its expression only where a match can start.
// Go's regexp has no fast scan for an expression that opens with an
// alternation ("トークン|パスワード|…", "(?i)\bpass…|token…"): it runs its
// automaton from every position of the text, which cost a typical commit
// most of its redaction (40 µs per rule on a paragraph naming トークン).
// Every match of such an expression starts with one of a few texts; those
// are found with strings.Index and the expression, held to start where its
// text starts (\A), runs once from each.
type anchoring struct {
	// starts are lower-case texts every match begins with one of.
	starts []string
	// wordStart: the expression opens with \b, which at the start of the
	// text it is given holds before a word character (every start is
	// one); the byte before the start is checked instead.
	wordStart bool
	// atStart is the expression held to the start of its text.
	atStart *regexp.Regexp
	// span is how many bytes after a start the expression may read (its
	// longest match and a few bytes for assertions after it), or -1 when
	// it has no bound: each try gets that much of the text.
	span int
}

// maxStarts bounds the texts an anchoring looks for: each is a pass over
// the text.
const maxStarts = 24

// anchorings caches anchoringFor by expression (New runs once per core,
// but tests build many redactors).
var anchorings sync.Map // string → *anchoring (nil: none)

// anchoringFor derives re's anchoring, or nil when some match may start
// with text that cannot be named in advance (a letter class, an optional
// part) or with a single byte (too many places to try).
func anchoringFor(re *regexp.Regexp) *anchoring {
	src := re.String()
	if a, ok := anchorings.Load(src); ok {
		return a.(*anchoring)
	}
	a := deriveAnchoring(src)
	anchorings.Store(src, a)
	return a
}

func deriveAnchoring(src string) *anchoring {
	tree, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	subs := []*syntax.Regexp{tree}
	if tree.Op == syntax.OpConcat {
		subs = tree.Sub
	}
	a := &anchoring{}
	if len(subs) > 0 && subs[0].Op == syntax.OpWordBoundary {
		a.wordStart, subs = true, subs[1:]
	}
	starts, ok := concatStarts(subs)
	if !ok || len(starts) > maxStarts {
		return nil
	}
	for _, s := range starts {
		if a.wordStart && !isWordByte(s[0]) {
			return nil // \b before a non-word byte needs a word byte before it
		}
	}
	a.starts = withoutLonger(starts)
	a.atStart = regexp.MustCompile(`\A(?:` + src + `)`)
	a.span = -1
	if n := maxLen(tree); n < math.MaxInt32 {
		a.span = n + 8 // assertions at the match's end read the byte after it
	}
	return a
}

// concatStarts is what a concatenation's matches start with: the texts
// of its leading parts joined, up to the first part whose matches are
// not all named (then its starts) or one that would make too many.
func concatStarts(subs []*syntax.Regexp) ([]string, bool) {
	acc, _ := concatTexts(subs)
	for _, s := range acc {
		if len(s) < 2 {
			return nil, false
		}
	}
	return acc, len(acc) > 0
}

// concatTexts is texts for a concatenation.
func concatTexts(subs []*syntax.Regexp) ([]string, bool) {
	acc := []string{""}
	for _, sub := range subs {
		list, exact := texts(sub)
		if len(list) == 0 {
			return acc, false
		}
		joined := cross(acc, list)
		if len(joined) > maxStarts {
			if !slices.Contains(acc, "") {
				return acc, false // long enough already
			}
			joined = shrink(joined)
			exact = false
		}
		acc = joined
		if !exact {
			return acc, false
		}
	}
	return acc, true
}

// texts lists, lower-cased as the folded text is, what every match of re
// starts with; exact says every match is one of them. "" among them
// means a match may start with anything. An empty list: nothing known,
// as for an assertion (\b, ^): where a match starts, the text it is
// tried on has no byte before it, so an assertion there would not see
// the text's own (deriveAnchoring checks a leading \b itself).
func texts(re *syntax.Regexp) (list []string, exact bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return literalTexts(re)
	case syntax.OpCharClass:
		return classTexts(re)
	case syntax.OpCapture:
		return texts(re.Sub[0])
	case syntax.OpEmptyMatch:
		return []string{""}, true
	case syntax.OpQuest:
		list, exact := texts(re.Sub[0])
		if len(list) == 0 {
			return []string{""}, false
		}
		return dedupe(append(list, "")), exact
	case syntax.OpStar:
		return []string{""}, false
	case syntax.OpPlus:
		list, _ := texts(re.Sub[0])
		return list, false
	case syntax.OpRepeat:
		if re.Min == 0 {
			return []string{""}, false
		}
		list, exact := texts(re.Sub[0])
		return list, exact && re.Min == 1 && re.Max == 1
	case syntax.OpConcat:
		return concatTexts(re.Sub)
	case syntax.OpAlternate:
		var out []string
		exact := true
		for _, sub := range re.Sub {
			list, ex := texts(sub)
			if len(list) == 0 {
				return nil, false
			}
			out, exact = append(out, list...), exact && ex
		}
		out = dedupe(out)
		if len(out) > maxStarts {
			return shrink(out), false
		}
		return out, exact
	}
	return nil, false
}

// shrink merges texts into common prefixes (a start's prefix is a start
// too), those sharing the longest first, until at most maxStarts remain;
// nil when they cannot be (no two share two bytes).
func shrink(list []string) []string {
	list = withoutLonger(list)
	for len(list) > maxStarts {
		best := ""
		for i := 1; i < len(list); i++ {
			if p := commonPrefix(list[i-1], list[i]); len(p) > len(best) {
				best = p
			}
		}
		if len(best) < 2 {
			return nil
		}
		for i, s := range list {
			if strings.HasPrefix(s, best) {
				list[i] = best
			}
		}
		list = withoutLonger(list)
	}
	return list
}

// withoutLonger sorts list and drops each text another in it begins
// (finding "token" finds where "tokens" starts).
func withoutLonger(list []string) []string {
	list = dedupe(list)
	out := list[:0]
	for _, s := range list {
		if len(out) > 0 && strings.HasPrefix(s, out[len(out)-1]) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// commonPrefix is the longest prefix a and b share, whole characters.
func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return a[:n]
}

// literalTexts is a literal as the folded text may hold it: ASCII letters
// in lower case, and under (?i) each case of another letter (Ｐ, ｐ), as
// long as they are few; past that, the first characters only.
func literalTexts(re *syntax.Regexp) ([]string, bool) {
	fold := re.Flags&syntax.FoldCase != 0
	acc := []string{""}
	for _, r := range re.Rune {
		forms := []string{asciiLower(string(r))}
		if fold && r >= utf8.RuneSelf {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				forms = append(forms, asciiLower(string(f)))
			}
		}
		if len(acc)*len(forms) > maxStarts {
			return acc, false
		}
		acc = cross(acc, forms)
	}
	return acc, true
}

// classTexts lists a character class's characters when it has at most 4
// (after folding ASCII case: [Aa] is one).
func classTexts(re *syntax.Regexp) ([]string, bool) {
	var out []string
	for i := 0; i+1 < len(re.Rune); i += 2 {
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi-lo >= 8 {
			return nil, false
		}
		for r := lo; r <= hi; r++ {
			out = append(out, asciiLower(string(r)))
		}
	}
	out = dedupe(out)
	if len(out) == 0 || len(out) > 4 {
		return nil, false
	}
	return out, true
}

// asciiLower lower-cases ASCII letters only, as foldASCII does.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupe(out)
}

func dedupe(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// maxLen is the most bytes a match of re can span, or math.MaxInt32 when
// it has no bound.
func maxLen(re *syntax.Regexp) int {
	const unbounded = math.MaxInt32
	switch re.Op {
	case syntax.OpLiteral:
		n := 0
		for _, r := range re.Rune {
			n += utf8.RuneLen(r)
			if re.Flags&syntax.FoldCase != 0 {
				n += utf8.UTFMax // a fold may be longer (K, ſ)
			}
		}
		return n
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return unbounded
	case syntax.OpRepeat:
		if re.Max < 0 {
			return unbounded
		}
		return min(unbounded, re.Max*maxLen(re.Sub[0]))
	case syntax.OpConcat:
		n := 0
		for _, sub := range re.Sub {
			n = min(unbounded, n+maxLen(sub))
		}
		return n
	case syntax.OpAlternate:
		n := 0
		for _, sub := range re.Sub {
			n = max(n, maxLen(sub))
		}
		return n
	}
	return 0 // empty-width
}

// matches finds what a.atStart matches from each start in t (the text's
// offsets: folding kept its length), in order, as re's
// FindAllStringSubmatchIndex over the whole text would.
func (a *anchoring) matches(t *text) [][]int {
	s := t.raw
	var out [][]int
	end := 0
	for _, p := range startPositions(t.folded, a.starts) {
		if p < end || a.wordStart && p > 0 && isWordByte(s[p-1]) {
			continue // inside an earlier match, or no \b before it
		}
		stop := len(s)
		if a.span >= 0 {
			stop = min(stop, p+a.span)
		}
		m := a.atStart.FindStringSubmatchIndex(s[p:stop])
		if m == nil {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += p
			}
		}
		out = append(out, m)
		end = m[1]
	}
	return out
}

// startPositions are the offsets in lower where any of starts begins, in
// order, each once.
func startPositions(lower string, starts []string) []int {
	var at []int
	for _, a := range starts {
		for i := 0; ; {
			j := strings.Index(lower[i:], a)
			if j < 0 {
				break
			}
			at = append(at, i+j)
			i += j + 1
		}
	}
	slices.Sort(at)
	return slices.Compact(at)
}
