package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGenericKeyPrefilterIsSound: whenever gitleaks' generic-api-key
// expression matches, mayHoldGenericKey says it may, and redaction with the
// prefilter equals redaction with the full detector.
func TestGenericKeyPrefilterIsSound(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	rule, ok := r.detector.Config.Rules[genericRuleID]
	if !ok || r.lite == nil {
		t.Fatal("gitleaks' default config has no generic-api-key rule; the prefilter is never used")
	}
	parts := []string{"api_key", "token", "AUTH", "secret", "password", "access", "ſecret", "\u212aey", "creds",
		" ", "\t", "\n", "=", ":", "::=", "||", "=>", "?=", ",", ">", "\"", "'", "`", "==",
		"x9f3Kq2LmZ8vR1tY", "abcd1234efgh", "short", "a1b2c3d4e5", "Zx/9+q8w7E6r5T4y", "ſſſſſſſſſſ", "\u212a\u212a\u212a\u212a\u212a12345",
		"認証トークン", "how is auth going?", `{"query":"`, `"}`, "-", "_", ".", "/", ";", "\\n",
		"my_app.", "abcdefghij", "x-y z", "  ", "?", "\f", "ab"}
	rng := rand.New(rand.NewPCG(5, 6))
	matched, skipped := 0, 0
	for range 30000 {
		var b strings.Builder
		for range 2 + rng.IntN(8) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		may := mayHoldGenericKey(s)
		if rule.Regex.MatchString(s) {
			matched++
			if !may {
				t.Fatalf("generic-api-key matches %q but the prefilter would skip it", s)
			}
		}
		if !may {
			skipped++
		}
	}
	if matched < 100 || skipped < 100 {
		t.Fatalf("%d matching and %d skipped strings: the generator does not exercise both sides", matched, skipped)
	}
	for _, s := range []string{
		`api_key = "x9f3Kq2LmZ8vR1tY"`, "auth token refresh middleware handler", `{"query":"how is auth going?","id":12}`,
		"password: hunter2hunter2", "認証 token ſecret=ſſſſſſſſſſſſ",
	} {
		full := s
		if spans := append(r.ownSpans(newText(s)), detectorSpans(r.detector, s)...); len(spans) > 0 {
			full, _ = apply(s, merge(dropFallbacks(spans)))
		}
		if got, _ := r.Redact(s); got != full {
			t.Fatalf("Redact(%q) = %q, the full detector gives %q", s, got, full)
		}
	}
	// A peer's request body with a keyword in its text but no assignment
	// skips the rule's expression.
	if body := `{"jsonrpc":"2.0","id":7,"method":"aoi.query","params":{"from":"pm","to":"eng","query":"how is auth going?","context_scope":["acme/webapp"]}}`; mayHoldGenericKey(body) {
		t.Fatalf("the prefilter lets the generic rule run on %s", body)
	}
	if got, _ := r.Redact(`api_key = "x9f3Kq2LmZ8vR1tY"`); !strings.Contains(got, "[REDACTED:") {
		t.Fatalf("a generic key was not redacted: %q", got)
	}
}

// TestOwnRulePrefiltersAreSound: a rule's cheap check never rejects text
// its expression matches.
func TestOwnRulePrefiltersAreSound(t *testing.T) {
	parts := []string{"aws secret ", "AWS Secret: ", "the awſ ſecret ", "aws", "AWS", "awſ", "Aws", "secret", "SECRET", "ſecret", " ", "\n", "is ", "=", "AKIA", "ASIA", "A3TX", "ABIA", "ACCA", "akia",
		"Z7QXPLMR4TWV2KJN", "Dhf05fW2gRLsS43b1EoBfbEIrYmKLg6UZ0arCd27", "/+", "for the bucket", "認証", "x",
		"password", "PASSWORD", "paſſword", "Pwd", "token", "TOKEN", "\u212aey", "api key", " is ", " IS ", " was ", ": ",
		"Xk9mQ2vL7p", "Authorization: Bearer ", "AUTHORIZATION: basic ", "mysql -u r -p", "sshpass -p ", "パスワードは", "ｐａｓｓｗｏｒｄ＝",
		"DB_PASS=", "pw=", "pass: ", "PW", "--password ", "docker login -p ", "SECRET_KEY=", "Api-Key: ", "whsec_", "Cookie: a=",
		"discord.com/api/webhooks/1234567/", "APIキーは", "トークン：", "credentials are ", "DBPASS=", "curl -b ", "/api/v10/webhooks/", "トークンを", " に変更", "API_KEY=", "JWT_SECRET=", "shiny-purple-elephant-77",
		"admin \u212aEY for the index", "CREDENTIALS", "秘密鍵", " (read only) ", "Zq4Wm8Kt2Rx7Lp3Vb9Nc5Yd",
		"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW", "QyNTUxOQAAACBf",
		"root / ", " / ", "use ", "USE ", "admin/", "S3cr3tPass",
		`DB_PASSWORD=""`, "api_key:", " # ", "// current: ", `''`, ";", ", ",
		"https://", `https:\/\/`, "0123456789abcdef0123456789ABCDEF", "@o1.ingest.sentry.io/7"}
	rng := rand.New(rand.NewPCG(7, 8))
	hits := map[string]int{}
	for range 60000 {
		var b strings.Builder
		for range 2 + rng.IntN(8) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		for _, ru := range []rule{awsKeyRule, awsSecretRule, passwordRule, passwordJARule, secretIsRule, authHeaderRule, cliPasswordRule,
			envPassRule, passColonRule, flagPasswordRule, secretAssignRule, tokenFormatRule, cookieRule, jaSecretRule, capsPassRule, envSecretRule, labelledSecretRule, keyBodyRule,
			slashPairRule, useSlashPairRule, commentValueRule, sentryDSNRule} {
			if ru.re.MatchString(s) {
				hits[ru.id]++
				if !ru.may(newText(s)) {
					t.Fatalf("rule %s matches %q but its prefilter rejects it", ru.id, s)
				}
			}
		}
	}
	if hits[awsKeyRule.id] < 50 || hits[awsSecretRule.id] < 50 || hits[passwordRule.id] < 50 || hits[authHeaderRule.id] < 50 {
		t.Fatalf("matches per rule %v: the generator does not exercise the rules", hits)
	}
}

// TestGenericKeyPrefilterLongText: texts longer than the prefilter's stack
// buffers (in bytes, and in bytes but not in runes) get the same answer.
func TestGenericKeyPrefilterLongText(t *testing.T) {
	key := `api_key = "x9f3Kq2LmZ8vR1tY"`
	for _, pad := range []string{strings.Repeat("word ", 300), strings.Repeat("認証 ", 150)} {
		if !mayHoldGenericKey(pad + key) {
			t.Errorf("%d bytes ending in a key: the prefilter would skip it", len(pad+key))
		}
		if !mayHoldGenericKey(key + pad) {
			t.Errorf("%d bytes starting with a key: the prefilter would skip it", len(key+pad))
		}
		if mayHoldGenericKey(pad) {
			t.Errorf("%d bytes of words: the prefilter finds a key", len(pad))
		}
	}
}
