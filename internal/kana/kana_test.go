package kana

import "testing"

func TestStartsWord(t *testing.T) {
	for _, c := range []struct {
		text, term string
		want       bool
	}{
		{"mainブランチにマージ", "ランチ", false}, // lunch is no word of branch
		{"ランチの店", "ランチ", true},
		{"リリースノートを更新", "リリース", true},       // a compound going on after it
		{"リリースワークフローで止まる", "ワークフロー", true}, // a compound of two words
		{"ランチャーの起動", "ランチ", true},          // starts the word (After makes it count less)
		{"ブランチとランチ", "ランチ", true},          // the second one stands alone
		{"charmbracelet", "charm", true},   // not katakana: any occurrence
		{"認証の修正", "認証", true},
	} {
		if got := StartsWord(c.text, c.term); got != c.want {
			t.Errorf("StartsWord(%q, %q) = %v, want %v", c.text, c.term, got, c.want)
		}
	}
	if Word("ランチ") != true || Word("ランチ1") || Word("") || !Word("リーク") {
		t.Error("Word: katakana and ー only")
	}
}
