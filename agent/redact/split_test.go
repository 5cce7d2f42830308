package redact

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// TestSplitDetectorMatchesGitleaks checks that running only the rules
// whose keywords occur finds exactly what gitleaks' own detector (the same
// rules, all walked) finds, on texts holding secrets of many kinds.
func TestSplitDetectorMatchesGitleaks(t *testing.T) {
	r := newRedactor(t)
	if r.split == nil {
		t.Fatal("the default rules were not split: every peer request pays gitleaks' full walk")
	}
	secrets := []string{
		awsKey, ghToken, "github_pat_" + "11ABCDEFG0" + strings.Repeat("x7Kq", 20)[:72],
		"glpat-" + "Zx8Kq2Lm9Pw4Rt7Vb1Nc", "xoxb-" + "123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
		"sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "npm_" + "Zx8Kq2Lm9Pw4Rt7Vb1Nc3Hd6Jy0Ge5Aq7S2",
		"AIza" + "SyD8Kq2Lm9Pw4Rt7Vb1Nc3Hd6Jy0Ge5Aq7S", "shpat_" + "0123456789abcdef0123456789abcdef",
		"dop_v1_" + strings.Repeat("a1b2c3d4", 8),
		"ext_" + "abcde12345.abcd.acc_0123456789abcdef." + strings.Repeat("aB3dE6gH9j", 4), // authress "https://hooks.slack.com/services/" + "T01234567/B01234567/" + "AbCdEfGhIjKlMnOpQrStUvWx",
	}
	texts := []string{
		`{"jsonrpc":"2.0","id":"1","method":"aoi.query","params":{"from":"pm","query":"認証機能の進捗は？ how is auth going?","context_scope":["acme/webapp"]}}`,
		"nothing secret here, only words about tokens and keys",
		// Letters strings.ToLower takes to ASCII: the Kelvin sign and İ.
		"SLAC\u212a token xoxb-" + "123456789012-1234567890123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
		"G\u0130THUB_TOKEN=" + ghToken,
		"",
	}
	for i, s := range secrets {
		texts = append(texts, s,
			fmt.Sprintf("line %d: use %s for the deploy", i, s),
			fmt.Sprintf(`{"params":{"query":"the key is %s","context_scope":["x"]}}`, s),
			fmt.Sprintf("TOKEN=%s\nand again %s", s, s))
	}
	found := 0
	for _, s := range texts {
		want := sortedSpans(detectorSpans(r.lite, s))
		got := sortedSpans(r.split.spans(newText(s)))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("text %q:\n split found %v\n gitleaks found %v", s, got, want)
		}
		found += len(want)
	}
	if found < len(secrets) {
		t.Fatalf("gitleaks found %d secrets in the texts; the test needs at least %d to compare anything", found, len(secrets))
	}
}

func sortedSpans(sp []span) []span {
	sort.Slice(sp, func(i, j int) bool {
		if sp[i].start != sp[j].start {
			return sp[i].start < sp[j].start
		}
		if sp[i].end != sp[j].end {
			return sp[i].end < sp[j].end
		}
		return sp[i].id < sp[j].id
	})
	return sp
}

// TestAWSSecretRuleLongS: the aws-secret-key rule's prefilter skips the
// expression for text without "aws", but (?i) also reads U+017F (ſ) as
// "s", so "AWſ" must still reach it (followed by a word character, as
// the rule's \b after "aws" is ASCII-only).
func TestAWSSecretRuleLongS(t *testing.T) {
	r := newRedactor(t)
	for _, in := range []string{
		"認証: the AW\u017fsecret for the bucket is " + awsSecret + " ok",
		"認証: the aws secret for the bucket is " + awsSecret + " ok",
	} {
		out, _ := r.Redact(in)
		if strings.Contains(out, awsSecret) || !strings.Contains(out, "[REDACTED:aws-secret-key]") {
			t.Errorf("Redact(%q) = %q", in, out)
		}
	}
}

// TestKeywordsInAShortTextAsTheTrieFindsThem: a short text's keywords,
// found through its pair set, are the trie's, in the trie's order (the
// order the rules run in, which decides which rule names a secret two
// rules find).
func TestKeywordsInAShortTextAsTheTrieFindsThem(t *testing.T) {
	r := newRedactor(t)
	sd := r.split
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{
		`{"jsonrpc":"2.0","id":"1","method":"aoi.query","params":{"query":"how is auth going?","context_scope":["acme/webapp"]}}`,
		"nothing here", "", "x",
	}
	// Texts made of keywords, pieces of keywords and words around them,
	// so that keywords overlap, repeat and end where others end.
	for range 2000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			k := sd.keywords[rng.IntN(len(sd.keywords))]
			switch rng.IntN(4) {
			case 0:
				k = k[rng.IntN(len(k)):]
			case 1:
				k = strings.ToUpper(k)
			case 2:
				b.WriteString(" ")
			}
			b.WriteString(k)
		}
		texts = append(texts, b.String())
	}
	found := 0
	for _, s := range texts {
		short := newText(s)
		if short.foldedPairs == nil {
			t.Fatalf("text %q has no pair set; the test needs short texts", s)
		}
		long := *short
		long.rawPairs, long.foldedPairs = nil, nil // as a long text: the trie
		got, want := sd.keywordsIn(short), sd.keywordsIn(&long)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("text %q:\n pair set found %v\n trie found     %v", s, got, want)
		}
		found += len(want)
	}
	if found < len(texts) {
		t.Fatalf("only %d keywords found in %d texts: the test compares too little", found, len(texts))
	}
}
