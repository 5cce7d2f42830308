package secretary

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestAnswerRemembersItsSources: a draft names, as ACL resources, every
// file its references, blockers and work in progress come from, and the
// context of the test run it reports, so that releasing it later can ask
// the ACL about each again; nothing the asker may not read is among them.
func TestAnswerRemembersItsSources(t *testing.T) {
	m := newMirror(t)
	deny := func(res string) bool {
		return !strings.HasPrefix(res, "acme/webapp/secrets/") && res != "acme/webapp/secrets"
	}
	a, err := m.s.Answer(context.Background(), Question{From: "pm-tanaka", Text: "How is auth going, and what blocks it?",
		Scope: []string{"acme/webapp"}, Allowed: deny})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"acme/webapp", "acme/webapp/auth/refresh.go"} // the failing test run; the FIXME's file
	for _, f := range refsOf(a, "file") {
		path, _, _ := strings.Cut(f, ":")
		want = append(want, "acme/webapp/"+path)
	}
	for _, w := range want {
		if !slices.Contains(a.Sources, w) {
			t.Errorf("sources lack %s: %q", w, a.Sources)
		}
	}
	if !slices.IsSorted(a.Sources) || len(slices.Compact(slices.Clone(a.Sources))) != len(a.Sources) {
		t.Errorf("sources %q are not sorted and unique", a.Sources)
	}
	for _, s := range a.Sources {
		if !deny(s) {
			t.Errorf("source %s is one the asker may not read", s)
		}
	}
}
