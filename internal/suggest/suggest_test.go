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
