package secretary

import (
	"context"
	"strings"
	"testing"
)

// TestSummarySaysDoneInProgressBlocked: without an LLM the summary says
// what is done, what is in progress (the uncommitted file about the topic,
// the owner's progress note) and what blocks, in the question's language,
// and states each blocker once.
func TestSummarySaysDoneInProgressBlocked(t *testing.T) {
	m := newMirror(t)
	cases := []struct {
		q    string
		want []string
	}{
		{"How is auth going?", []string{"Done: ", "auth: ", "In progress: ", "auth/logout.go", "auth (認証) progress 75%", "Blocked by: ", blockTest}},
		{"認証の進捗は？", []string{"「認証」", "完了: ", "進行中: ", "auth/logout.go", "進捗 約75%", "ブロック要因: ", blockTest}},
	}
	for _, c := range cases {
		a, err := m.s.Answer(context.Background(), Question{Text: c.q, Scope: []string{"acme/webapp"}})
		if err != nil {
			t.Fatal(err)
		}
		sum := a.Result.Summary
		for _, w := range c.want {
			if !strings.Contains(sum, w) {
				t.Errorf("%q: summary lacks %q:\n%s", c.q, w, sum)
			}
		}
		for _, b := range a.Result.Blockers {
			if strings.Count(sum, b) > 1 {
				t.Errorf("%q: summary states blocker %q twice:\n%s", c.q, b, sum)
			}
		}
	}
	// A question the mirror knows nothing about says so, in its language.
	a, err := m.s.Answer(context.Background(), Question{Text: "経費精算の締め切りは？", Scope: []string{"acme/webapp"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Result.Summary, "該当する作業記録はありません") {
		t.Errorf("no-match summary = %q", a.Result.Summary)
	}
}
