package peers

import (
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestDescribeBoundsWhatAPeerSaysOfItself: a peer's self-description is
// cut to 64 contexts and task types of at most 128 printable characters,
// and an unknown status reads as online (the attack run stored 60,000
// contexts, 4 MB, from one answer).
func TestDescribeBoundsWhatAPeerSaysOfItself(t *testing.T) {
	var ctxs []wire.ContextReference
	var types []string
	for range 60000 {
		ctxs = append(ctxs, wire.ContextReference{Type: "repository", Identifier: "acme/" + strings.Repeat("x", 300)})
		types = append(types, "run\u202etests\x1b[31m")
	}
	d := Describe("pm\u200b"+strings.Repeat("r", 500), "own\u2028er\u2029\x07", "pwned", ctxs, types)
	if len(d.Contexts) != maxDescribedItems || len(d.TaskTypes) != maxDescribedItems {
		t.Fatalf("%d contexts, %d task types kept; want %d each", len(d.Contexts), len(d.TaskTypes), maxDescribedItems)
	}
	if n := len([]rune(d.Contexts[0])); n != maxDescribedRunes {
		t.Errorf("a context kept %d characters, want %d", n, maxDescribedRunes)
	}
	if d.TaskTypes[0] != "runtests[31m" || d.Owner != "owner" || !strings.HasPrefix(d.AnnouncedRole, "pmrrr") || len([]rune(d.AnnouncedRole)) != maxDescribedRunes {
		t.Errorf("printable only: task type %q, owner %q, role %q", d.TaskTypes[0], d.Owner, d.AnnouncedRole)
	}
	if d.Status != Online {
		t.Errorf("status %q, want an unknown status read as online", d.Status)
	}
	if got := Describe("", "", "busy", nil, nil).Status; got != Busy {
		t.Errorf("busy read as %q", got)
	}
}
