package store

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

type decisionLike string

// TestFlatCanonicalMatchesRoundTrip: the fast path gives byte for byte what
// the marshal, decode, re-encode round trip gives, so audit hashes do not
// depend on which path ran.
func TestFlatCanonicalMatchesRoundTrip(t *testing.T) {
	strs := []string{"", "plain", `quo"te\back`, "<b>&amp;</b>", "line\nbreak\ttab\x01", "\u2028\u2029", "認証 トークン", "emoji 🦊", "~\x7f"}
	nums := []any{0, -1, math.MaxInt64, math.MinInt64, uint64(math.MaxUint64), int8(-7), 0.1, 0.85, 1e21, 1e-7, 123456789.0, math.Copysign(0, -1), 3.0, true, false, nil}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		m := map[string]any{}
		for range 1 + r.IntN(6) {
			k := strs[r.IntN(len(strs))] + string(rune('a'+r.IntN(26)))
			switch r.IntN(4) {
			case 0:
				m[k] = strs[r.IntN(len(strs))]
			case 1:
				m[k] = nums[r.IntN(len(nums))]
			case 2:
				m[k] = decisionLike(strs[r.IntN(len(strs))])
			default:
				m[k] = []string{strs[r.IntN(len(strs))], strs[r.IntN(len(strs))]}
			}
		}
		fast, ok := flatCanonical(m)
		if !ok {
			t.Fatalf("case %d: fast path refused %#v", i, m)
		}
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := canonicalDetail(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		if fast != slow {
			t.Fatalf("case %d: fast %s\nround trip %s", i, fast, slow)
		}
	}
	// What the fast path must leave to the round trip.
	for _, d := range []any{
		map[string]any{"t": time.Unix(0, 0)},            // its own MarshalJSON
		map[string]any{"bad": "\xff"},                   // invalid UTF-8
		map[string]any{"n": map[string]any{"a": 1}},     // nested
		map[string]any{"f": float32(0.1)},               // 32-bit float formatting
		map[string]any{"l": []string(nil)},              // null list
		struct{ B, A int }{1, 2},                        // struct field order
		map[string]any{"x": math.Inf(1)},                // not encodable
		map[string]any{"p": &struct{}{}},                // pointer
		map[string]any{"j": json.RawMessage(`{"b":1}`)}, // raw JSON
	} {
		if out, ok := flatCanonical(d); ok {
			t.Fatalf("fast path took %#v → %s", d, out)
		}
	}
}

// BenchmarkFlatCanonical is the audit detail of a question that waits for
// the owner, as aoi.query encodes it on every call.
func BenchmarkFlatCanonical(b *testing.B) {
	d := map[string]any{"query_id": "q-01JD6Y3K9Z8X7W6V5T4S3R2Q1P", "scope": []string{"acme/webapp"},
		"priority": "normal", "decision": "BUFFER", "confidence": 0.42, "question": `"認証機能の進捗は？ how is auth going?"`}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := flatCanonical(d); !ok {
			b.Fatal("fast path refused")
		}
	}
}
