package secretary

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/store"
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

// TestAnswerIsDatedByItsBestMatches: the "latest" in an answer's first line
// is the newest of its best matches; a weak match further down, newer than
// all of them, does not make old work look fresh.
func TestAnswerIsDatedByItsBestMatches(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var hits []store.ContextHit
	for i := range leadHits {
		hits = append(hits, store.ContextHit{Kind: "commit", Key: fmt.Sprintf("c%d", i), Title: "args: unique validator",
			TS: now.Add(-time.Duration(30+i) * 24 * time.Hour)})
	}
	hits = append(hits, store.ContextHit{Kind: "commit", Key: "weak", Title: "docs: mention args", TS: now.Add(-time.Hour)})
	pq := parseQuery("Is the unique args validator done?")
	f := answerFacts{q: pq, hits: hits, ev: groupEvidence(hits, pq), now: now}
	if sum := extractiveSummary(f); !strings.Contains(sum, "latest 30 days ago") {
		t.Fatalf("summary should date the answer by its best matches (30 days ago):\n%s", sum)
	}
}

// TestUnfinishedCommitIsInProgress: asked how far along a feature is, the
// answer lists the commit that says "(75% done)" under In progress, share
// and all, not under Done and not nowhere (a walk got "Done: Add JWT
// signing… In progress: nothing recorded").
func TestUnfinishedCommitIsInProgress(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	hits := []store.ContextHit{
		{Kind: "commit", Key: "c1", Title: "Refresh tokens: initial implementation (75% done)", TS: now.Add(-time.Hour)},
		{Kind: "commit", Key: "c2", Title: "Add JWT signing for the auth service", TS: now.Add(-48 * time.Hour)},
	}
	pq := parseQuery("how far along are the refresh tokens?")
	sum := extractiveSummary(answerFacts{q: pq, hits: hits, ev: groupEvidence(hits, pq), now: now})
	if !strings.Contains(sum, "In progress: Refresh tokens: initial implementation (75% done)") || strings.Contains(sum, "Done: Refresh") {
		t.Errorf("the unfinished commit is not in progress:\n%s", sum)
	}
}

