package glossary

import (
	"slices"
	"strings"
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

// TestPhrasesFindsKanaEntries: entries written with hiragana inside are
// found in a whole question, longest first and not overlapping.
func TestPhrasesFindsKanaEntries(t *testing.T) {
	got := entries(Phrases("PDFで見出しの番号と文字化けと読み取り専用モードは?"))
	for _, want := range []string{"見出し", "文字化け", "読み取り専用"} {
		if !slices.Contains(got, want) {
			t.Errorf("Phrases = %v, want %s among them", got, want)
		}
	}
	if slices.Contains(got, "読み取り") {
		t.Errorf("Phrases = %v: 読み取り overlaps 読み取り専用", got)
	}
	if got := Phrases("認証の進捗は?"); len(got) != 0 {
		t.Errorf("Phrases(認証の進捗は?) = %v, want none (no entry with hiragana)", got)
	}
}

// entries are the glossary entries of found phrases.
func entries(found []Phrase) []string {
	var out []string
	for _, p := range found {
		out = append(out, p.Entry)
	}
	return out
}

// TestPhrasesFindVerbForms: an entry that is a godan verb's stem form is
// found in the verb's other forms, and reported as written there, so the
// question's words can be cut; an ichidan verb's forms hold its stem form
// whole.
func TestPhrasesFindVerbForms(t *testing.T) {
	for text, want := range map[string]Phrase{
		"コメントを取り込む仕組みは動いてる?": {"取り込み", "取り込む"},
		"外部のログを取り込んでいる?":     {"取り込み", "取り込ん"},
		"設定を読み込まない不具合は直った?":  {"読み込み", "読み込ま"},
		"見出しを書き出す機能は?":       {"見出し", "見出し"},
		"テーマを切り替える設定はある?":    {"切り替え", "切り替え"},
	} {
		if got := Phrases(text); !slices.Contains(got, want) {
			t.Errorf("Phrases(%s) = %v, want %v among them", text, got, want)
		}
	}
	// A stem form's kana is not matched alone, nor a row's kana that no
	// form of the verb puts there (取り込き).
	for _, text := range []string{"込むのは誰?", "取り込き"} {
		if got := entries(Phrases(text)); slices.Contains(got, "取り込み") {
			t.Errorf("Phrases(%s) = %v, want no 取り込み", text, got)
		}
	}
}

// TestBumpWithWordsBetween: "上げ" alone means a bump, so a question that
// puts words between the version and the verb (バージョンはいつ上げた)
// still searches for bump; 立ち上げ (launch) keeps its own meaning.
func TestBumpWithWordsBetween(t *testing.T) {
	got := entries(Phrases("pflag のバージョンはいつ上げましたか？"))
	if !slices.Contains(got, "上げ") || !slices.Contains(English("上げ"), "bump") {
		t.Errorf("Phrases = %v, English(上げ) = %v; want 上げ found and meaning bump", got, English("上げ"))
	}
	if got := entries(Phrases("サーバーの立ち上げは終わった?")); !slices.Contains(got, "立ち上げ") || slices.Contains(got, "上げ") {
		t.Errorf("Phrases = %v, want 立ち上げ whole", got)
	}
}

// TestEnglishPhrases: the English entries of several words, longest first,
// none of one word.
func TestEnglishPhrases(t *testing.T) {
	got := EnglishPhrases()
	if !slices.Contains(got, "dark mode") || !slices.Contains(got, "stack trace") {
		t.Errorf("EnglishPhrases() lacks dark mode or stack trace: %q", got)
	}
	for i, p := range got {
		if !strings.Contains(p, " ") {
			t.Errorf("%q is one word", p)
		}
		if i > 0 && len(p) > len(got[i-1]) {
			t.Errorf("%q after the shorter %q", p, got[i-1])
		}
	}
}

// TestJapaneseHeadOfACompound: "dependency" reaches 依存関係 and, since
// "depend" is a stem of it too and 依存関係 holds it, 依存: Japanese
// commits say "…の依存削除". A shorter stem whose Japanese the found
// forms do not hold is not added.
func TestJapaneseHeadOfACompound(t *testing.T) {
	got := Japanese("dependency")
	if len(got) < 2 || got[0] != "依存関係" || !slices.Contains(got, "依存") {
		t.Errorf(`Japanese("dependency") = %q, want 依存関係 first and 依存`, got)
	}
	if got := Japanese("authentication"); slices.Contains(got, "依存") || len(got) == 0 {
		t.Errorf(`Japanese("authentication") = %q`, got)
	}
}

// TestOptionWords: the words of options and checks are known both ways.
func TestOptionWords(t *testing.T) {
	for ja, want := range map[string]string{"必須": "requir", "順番": "order", "無視": "ignor", "除外": "exclud", "任意": "optional", "対話": "interactiv"} {
		if !slices.Contains(English(ja), want) {
			t.Errorf("English(%s) = %v, want %s among them", ja, English(ja), want)
		}
	}
	if !slices.Contains(Japanese("required"), "必須") {
		t.Errorf("Japanese(required) = %v, want 必須 among them", Japanese("required"))
	}
}
