package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// fullWidth writes s's printable ASCII in full-width forms (U+FF01–U+FF5E).
func fullWidth(s string) string {
	return strings.Map(func(r rune) rune {
		if '!' <= r && r <= '~' {
			return r - '!' + 0xff01
		}
		return r
	}, s)
}

// TestFullWidthToken: a GitHub token typed in full-width letters, whole
// or in part, is redacted exactly: the output stays valid UTF-8 and the
// text around the token stays as written; full-width words and numbers in
// Japanese prose stay.
func TestFullWidthToken(t *testing.T) {
	r := newRedactor(t)
	body := strings.TrimPrefix(ghToken, "ghp_")
	for _, c := range []struct{ before, token, after string }{
		{"", fullWidth(ghToken), ""},
		{"新しいトークン：", fullWidth(ghToken), " を使ってください"},
		{"token ", "ｇｈｐ＿" + body, " ok"},
		{"CIの鍵は ", "ghp_" + fullWidth(body), "。"},
		{"mixed: ", "ｇｈｐ＿" + fullWidth(body[:10]) + body[10:], "\n"},
	} {
		in := c.before + c.token + c.after
		out, f := r.Redact(in)
		if !utf8.ValidString(out) || !strings.HasPrefix(out, c.before+"[REDACTED:") || !strings.HasSuffix(out, "]"+c.after) ||
			strings.Count(out, "[REDACTED:") != 1 {
			t.Errorf("%q → %q (%v)", in, out, f)
			continue
		}
		if len(f) != 1 || f[0].Start != len(c.before) || f[0].End != len(c.before)+len(c.token) {
			t.Errorf("%q: findings %v, want the token's bytes %d–%d", in, f, len(c.before), len(c.before)+len(c.token))
		}
		if again, more := r.Redact(out); again != out || len(more) != 0 {
			t.Errorf("not idempotent: %q → %q", out, again)
		}
	}
	if out, _ := r.Redact(fullWidth(ghToken)); out != "[REDACTED:github-pat]" {
		t.Errorf("a full-width token → %q, want it named github-pat", out)
	}
	keepsAll(t, r, []string{
		"ＡＰＩの仕様を２０２４年に更新した",
		"ｇｈｐ＿ トークンの形式を調べた",
		"ＨＥＬＬＯ　ＷＯＲＬＤ　ＴＥＳＴＩＮＧＳ",
		"パスワード：８文字以上です",
		"認証機能の進捗は？ how is auth going?",
		"ＲＥＡＤＭＥ．ｍｄを更新（ｖ２．１．０）",
	})
}

// TestNarrowFullWidth: the narrowed text is the ASCII the full-width
// forms stand for, each of its bytes mapped to where it came from.
func TestNarrowFullWidth(t *testing.T) {
	in := "鍵 ｇｈｐ＿ａｂｃ１２３～！x"
	narrow, at, ok := narrowFullWidth(in)
	if !ok || narrow != "鍵 ghp_abc123~!x" {
		t.Fatalf("narrowFullWidth(%q) = %q, %v", in, narrow, ok)
	}
	if len(at) != len(narrow)+1 || at[len(narrow)] != len(in) {
		t.Fatalf("offsets %v", at)
	}
	for i := range len(narrow) {
		if narrow[i] < 0x80 && narrow[i] != ' ' && narrow[i] != 'x' && fullWidth(narrow[i:i+1]) != in[at[i]:at[i]+3] {
			t.Errorf("byte %d (%q) maps to %d", i, narrow[i], at[i])
		}
	}
	if _, _, ok := narrowFullWidth("認証機能の進捗は？ ２０２４年"); ok {
		t.Error("narrowed text with no full-width run of a token's length")
	}
}
