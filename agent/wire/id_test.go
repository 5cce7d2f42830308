package wire

import (
	"strings"
	"testing"
	"time"
)

// TestNewIDSortsByTimeAndIsUnique checks that ids made later sort later
// (so tables keyed by them grow at their end), that ids made in the same
// millisecond still differ, and that they pass ValidID.
func TestNewIDSortsByTimeAndIsUnique(t *testing.T) {
	seen := map[string]bool{}
	prev := NewID("q")
	for i := 0; i < 10000; i++ {
		id := NewID("q")
		if !ValidID(id) || !strings.HasPrefix(id, "q-") || len(id) != len("q-")+24 {
			t.Fatalf("NewID = %q: want q- and 24 hex digits", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
		if id[:14] < prev[:14] {
			t.Fatalf("%q sorts before the earlier %q", id, prev)
		}
		prev = id
	}
	before := NewID("m")
	time.Sleep(2 * time.Millisecond)
	if after := NewID("m"); after <= before {
		t.Fatalf("%q made 2 ms after %q sorts before it", after, before)
	}
}

// TestValidIDTakesPeoplesWords checks that task and thread ids may be
// written in any script, while what would display unlike what it compares
// as (controls, bidi and zero-width characters, fillers, a decomposed
// spelling) and what could reach a path or a shell stays out.
func TestValidIDTakesPeoplesWords(t *testing.T) {
	for _, id := range []string{"T-1", "認証-1", "ログイン修正", "задача_7", "étape:2", "q-0190a1b2c3d4e5f6a7b8c9d0", "v1.2"} {
		if !ValidID(id) {
			t.Errorf("ValidID(%q) = false, want true", id)
		}
	}
	for _, id := range []string{
		"", ".hidden", "a b", "a/b", "a;b", "$(x)", "a\x1b[31m", "a\u202eb", "a\u200bb", "\u3164", "a\u3164b",
		"a\ufe0fb", "\u0301a", "e\u0301tape", "a\u00a0b", "a\xffb", strings.Repeat("認", 43),
	} {
		if ValidID(id) {
			t.Errorf("ValidID(%q) = true, want false", id)
		}
	}
}
