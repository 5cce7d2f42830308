package suggest

import (
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	ids := []string{"eng-suzuki", "pm-tanaka", "qa-sato"}
	for in, want := range map[string]string{
		"eng-suzki": "eng-suzuki", // a letter left out
		"pm-tanka":  "pm-tanaka",
		"qa-mori":   "", // another colleague, not a typo
	} {
		if got := Closest(in, ids, 2); got != want {
			t.Errorf("Closest(%q) = %q; want %q", in, got, want)
		}
	}
	if got := Typo("listen_adr", []string{"listen_addr", "metrics"}); got != "listen_addr" {
		t.Errorf("Typo = %q", got)
	}
}

// TestLooseAll: every candidate that fits as well as the best: a typo, the
// start mistyped, a part; none when the name is another colleague's or a
// typo of a part.
func TestLooseAll(t *testing.T) {
	ids := []string{"eng-suzuki", "eng-sato", "pm-tanaka", "qa-suzuki"}
	for in, want := range map[string][]string{
		"eng-suzki": {"eng-suzuki"},             // a typo, as Typo finds it
		"pm":        {"pm-tanaka"},              // the start
		"tanka":     nil,                        // a typo of a part is too far
		"engg":      {"eng-suzuki", "eng-sato"}, // both start one edit away
		"suzuki":    {"eng-suzuki", "qa-suzuki"},
		"eng-sato":  {"eng-sato"},  // exact: nearest at distance 0
		"pm-tanak":  {"pm-tanaka"}, // a typo, as Typo finds it
		"bob":       nil,
		"":          nil,
	} {
		if got := LooseAll(in, ids); !slices.Equal(got, want) {
			t.Errorf("LooseAll(%q) = %q; want %q", in, got, want)
		}
	}
	if got := LooseAll("engg", []string{"eng-sato", "eng-sato"}); !slices.Equal(got, []string{"eng-sato"}) {
		t.Errorf("a candidate listed twice is offered twice: %q", got)
	}
}
