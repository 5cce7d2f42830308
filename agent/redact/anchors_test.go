package redact

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// anchorTexts are texts every rule's anchoring is checked on: secrets in
// each form the rules take, their clean look-alikes, a start after a
// word character (no \b there), after a non-ASCII letter (a \b), at the
// very start, several on one line, and every string literal of this
// package's tests.
func anchorTexts(t *testing.T) []string {
	texts := []string{
		"the admin password is XsiVpzz63Ffk",
		"Password is: letmein999, and the token was changed to Qw3rTy12Vb9",
		"mypassword is XsiVpzz63Ffk and xtoken: Qw3rTy12Vb9Lm",
		"本番password: Xq7Lm2Rt9Wz4 それとtoken=Ab9Cd8Ef7Gh6",
		"commit 3f9a2c1: auth: rotate refresh tokens on use\n\nFiles: auth/jwt.go (+42 -7)\nTODO: decide the token store.",
		"api key for staging (eu): Zq4Wm8Kt2Rx7Lp3Vb9Nc5Yd; the wifi password is hunter2go",
		"passpass passwordpassword: Zq4Wm8Kt2Rx7",
		"トークンは ghp_9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S です。APIキー：Zq4Wm8Kt2Rx7Lp3Vb9Nc5Yd、パスワードは「Xq7Lm2Rt9W」",
		"認証 トークン 更新 請求 設定 token refresh jwt トークン パスワード 暗証番号 1234",
		"DB_PASSWORD=Zq4Wm8Kt2Rx7 API_KEY='Xq7Lm2Rt9Wz4Ab8C' mysql -u root -pS3cr3tPass --password hunter22go",
	}
	// A long value (past any window a rule might be tried in).
	texts = append(texts, "password: "+strings.Repeat("Zq4Wm8Kt2Rx7", 120), "token "+strings.Repeat("a", 2000)+" password is Xq7Lm2Rt9Wz4")
	files, _ := filepath.Glob("*_test.go")
	lit := regexp.MustCompile("\"(?:[^\"\\\\\\n]|\\\\.)*\"|`[^`]*`")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range lit.FindAllString(string(b), -1) {
			if s, err := strconv.Unquote(q); err == nil && len(s) > 8 {
				texts = append(texts, s)
			}
		}
	}
	return texts
}

// TestAnchoredMatchesAreTheExpressions: a rule with an anchoring tries
// its expression only where a match can start; it must find exactly what
// the expression finds along the whole text.
func TestAnchoredMatchesAreTheExpressions(t *testing.T) {
	r := newRedactor(t)
	texts := anchorTexts(t)
	anchored := 0
	for _, ru := range r.rules {
		if ru.anchor == nil {
			continue
		}
		anchored++
		for _, s := range texts {
			tx := newText(s)
			want := ru.re.FindAllStringSubmatchIndex(s, -1)
			got := ru.matches(tx)
			if len(tx.folded) == len(s) && !slices.EqualFunc(got, want, slices.Equal[[]int]) {
				t.Errorf("rule %s (starts %q) on %q:\n got %v\nwant %v", ru.id, ru.anchor.starts, s, got, want)
			}
		}
	}
	// The rules the anchoring is for: the prose password rule and the
	// Japanese names of secrets, whose expressions open with alternations.
	if anchored < 5 {
		t.Errorf("only %d rules have an anchoring", anchored)
	}
	if secretIsRule.re != nil && anchoringFor(secretIsRule.re) == nil {
		t.Error("the prose password rule has no anchoring")
	}
	if anchoringFor(jaSecretRule.re) == nil {
		t.Error("the Japanese secret rule has no anchoring")
	}
}

// TestAnchoringStarts: what a match must start with, derived from the
// expression; an expression some match of which starts with text that
// cannot be named gets none.
func TestAnchoringStarts(t *testing.T) {
	for re, want := range map[string][]string{
		`(?i)\b(?:pass\s?word|pwd|api[ _-]?key)s?\s*=`: {"api key", "api-key", "api_key", "apikey", "pass", "pwd"},
		`(?:トークン|パスワード)は`:                              {"トークンは", "パスワードは"},
		`(?i)ＰＡＳＳ\s*=`:                                 {"ＰＡＳＳ", "ＰＡＳｓ", "ＰＡｓＳ", "ＰＡｓｓ", "ＰａＳＳ", "ＰａＳｓ", "ＰａｓＳ", "Ｐａｓｓ", "ｐＡＳＳ", "ｐＡＳｓ", "ｐＡｓＳ", "ｐＡｓｓ", "ｐａＳＳ", "ｐａＳｓ", "ｐａｓＳ", "ｐａｓｓ"},
		`\b-foo`:                                       nil, // \b before a non-word byte
		`(?:\bfoo|bar)`:                                nil, // \b where a match starts
		`SECRET_KEY=\S+`:                               {"secret_key="},
		`(?i)[a-z]+=`:                                  nil,
		`(?:x|token)\s`:                                nil, // a one-byte start
		`(?:foo)?bar`:                                  {"bar", "foobar"},
		`\w*auth\(`:                                    nil,
	} {
		a := deriveAnchoring(re)
		var got []string
		if a != nil {
			got = a.starts
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: starts %q, want %q", re, got, want)
		}
	}
}
