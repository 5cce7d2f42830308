package abbrev

import "testing"

func TestShortens(t *testing.T) {
	for _, c := range []struct {
		term, word string
		want       bool
	}{
		{"auth", "authentication", true},
		{"auth", "authorization", true},
		{"auth", "authz", true},
		{"auth", "author", false},
		{"auth", "authored", false},
		{"perf", "performance", true},
		{"perf", "perfect", false},
		{"cert", "certain", false},
		{"cert", "certificates", true},
		{"task", "taskbar", false}, // no short form
	} {
		if got := Shortens(c.term, c.word); got != c.want {
			t.Errorf("Shortens(%q, %q) = %v, want %v", c.term, c.word, got, c.want)
		}
	}
	if !Is("auth") || Is("author") || Is("task") {
		t.Error("Is: auth is a short form, author and task are not")
	}
}
