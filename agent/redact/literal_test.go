package redact

import (
	"regexp/syntax"
	"strings"
	"testing"
)

func TestRequiredLiteral(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{`abc`, "abc"},
		{`(?i)ABC`, "abc"},
		{`a(b|c)d`, "a"}, // the alternation is not required text
		{`x?yz`, "yz"},   // nor an optional part
		{`(?:foo)+barbaz`, "barbaz"},
		{`x{0,3}y`, "y"},
		{`(?:abc)?`, ""},
		{`foo|bar`, ""},
		{`\.(?:acc)[_-]`, ".acc"}, // the shape of the authress rule's middle
		{`(?i)task`, "ta"},        // (?i)s also matches U+017F and k U+212A
		{`認証abc`, "abc"},          // non-ASCII runes are cut out
		{`ab[0-9]{2}cde`, "cde"},
	} {
		re, err := syntax.Parse(c.expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := requiredLiteral(re); got != c.want {
			t.Errorf("requiredLiteral(%q) = %q, want %q", c.expr, got, c.want)
		}
	}
}

// TestPeerBodyRunsNoRuleExpression: an ordinary aoi.query body names the
// authress rule's keyword ("ext_" in "context_scope"), but lacks the
// literal every match of that rule holds, so no rule expression runs.
func TestPeerBodyRunsNoRuleExpression(t *testing.T) {
	r := newRedactor(t)
	body := `{"jsonrpc":"2.0","id":"1","method":"aoi.query","params":{"from":"pm-bench","to":"eng-bench","query":"認証機能の進捗は？ how is auth going?","context_scope":["acme/webapp"]}}`
	lower := strings.ToLower(body)
	named := 0
	for _, m := range r.split.trie.MatchString(lower) {
		for _, rs := range r.split.byPattern[m.Pattern()] {
			named++
			if rs.lit == "" || strings.Contains(lower, rs.lit) {
				t.Errorf("a rule named by keyword %q would run its expression (literal %q)", m.MatchString(), rs.lit)
			}
		}
	}
	if named == 0 {
		t.Fatal("no rule is named by the body's keywords: the test no longer exercises the prefilter")
	}
}
