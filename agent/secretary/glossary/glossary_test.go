package glossary

import (
	"slices"
	"testing"
)

func TestBothDirections(t *testing.T) {
	ja, en := Size()
	if ja < 300 || en < 250 {
		t.Fatalf("glossary has %d Japanese and %d English entries, want a few hundred", ja, en)
	}
	for term, want := range map[string]string{"認証": "auth", "設定ファイル": "config", "メトリクス": "metric", "プラグイン": "plugin", "句読点": "punctuation"} {
		if !slices.Contains(English(term), want) {
			t.Errorf("English(%s) = %v, want %s among them", term, English(term), want)
		}
	}
	if !slices.Contains(Japanese("authentication"), "認証") || !slices.Contains(Japanese("plugin"), "プラグイン") {
		t.Errorf("Japanese(authentication) = %v, Japanese(plugin) = %v", Japanese("authentication"), Japanese("plugin"))
	}
	if Japanese("zzzz") != nil {
		t.Errorf("an unknown word has a translation")
	}
}

func TestWithinSplitsRuns(t *testing.T) {
	got := Within("トークン再発行")
	if !slices.Contains(got, "トークン") || !slices.Contains(got, "再発行") {
		t.Fatalf("Within(トークン再発行) = %v", got)
	}
	if got := Within("ライセンス表示"); !slices.Contains(got, "ライセンス") || !slices.Contains(got, "表示") {
		t.Fatalf("Within(ライセンス表示) = %v", got)
	}
}
