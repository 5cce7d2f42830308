package store

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAuditFieldsAsNewAuditDetail: a detail built member by member is byte
// for byte the one NewAuditDetail gives for the same members as a map, for
// members in any order, repeated keys, text that needs escaping, broken
// UTF-8, nil and empty lists, and numbers of every notation.
func TestAuditFieldsAsNewAuditDetail(t *testing.T) {
	texts := []string{"", "a", "認証機能の進捗は？", "q\"uote\\", "line\nbreak\t", "<&>", "\u2028", "bad\xffbyte", "\x01", strings.Repeat("x", 300)}
	keys := []string{"query_id", "scope", "priority", "decision", "confidence", "question", "a", "b", "é", "bad\xfekey", "z9", "k10"}
	numbers := []float64{0, 1, 0.55, -3, 1e21, 1e-7, 123456789.125, math.Inf(1), math.NaN(), 1e300}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 3000 {
		var f AuditFields
		m := map[string]any{}
		for range rng.IntN(12) {
			k := keys[rng.IntN(len(keys))]
			switch rng.IntN(3) {
			case 0:
				s := texts[rng.IntN(len(texts))]
				f.String(k, s)
				m[k] = s
			case 1:
				var list []string
				if n := rng.IntN(4); n > 0 || rng.IntN(2) == 0 {
					list = []string{}
					for range n {
						list = append(list, texts[rng.IntN(len(texts))])
					}
				}
				f.Strings(k, list)
				m[k] = list
			default:
				n := numbers[rng.IntN(len(numbers))]
				f.Number(k, n)
				m[k] = n
			}
		}
		got, gotErr := f.Detail()
		want, wantErr := NewAuditDetail(m)
		if (gotErr == nil) != (wantErr == nil) || got != want {
			t.Fatalf("round %d, members %v:\nAuditFields %q, %v\nNewAuditDetail %q, %v", round, m, got.canonical, gotErr, want.canonical, wantErr)
		}
	}
}

// TestAuditFieldsAllocatesOnlyItsText: the point of the builder is the
// map and the boxed values it spares the peer path.
func TestAuditFieldsAllocatesOnlyItsText(t *testing.T) {
	scope := []string{"acme/webapp"}
	allocs := testing.AllocsPerRun(100, func() {
		var f AuditFields
		f.String("query_id", "q_01")
		f.Strings("scope", scope)
		f.String("priority", "normal")
		f.String("decision", "escalate")
		f.Number("confidence", 0.42)
		f.String("question", "how is auth going?")
		if _, err := f.Detail(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Fatalf("a six-member detail took %v allocations; want at most 2 (its buffer and its string)", allocs)
	}
}

// TestAuditHashOfACommonRowAllocatesOnlyItsText: the writer hashes every
// row it appends; a question's row fits the stack buffer.
func TestAuditHashOfACommonRowAllocatesOnlyItsText(t *testing.T) {
	detail := `{"confidence":0,"decision":"escalate","priority":"normal","query_id":"q_01","question":"how is auth going?","scope":["acme/webapp"]}`
	if n := testing.AllocsPerRun(100, func() {
		hashSink = auditHash(GenesisHash, 7, "2026-12-03T09:00:00.123456789Z", "pm-bench", "aoi.query", "ok", detail)
	}); n > 1 {
		t.Fatalf("auditHash took %v allocations; want 1, its hex string", n)
	}
	for _, d := range []string{detail, `"` + strings.Repeat("x", 4000) + `"`} { // in the buffer, and past it
		sum := sha256.Sum256(append([]byte(GenesisHash), canonicalAuditJSON(7, "2026-12-03T09:00:00Z", "pm", "aoi.query", "ok", d)...))
		if got := auditHash(GenesisHash, 7, "2026-12-03T09:00:00Z", "pm", "aoi.query", "ok", d); got != hex.EncodeToString(sum[:]) {
			t.Fatalf("a row of %d bytes of detail hashed to %s, want %x", len(d), got, sum)
		}
	}
}

var hashSink string
