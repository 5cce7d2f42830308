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
