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
		if !slices.Equal(q.Terms, c.terms) {
			t.Errorf("%q: terms %q, want %q", c.in, q.Terms, c.terms)
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
