package secretary

import (
	"slices"
	"testing"
)

func TestParseQuery(t *testing.T) {
	cases := []struct {
		in                 string
		terms              []string
		progress, blockers bool
		ja                 bool
	}{
		{"how is auth going, what blocks it?", []string{"auth"}, true, true, false},
		{"認証機能の実装進捗と、現在のブロック要因は？", []string{"認証"}, true, true, true},
		{"リフレッシュトークンはどうなってる？", []string{"リフレッシュトークン"}, false, false, true},
		{"Any progress on auth/jwt.go or ISSUE-123?", []string{"auth/jwt.go", "issue-123"}, true, false, false},
		{"@eng-suzuki status of the refresh tokens", []string{"refresh", "token"}, true, false, false},
		{"what about the DB migration", []string{"db", "migration"}, false, false, false},
	}
	for _, c := range cases {
		q := parseQuery(c.in)
		var asked []string
		for _, g := range q.Concepts {
			asked = append(asked, g[0])
		}
		if !slices.Equal(asked, c.terms) || !slices.Equal(q.Terms[:len(asked)], c.terms) {
			t.Errorf("%q: concepts %q (terms %q), want %q first", c.in, asked, q.Terms, c.terms)
		}
		if q.WantsProgress != c.progress || q.WantsBlockers != c.blockers || q.Japanese != c.ja {
			t.Errorf("%q: progress=%v blockers=%v ja=%v", c.in, q.WantsProgress, q.WantsBlockers, q.Japanese)
		}
	}
	q := parseQuery("@eng-suzuki any update on ISSUE-123 and auth/jwt.go?")
	if !slices.Equal(q.Agents, []string{"eng-suzuki"}) || !slices.Equal(q.Tickets, []string{"ISSUE-123"}) || !slices.Equal(q.Files, []string{"auth/jwt.go"}) {
		t.Errorf("mentions: %+v", q)
	}
}

// TestQueryExpandsJapaneseTerms: a Japanese word brings its English forms
// (glossary) and, for a run the glossary does not know whole, its pieces,
// all in one concept so confidence counts it once.
func TestQueryExpandsJapaneseTerms(t *testing.T) {
	cases := []struct {
		in   string
		want []string // among the terms
	}{
		{"認証の進捗は？", []string{"認証", "auth"}},
		{"設定ファイルの読み込みはどう？", []string{"設定ファイル", "config", "読み込み", "load"}},
		{"トークン再発行の件は？", []string{"トークン再発行", "トークン", "token", "再発行", "refresh"}},
		{"メトリクスとプラグインは？", []string{"メトリクス", "metric", "プラグイン", "plugin"}},
		{"読み取り専用モードは？", []string{"読み取り", "read", "専用モード", "専用", "モード"}},
	}
	for _, c := range cases {
		q := parseQuery(c.in)
		for _, w := range c.want {
			if !slices.Contains(q.Terms, w) {
				t.Errorf("%q: terms %q lack %q", c.in, q.Terms, w)
			}
		}
		if n := len(q.Concepts); n == 0 || n > 2 {
			t.Errorf("%q: %d concepts %q", c.in, n, q.Concepts)
		}
	}
	if q := parseQuery("how is auth going?"); len(q.Terms) != 1 {
		t.Errorf("an English question is not expanded: %q", q.Terms)
	}
}
