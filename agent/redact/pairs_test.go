package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPairSetNeverRulesOutAWordTheTextHolds: every substring of a text,
// ASCII or not, passes its pair set; and words the text does not hold are
// mostly ruled out, or the set would save nothing.
func TestPairSetNeverRulesOutAWordTheTextHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "p", "s", "w", "=", " ", "_", "K", "認", "証", "パ", "ス", "ｐ", "\\", "/"}
	ruledOut := 0
	for range 2000 {
		var b strings.Builder
		for range 1 + rng.IntN(120) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := b.String()
		var p pairSet
		p.fill(s)
		i, j := rng.IntN(len(s)), rng.IntN(len(s))
		if i > j {
			i, j = j, i
		}
		if sub := s[i : j+1]; !p.mayHold(sub) {
			t.Fatalf("pair set of %q rules out %q, which it holds", s, sub)
		}
		if !p.mayHold("authorization") {
			ruledOut++
		}
	}
	if ruledOut < 1900 {
		t.Fatalf("a word the texts never hold passed %d of 2000 pair sets", 2000-ruledOut)
	}
}

// TestLongTextsSkipThePairSet: past maxPairedText the set would be nearly
// full, so the prefilters search the text itself.
func TestLongTextsSkipThePairSet(t *testing.T) {
	long := strings.Repeat("x", maxPairedText) + " Authorization: Bearer"
	tx := newText(long)
	if tx.rawPairs != nil || tx.foldedPairs != nil {
		t.Fatal("a long text got a pair set")
	}
	if !tx.has("authorization") || !tx.hasRaw("Bearer") || tx.hasRaw("bearer") {
		t.Fatal("has/hasRaw on a long text do not search it")
	}
	short := newText("Authorization: Bearer")
	if !short.has("authorization") || short.hasRaw("authorization") || !short.hasRaw("Bearer") {
		t.Fatal("has folds and hasRaw does not")
	}
}
