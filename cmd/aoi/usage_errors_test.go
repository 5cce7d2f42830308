package main

import (
	"strings"
	"testing"
)

// TestMistypedCommandsSayWhatWasMeant: a mistyped command gets cobra's
// suggestion (one starting with the same letter), a missing argument the
// command's usage line, a wrong focus word names on|off, send's --priority is
// checked like query's and trust's --endpoint like init's --listen, each a
// usage error (exit 2) before any core is asked.
func TestMistypedCommandsSayWhatWasMeant(t *testing.T) {
	bin := buildAOI(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"quary"}, `unknown command "quary" for "aoi"; did you mean query?`},
		{[]string{"qeury"}, `did you mean query?`},
		{[]string{"query", "eng-suzuki"}, `usage: aoi query AGENT TEXT...`},
		{[]string{"answer", "q-1"}, `usage: aoi answer QUERY_ID TEXT...`},
		{[]string{"focus", "maybe"}, `focus takes on or off (got "maybe")`},
		{[]string{"send", "eng-suzuki", "note", "hi", "--priority", "urgent"}, `--priority "urgent": use one of low, normal, high, critical`},
		{[]string{"peers", "trust", "eng-suzuki", strings.Repeat("ab", 32), "--endpoint", "18443"}, `--endpoint "18443" is not HOST:PORT`},
		{[]string{"messages", "--type", "bogus"}, `--type "bogus" is not a message type; use one of task_assign,`},
	} {
		if out := cliFails(t, bin, dir, exitUsage, c.args...); !strings.Contains(out, c.want) {
			t.Errorf("aoi %v printed:\n%s\nwant %q", c.args, out, c.want)
		}
	}
	// Two edits make "bogus" into "focus": not a typo anyone makes.
	if out := cliFails(t, bin, dir, exitUsage, "bogus"); strings.Contains(out, "did you mean") {
		t.Errorf("aoi bogus suggests a command:\n%s", out)
	}
}
