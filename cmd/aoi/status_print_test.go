package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestStatusPrintsHistoryIndexing: `aoi status` shows how far each
// repository's history is indexed, in progress and done, and why a
// repository could not be read.
func TestStatusPrintsHistoryIndexing(t *testing.T) {
	var b bytes.Buffer
	printStatus(&b, agent.Status{AgentID: "eng-suzuki", History: []agent.IndexProgress{
		{Context: "acme/webapp", Indexed: 1200, Total: 1970},
		{Context: "acme/docs", Indexed: 340, Total: 340, Done: true},
		{Context: "acme/broken", Error: "git log in repo: exit status 128: fatal: unable to read 1eff0cfa"},
	}})
	out := b.String()
	for _, want := range []string{"history:           acme/webapp 1200/1970 commits (60%), indexing", "history:           acme/docs 340 commits, done",
		"history:           acme/broken 0 commits, indexing; the last poll failed: git log in repo: exit status 128: fatal: unable to read 1eff0cfa (check contexts[].local_path"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}