// TestQuietWeekAnswersWithTheNewestWork: asked what is new when nothing
// happened in the last week, the secretary answers with the newest work
// there is, saying how old it is, rather than "nothing recorded".
func TestQuietWeekAnswersWithTheNewestWork(t *testing.T) {
	cfg := testConfig(t.TempDir(), filepath.Join(t.TempDir(), "no-transcripts"))
	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), cfg)
	err := db.Write(context.Background(), func(tx *store.Tx) error {
		_, err := tx.InsertContextEvent(store.ContextEvent{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "adbc881",
			Title: "fix: resolve macOS test link failure", Body: "files: Makefile (+2 -1)", TS: testNow.Add(-20 * 24 * time.Hour)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Answer(context.Background(), Question{Text: "What's new?", Scope: []string{"acme/webapp"}})
	if err != nil {
		t.Fatal(err)
	}
	if !hasPrefixIn(refsOf(a, "commit"), "adbc881") || !strings.Contains(a.Result.Summary, "20 days ago") {
		t.Fatalf("answer should rest on the 20-day-old commit: refs %v\n%s", a.Result.ContextRefs, a.Result.Summary)
	}
}

// TestWhoQuestionsNameTheAuthors: asked who did the work, the answer names
// the authors of the best-matching commits, most commits first, or the
// newest first when the question asks who was last; in the question's
// language. A question naming a file names those who changed it, and its
// commits lead the evidence. Other questions name nobody.
func TestWhoQuestionsNameTheAuthors(t *testing.T) {
	cfg := testConfig(t.TempDir(), filepath.Join(t.TempDir(), "no-transcripts"))
	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), cfg)
	commits := []struct {
		key, author string
		daysAgo     int
	}{{"a000001", "Ana Ruiz", 9}, {"a000002", "Ana Ruiz", 8}, {"a000003", "Kenji Sato", 1}, {"a000004", "Ana Ruiz", 5}}
	err := db.Write(context.Background(), func(tx *store.Tx) error {
		for _, c := range commits {
			_, err := tx.InsertContextEvent(store.ContextEvent{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: c.key,
				Title: "args: unique validator " + c.key, Body: "files: args.go (+2 -1)",
				Meta: `{"author":"` + c.author + `","files":[{"path":"args.go"}]}`, TS: testNow.Add(-time.Duration(c.daysAgo) * 24 * time.Hour)})
			if err != nil {
				return err
			}
		}
		// The newest commit only mentions args.go.
		_, err := tx.InsertContextEvent(store.ContextEvent{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "b000001",
			Title: "docs: say where args.go is", Body: "files: README.md (+1 -0)",
			Meta: `{"author":"Rui Docs","files":[{"path":"README.md"}]}`, TS: testNow.Add(-time.Hour)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ q, want string }{
		{"Who worked on the args validator?", "By: Ana Ruiz (3 commits, latest 5 days ago); "},
		{"Who touched args.go last?", "By: Kenji Sato (1 commit, 24 h ago); Ana Ruiz (3 commits, latest 5 days ago)."},
		{"誰が args の validator を作りましたか？", "担当: Ana Ruiz（3件、最新は5日前） / "},
		{"How is the args validator going?", ""},
	} {
		a, err := s.Answer(context.Background(), Question{Text: c.q, Scope: []string{"acme/webapp"}})
		if err != nil {
			t.Fatal(err)
		}
		sum := a.Result.Summary
		if strings.Contains(c.q, "args.go") && (len(a.Result.ContextRefs) == 0 || a.Result.ContextRefs[0].Ref != "a000003") {
			t.Errorf("%q: the newest commit changing args.go should lead, refs %v", c.q, a.Result.ContextRefs)
		}
		switch {
		case c.want == "" && (strings.Contains(sum, "By:") || strings.Contains(sum, "Ana Ruiz")):
			t.Errorf("%q names authors unasked:\n%s", c.q, sum)
		case c.want != "" && !strings.Contains(sum, c.want):
			t.Errorf("%q: summary lacks %q:\n%s", c.q, c.want, sum)
		}
	}
}

// TestHeadWithoutContext: matches that belong to no context (the owner's
// notes) are summed up without an empty "in".
func TestHeadWithoutContext(t *testing.T) {
	if got, want := templatesEN.head("infra", 1, "", "6 min ago"), "infra: 1 matching event, latest 6 min ago."; got != want {
		t.Errorf("en head = %q; want %q", got, want)
	}
	if got := templatesJA.head("インフラ", 2, "", "6分前"); strings.Contains(got, "（、") {
		t.Errorf("ja head = %q", got)
	}
	if got := templatesEN.head("auth", 2, "acme/webapp", "today"); got != "auth: 2 matching events in acme/webapp, latest today." {
		t.Errorf("en head with a context = %q", got)
	}
}

// TestTopicNamesAFewWords: a long question's first line names its first
// few words, not every one of them (the walk read "detail authentication
// refactor parts jwt refresh flow redis configuration qa start testing").
func TestTopicNamesAFewWords(t *testing.T) {
	long := strings.Fields("authentication refactor jwt refresh flow redis configuration")
	if got := topicOf(long); got != "authentication refactor jwt refresh …" {
		t.Errorf("topicOf(long) = %q", got)
	}
	if got := topicOf([]string{"auth", "refresh"}); got != "auth refresh" {
		t.Errorf("topicOf(short) = %q", got)
	}
}

// TestSectionEndsOnce: an item that ends its own sentence takes no second
// full stop, in either language ("infra.." and "infra.。" were seen).
func TestSectionEndsOnce(t *testing.T) {
	if got := templatesEN.section("Blocked by", []string{"waiting on the Redis config from infra."}); strings.Contains(got, "..") {
		t.Errorf("EN section = %q", got)
	}
	if got := templatesJA.section("ブロック要因", []string{"waiting on the Redis config from infra."}); strings.Contains(got, ".。") {
		t.Errorf("JA section = %q", got)
	}
}

// TestUnfinishedWorkIsNotDone: a commit whose title gives a share under
// 100% or says WIP is not listed as done (the walk saw "auth: refresh
// tokens (75%)" under Done); 100% and plain titles are. Nor is one whose
// title sounds finished but whose message says the work is held up now.
func TestUnfinishedWorkIsNotDone(t *testing.T) {
	wip := store.ContextHit{Kind: "commit", Title: "Refresh tokens: initial implementation (75% done)"}
	if got := unfinishedItems(answerFacts{hits: []store.ContextHit{wip}}); len(got) != 1 || got[0] != wip.Title {
		t.Errorf("unfinished work is not in progress with its share: %q", got)
	}
	held := store.ContextHit{Kind: "commit", Title: "auth: token refresh finished",
		Body: "auth: token refresh finished\n\nStill blocked on the Redis config from infra.\nfiles: auth/refresh.go"}
	if got := doneItems(answerFacts{hits: []store.ContextHit{held}}); len(got) != 0 {
		t.Errorf("a commit whose message says it is blocked is listed as done: %q", got)
	}
	held.Body = "auth: token refresh finished\n\nWas blocked on the Redis config; infra fixed it.\nfiles: auth/refresh.go"
	if got := doneItems(answerFacts{hits: []store.ContextHit{held}}); len(got) != 1 {
		t.Errorf("a blocker told in the past keeps the work from Done: %q", got)
	}
	for title, done := range map[string]bool{
		"auth: refresh tokens (75%)":  false,
		"auth: refresh 75 % there":    false,
		"WIP: invoice export":         false,
		"auth: refresh tokens (100%)": true,
		"auth: JWT signing done":      true,
		"ci: raise coverage to 80%":   true,
		"認証: リフレッシュ 75%完了":            false,
	} {
		f := answerFacts{hits: []store.ContextHit{{Kind: "commit", Title: title}}}
		if got := len(doneItems(f)) == 1; got != done {
			t.Errorf("%q listed as done: %v, want %v", title, got, done)
		}
	}
}

// TestLatestIsDatedOnTheClockToo: an answer is read later than it is
// written (the walk read "latest just now" minutes on): the newest match
// is dated on the clock, or by its day when older than 20 hours.
func TestLatestIsDatedOnTheClockToo(t *testing.T) {
	jst := time.FixedZone("JST", 9*3600)
	at := time.Date(2026, 11, 26, 10, 40, 0, 0, jst)
	if got := templatesEN.at("6 min ago", at, true); got != "6 min ago (10:40 JST)" {
		t.Errorf("recent: %q", got)
	}
	if got := templatesEN.at("3 days ago", at, false); got != "3 days ago (Nov 26)" {
		t.Errorf("older: %q", got)
	}
	if got := templatesJA.at("6分前", at, true); got != "6分前、10:40 JST" {
		t.Errorf("recent, Japanese: %q", got)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	if got := templatesEN.latest(now, now.Add(-6*time.Minute)); !strings.HasPrefix(got, "6 min ago (") {
		t.Errorf("latest 6 minutes before: %q", got)
	}
	if got := templatesEN.latest(now, now.Add(-72*time.Hour)); !strings.HasPrefix(got, "3 days ago (Nov 2") {
		t.Errorf("latest 3 days before: %q", got)
	}
}

// TestQuestionNamingNothing: a question made only of words that name
// nothing ("is it?", "それは？"), asked of a mirror with nothing recorded,
// is told so in its own language, not `No recorded work matches ""`; one
// that names something still hears that nothing matched it.
func TestQuestionNamingNothing(t *testing.T) {
	repo, _, _ := sharedAuthRepo(t)
	s, _ := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(repo, filepath.Join(t.TempDir(), "no-transcripts")))
	for _, c := range []struct{ q, want string }{
		{"is it?", "The question names nothing to look for"},
		{"それは？", "質問に探す対象"},
		{"invoice export?", `No recorded work matches "invoice export".`},
	} {
		a, err := s.Answer(context.Background(), Question{Text: c.q, Scope: []string{"acme/webapp"}})
		if err != nil {
			t.Fatal(err)
		}
		if sum := a.Result.Summary; !strings.Contains(sum, c.want) || strings.Contains(sum, `""`) || strings.Contains(sum, "「」") {
			t.Errorf("%q: summary = %q, want %q", c.q, sum, c.want)
		}
	}
}
