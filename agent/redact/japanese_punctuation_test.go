package redact

import (
	"strings"
	"testing"
)

// TestTokenValueEndsAtJapanesePunctuation: a figure after "tokens" ends
// at 。 as it would at a space, so the secretary's Japanese summary keeps
// "refresh tokens 75%)" (the seventh walk's answer read "refresh tokens
// [REDACTED:password] なし"); a token told before 。 is still redacted.
func TestTokenValueEndsAtJapanesePunctuation(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	summary := "完了: auth: JWT 発行を追加 (refresh tokens 75%)。未完了: なし。ブロック要因: auth: Redis 設定待ちでブロック。"
	if got, _ := r.Redact(summary); got != summary {
		t.Errorf("the summary was redacted:\n got %q\nwant %q", got, summary)
	}
	told := "the prod token is Xk39aaPq7Lm2Qz。よろしく"
	if got, _ := r.Redact(told); strings.Contains(got, "Xk39aaPq7Lm2Qz") || !strings.Contains(got, "。よろしく") {
		t.Errorf("a token before 。 is not redacted alone: %q", got)
	}
}
