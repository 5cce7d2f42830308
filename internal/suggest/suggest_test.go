package suggest

import "testing"

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

func TestLoose(t *testing.T) {
	ids := []string{"eng-suzuki", "pm-tanaka", "qa-sato"}
	for in, want := range map[string]string{
		"eng-suzki": "eng-suzuki", // a typo, as Typo finds it
		"engg":      "eng-suzuki", // the start mistyped
		"suzuki":    "eng-suzuki", // a part
		"pm":        "pm-tanaka",  // the start
		"tanka":     "",           // a typo of a part is too far
		"bob":       "",           // another colleague
		"a":         "",           // in two ids
		"":          "",
	} {
		if got := Loose(in, ids); got != want {
			t.Errorf("Loose(%q) = %q; want %q", in, got, want)
		}
	}
	// Two ids start alike: naming one would be a guess.
	if got := Loose("engg", []string{"eng-suzuki", "eng-sato"}); got != "" {
		t.Errorf("Loose(engg) among two eng- ids = %q; want none", got)
	}
}
