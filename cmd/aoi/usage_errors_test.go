package main

import (
	"strings"
	"testing"
)

// TestMistypedCommandsSayWhatWasMeant: a mistyped command gets cobra's
// suggestion (one starting with the same letter, or the command another
// word names: ask for query), a missing argument the
// command's usage line, a wrong focus word names on|off, send's --priority is
// checked like query's and trust's --endpoint like init's --listen, a
// fingerprint pasted short says so, each a usage error (exit 2) before any
// core is asked.
func TestMistypedCommandsSayWhatWasMeant(t *testing.T) {
	bin := buildAOI(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"quary"}, `unknown command "quary" for "aoi"; did you mean query?`},
		{[]string{"qeury"}, `did you mean query?`},
		// What people type first, as the interface's "@ ask a peer" says.
		{[]string{"ask", "eng-suzuki", "is CI green?"}, `unknown command "ask" for "aoi"; did you mean query?`},
		{[]string{"query", "eng-suzuki"}, `usage: aoi query AGENT TEXT...`},
		{[]string{"answer", "q-1"}, `usage: aoi answer QUERY_ID TEXT...`},
		{[]string{"focus", "maybe"}, `focus takes on or off (got "maybe")`},
		{[]string{"send", "eng-suzuki", "note", "hi", "--priority", "urgent"}, `--priority "urgent": use one of low, normal, high, critical`},
		{[]string{"peers", "trust", "eng-suzuki", strings.Repeat("ab", 32), "--endpoint", "18443"}, `--endpoint "18443" is not HOST:PORT`},
		{[]string{"messages", "--type", "bogus"}, `--type "bogus" is not a message type; use one of task_assign,`},
		{[]string{"send", "eng-suzuki", "note"}, `give TEXT or --payload: an empty note tells the receiver nothing`},
		{[]string{"note"}, `the note is empty: write it after note`},
		{[]string{"query", "eng-suzuki", " "}, `the question is empty`},
		{[]string{"query", "eng-suzuki", "--wait", "5", "hi"}, `a duration needs its unit, e.g. 30s, 2m or 1h`},
		{[]string{"forget"}, `usage: aoi forget --agent ID [--yes] (required flag(s) "agent" not set)`},
		{[]string{"note", " "}, `the note is empty`},
		{[]string{"send", "eng-suzuki", "note", "   "}, `give TEXT or --payload`},
		{[]string{"peers", "refuse", "814A1358:5DB6E13D:01234567"}, `that fingerprint has 24 hex digits, not 64`},
		// Pasted short, in groups: not taken for an endpoint or a role
		// (the walk's was), which the next case still is.
		{[]string{"peers", "trust", "qa-ito", "45f1864d", "bdf677db", "49f3f2d5"}, "that fingerprint has 24 hex digits, not 64: paste it whole"},
		{[]string{"peers", "trust", "qa-ito", strings.Repeat("ab", 32), "127.0.0.1:8443"}, "the endpoint goes in --endpoint"},
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
