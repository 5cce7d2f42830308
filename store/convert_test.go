package store

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// TestFormatTimeAsTheLayout: the digit-by-digit writer gives what Format
// gives with timeLayout, for times in and around every field's range,
// in other zones, and outside the four-digit years it writes itself.
func TestFormatTimeAsTheLayout(t *testing.T) {
	times := []time.Time{
		time.Date(2026, 12, 3, 9, 5, 7, 1, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-5, 6, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 8, 30, 0, 120000000, time.FixedZone("JST", 9*3600)),
		time.Now(),
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		times = append(times, time.Unix(rng.Int64N(300e9)-62e9, rng.Int64N(1e9)).In(time.FixedZone("z", rng.IntN(50000)-25000)))
	}
	for _, at := range times {
		if got, want := formatTime(at), at.UTC().Format(timeLayout); got != want {
			t.Fatalf("formatTime(%v) = %q, want %q", at, got, want)
		}
	}
	at := times[0]
	if n := testing.AllocsPerRun(100, func() { _ = formatTime(at) }); n > 1 {
		t.Fatalf("formatTime took %v allocations; want 1, its string", n)
	}
	if formatTime(time.Time{}) != "" {
		t.Fatal("the zero time is not the empty string")
	}
}

// TestStringsJSONAsMarshal: a list is stored as json.Marshal writes it,
// HTML escapes and broken UTF-8 included.
func TestStringsJSONAsMarshal(t *testing.T) {
	for _, list := range [][]string{nil, {}, {"acme/webapp"}, {"a", "b c", "認証"}, {"q\"\\\n\t\x01"}, {"<script>&"}, {"bad\xff"}, {"\u2028\u2029"}, {""}} {
		want := "[]"
		if len(list) > 0 {
			b, _ := json.Marshal(list)
			want = string(b)
		}
		if got := stringsJSON(list); got != want {
			t.Errorf("stringsJSON(%q) = %s, want %s", list, got, want)
		}
	}
}
