package secretary

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/store"
)

// TestLoanwordsSoundAlike: an English word and the katakana loanword
// written for it share a sound key; words that only share consonants do
// not.
func TestLoanwordsSoundAlike(t *testing.T) {
	for _, c := range []struct {
		en, ka string
		want   bool
	}{
		{"retweet", "リツイート", true},
		{"tweet", "ツイート", true},
		{"test", "テスト", true},
		{"server", "サーバー", true},
		{"index", "インデックス", true},
		{"compile", "コンパイル", true},
		{"thread", "スレッド", true},
		{"delete", "デリート", true},
		{"branch", "ブランチ", true},
		{"core", "コール", false},
		{"master", "ネスト", false},
		{"floor", "ファイル", false},
		{"pager", "ページ", false},
		{"window", "ウィンドウ", true},
		{"error", "エラー", false}, // one consonant: too little to tell
		{"string", "ストリング", true},

		{"retweet", "リスト", false},
		{"total", "タイトル", false},
		{"list", "ラスト", false},
	} {
		if got := soundsAlike(englishKey(c.en), katakanaKey(c.ka)); got != c.want {
			t.Errorf("%s ~ %s: %v (keys %v %v), want %v", c.en, c.ka, got, englishKey(c.en), katakanaKey(c.ka), c.want)
		}
	}
}

// TestLoanwordsReachTheOtherScript: an English word the glossary lacks
// finds the history that writes it in katakana (retweet: リツイート), and
// a katakana word the history that writes it in English.
func TestLoanwordsReachTheOtherScript(t *testing.T) {
	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(t.TempDir(), ""))
	h := func(n int) time.Time { return testNow.Add(-time.Duration(n) * time.Hour) }
	err := db.Write(context.Background(), func(tx *store.Tx) error {
		for _, e := range []store.ContextEvent{
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "a1a2a3a4a5a6", Title: "リツイート時のボタンの表示を修正", TS: h(30)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "b1b2b3b4b5b6", Title: "保存ボタンの表示を修正", TS: h(2)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "c1c2c3c4c5c6", Title: "Fix the sprite drawn on the canvas", TS: h(3)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "d1d2d3d4d5d6", Title: "Fix the graph drawn on the canvas", TS: h(1)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "e1e2e3e4e5e6", Title: "Keep accented letters in the slug", TS: h(40)},
		} {
			if _, err := tx.InsertContextEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]string{"Was the retweet button fixed?": "a1a2a3a", "スプライトの描画は直った？": "c1c2c3c",
		"スラッグ化でアクセント付きの文字は残る？": "e1e2e3e"} {
		a, err := s.Answer(context.Background(), Question{From: "pm-tanaka", Text: q})
		if err != nil {
			t.Fatal(err)
		}
		if refs := refsOf(a, "commit"); len(refs) == 0 || refs[0] != want {
			t.Errorf("%q: commit refs %q, want %s first", q, refs, want)
		}
	}
}

// TestLoanVocabularyReadsNewestFirstWithinABudget: a large mirror is not
// read whole at a question: the question learns the newest titles, within
// the budget; the older ones are learned in the background, and events
// added since at the next question.
func TestLoanVocabularyReadsNewestFirstWithinABudget(t *testing.T) {
	batch, budget := loanBatch, loanBudget
	loanBatch, loanBudget = 2, 4
	t.Cleanup(func() { loanBatch, loanBudget = batch, budget })
	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(t.TempDir(), ""))
	add := func(titles ...string) {
		err := db.Write(context.Background(), func(tx *store.Tx) error {
			for i, title := range titles {
				e := store.ContextEvent{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: fmt.Sprintf("%012x", len(title)*100+i), Title: title, TS: testNow}
				if _, err := tx.InsertContextEvent(e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// seen reads the vocabulary under its lock (the background learner
	// writes it).
	seen := func(words ...string) map[string]bool {
		v := &s.loans
		v.mu.Lock()
		defer v.mu.Unlock()
		out := map[string]bool{}
		for _, w := range words {
			out[w] = v.seen[w]
		}
		return out
	}
	add("Fix the oldest gadget", "Fix the older widget", "Fix the sprite", "Fix the canvas", "Fix the toolbar", "Fix the tooltip")
	s.loans.learning.Store(true) // hold the background learner back for the first look
	if _, err := s.loanVocabulary(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := seen("tooltip", "toolbar", "canvas", "sprite", "gadget"); !got["tooltip"] || !got["toolbar"] || !got["canvas"] || !got["sprite"] || got["gadget"] {
		t.Fatalf("the first question learned %v; want the four newest titles only (the budget)", got)
	}
	s.loans.learning.Store(false)
	add("Fix the scrollbar")
	if _, err := s.loanVocabulary(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !seen("scrollbar")["scrollbar"] {
		t.Fatal("the next question did not learn the title added since")
	}
	deadline := time.Now().Add(10 * time.Second)
	for got := seen("gadget", "widget"); !got["gadget"] || !got["widget"]; got = seen("gadget", "widget") {
		if time.Now().After(deadline) {
			t.Fatalf("the older titles were not learned in the background within 10 s: %v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for deadline := time.Now().Add(10 * time.Second); s.loans.learning.Load(); {
		if time.Now().After(deadline) {
			t.Fatal("the background learner did not end after reading every title")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestKatakanaLoanwordNamesEnglishHistory: a Japanese question in loanwords
// the glossary lacks (バイト, グループ) about English history reaches the
// English commit that names both ahead of Japanese ones that write one
// of them: katakana writes the English word itself.
func TestKatakanaLoanwordNamesEnglishHistory(t *testing.T) {
	s, db := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(t.TempDir(), ""))
	h := func(n int) time.Time { return testNow.Add(-time.Duration(n) * time.Hour) }
	err := db.Write(context.Background(), func(tx *store.Tx) error {
		for _, e := range []store.ContextEvent{
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "a1a2a3a4a5a6", Title: "Support byte grouping", TS: h(300)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "b1b2b3b4b5b6", Title: "本番パッケージの依存関係もマイナーバージョンのみグループ対象にする", TS: h(2)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "c1c2c3c4c5c6", Title: "複数のプロセッサグループを持つ環境に対応", TS: h(5)},
			{Source: "git", Kind: "commit", Ctx: "acme/webapp", Key: "d1d2d3d4d5d6", Title: "Print the offset in bytes", TS: h(200)},
		} {
			if _, err := tx.InsertContextEvent(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Answer(context.Background(), Question{From: "pm-tanaka", Text: "バイトのグループ化の対応はどこまで進んだ?"})
	if err != nil {
		t.Fatal(err)
	}
	if refs := refsOf(a, "commit"); len(refs) == 0 || refs[0] != "a1a2a3a" {
		t.Errorf("commit refs %q, want a1a2a3a (Support byte grouping) first", refs)
	}
}
