package source

import (
	"context"
	"testing"
)

// TestMarkersFlagUncommittedAndReadContinuations: a FIXME the working tree
// adds is flagged uncommitted and listed before committed ones, and a
// marker with nothing after it takes its text from the next comment line.
func TestMarkersFlagUncommittedAndReadContinuations(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	write := func(p, s string) { writeIn(t, dir, p, s) }
	write("a.go", "package a\n// FIXME: stale one\n")
	write("b.go", "package a\n")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "init")
	write("b.go", "package a\n// FIXME:\n// the cache is never evicted\nfunc f() {}\n")

	st, err := markerState(context.Background(), Repo{Ctx: "acme/a", Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Events) != 2 {
		t.Fatalf("markers = %+v", st.Events)
	}
	first := st.Events[0]
	if first.Key != "b.go:2" || first.Meta["uncommitted"] != true {
		t.Fatalf("first marker = %+v, want the uncommitted b.go:2", first)
	}
	if first.Title != "FIXME(b.go:2): the cache is never evicted" {
		t.Fatalf("continued marker title = %q", first.Title)
	}
	if st.Events[1].Meta["uncommitted"] == true {
		t.Fatalf("committed marker flagged uncommitted: %+v", st.Events[1])
	}
}

// TestPollDatesCommittedMarkers: a committed marker carries when its line
// was committed (not when it was seen); one the working tree adds does not.
func TestPollDatesCommittedMarkers(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	write := func(p, s string) { writeIn(t, dir, p, s) }
	write("a.go", "package a\n// FIXME: old one\n")
	gitIn(t, dir, "add", "-A")
	t.Setenv("GIT_AUTHOR_DATE", "2024-03-01T10:00:00Z")
	gitIn(t, dir, "commit", "-q", "-m", "init")
	write("a.go", "package a\n// FIXME: old one\n// FIXME: new one\n")

	b, err := Git{}.Poll(context.Background(), Repo{Ctx: "acme/a", Path: dir}, mapCursors{})
	if err != nil {
		t.Fatal(err)
	}
	added := map[string]any{}
	for _, st := range b.States {
		for _, e := range st.Events {
			if st.Kind == "marker" {
				added[e.Key] = e.Meta["added"]
			}
		}
	}
	if added["a.go:2"] != "2024-03-01T10:00:00Z" {
		t.Errorf("committed marker added = %v, want 2024-03-01T10:00:00Z", added["a.go:2"])
	}
	if v, ok := added["a.go:3"]; !ok || v != nil {
		t.Errorf("uncommitted marker added = %v (listed %v), want none", v, ok)
	}
}

// TestXXXIsAMarkerOnlyAsOne: XXX opening a comment or followed by a colon
// marks work to do; a placeholder in documentation ("_timeout=XXX", "XXX
// can be \"immediate\"") does not.
func TestXXXIsAMarkerOnlyAsOne(t *testing.T) {
	for line, marker := range map[string]bool{
		"// XXX this leaks the handle":                    true,
		"\t// see below. XXX(bob): remove after the port": true,
		"//   _timeout=XXX  milliseconds to wait":         false,
		`// XXX can be "immediate" or "exclusive"`:        true,
		`// _txlock=XXX, where XXX can be "immediate"`:    false,
	} {
		m := markerRE.FindStringSubmatch(line)
		got := m != nil && (m[1] != "XXX" || xxxMarker(line))
		if got != marker {
			t.Errorf("%q: marker = %v, want %v", line, got, marker)
		}
	}
}
