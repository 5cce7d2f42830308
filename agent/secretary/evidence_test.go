package secretary

import (
	"testing"

	"github.com/aoi-protocol/aoi/store"
)

// TestRefsRankCommitsAndFilesTogether: the commit that matches the question
// best comes first even though it touched several files, and files whose
// best evidence is a listed commit follow other evidence instead of
// crowding it out.
func TestRefsRankCommitsAndFilesTogether(t *testing.T) {
	pq := parsedQuery{Terms: []string{"lspci"}}
	hits := []store.ContextHit{
		{Kind: "commit", Key: "aaaaaaa1111", Title: "add lspci command", Score: 9,
			Meta: `{"files":[{"path":"kernel/terminal.cpp","lines":"10-40"},{"path":"kernel/pci.cpp","lines":"1-5"}]}`},
		{Kind: "commit", Key: "bbbbbbb2222", Title: "lspci: show class codes", Score: 6,
			Meta: `{"files":[{"path":"kernel/pci.cpp","lines":"7-9"}]}`},
		{Kind: "commit", Key: "ccccccc3333", Title: "terminal tweaks", Score: 1,
			Meta: `{"files":[{"path":"kernel/terminal.cpp","lines":"50-60"}]}`},
	}
	refs := groupEvidence(hits, pq).refs()
	if len(refs) < 3 {
		t.Fatalf("refs = %+v", refs)
	}
	if refs[0].Type != "commit" || refs[0].Ref != "aaaaaaa" {
		t.Fatalf("first ref = %+v, want the best-matching commit aaaaaaa", refs[0])
	}
	if refs[1].Ref != "bbbbbbb" {
		t.Fatalf("second ref = %+v, want the second matching commit before files the first one stands for", refs[1])
	}
	if refs[2].Type != "file" || refs[2].Ref != "kernel/pci.cpp:1-5" {
		t.Fatalf("third ref = %+v, want kernel/pci.cpp with its line range", refs[2])
	}
}
