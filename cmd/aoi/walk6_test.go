package main

import (
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestStatusFoldsRepeatedAsks: `aoi status` lists an ask sent again and
// again once, counted, with when the newest and the oldest went (the
// sixth walk's status repeated one task request twenty times); other
// asks keep their own lines.
func TestStatusFoldsRepeatedAsks(t *testing.T) {
	bin := buildAOI(t)
	_, pm, _ := pinnedPair(t, bin)
	for range 3 {
		cli(t, bin, pm, "query", "eng-suzuki", "--async", "is the auth refactor merged?")
	}
	cli(t, bin, pm, "query", "eng-suzuki", "--async", "when is the release?")
	out := cli(t, bin, pm, "status")
	if n := strings.Count(out, "waiting for:       eng-suzuki"); n != 2 {
		t.Errorf("aoi status lists %d asks, want 2 (the repeated one once):\n%s", n, out)
	}
	if !strings.Contains(out, "“is the auth refactor merged?” ×3, last asked ") || !strings.Contains(out, "“when is the release?”, asked ") {
		t.Errorf("aoi status does not count the repeated ask:\n%s", out)
	}
}

// TestTrustAgainSaysWhatChanged: `aoi peers trust` on a peer already
// pinned to that certificate says the role changed, from what to what,
// not that aoi says hello to a newly trusted peer (the sixth walk gave
// eng-suzuki a role and read a first trust's message); with nothing new
// it says nothing changed.
func TestTrustAgainSaysWhatChanged(t *testing.T) {
	bin := buildAOI(t)
	_, pm, _ := pinnedPair(t, bin) // pm pinned eng-suzuki without a role
	var peers []agent.Peer
	cliJSON(t, bin, pm, &peers, "peers")
	fp := ""
	for _, p := range peers {
		if p.AgentID == "eng-suzuki" {
			fp = p.Fingerprint
		}
	}
	if fp == "" {
		t.Fatalf("pm-tanaka has not pinned eng-suzuki: %+v", peers)
	}
	out := cli(t, bin, pm, "peers", "trust", "eng-suzuki", fp, "--role", "engineer")
	if !strings.Contains(out, "eng-suzuki was already trusted (fingerprint ") || !strings.Contains(out, "; its role changed from none to engineer") ||
		strings.Contains(out, "hello") {
		t.Errorf("trusting eng-suzuki again with a role:\n%s", out)
	}
	out = cli(t, bin, pm, "peers", "trust", "eng-suzuki", fp, "--role", "engineer")
	if !strings.Contains(out, "; nothing changed (role engineer)") {
		t.Errorf("trusting eng-suzuki again with its role:\n%s", out)
	}
	cliJSON(t, bin, pm, &peers, "peers")
	for _, p := range peers {
		if p.AgentID == "eng-suzuki" && p.Role != "engineer" {
			t.Errorf("eng-suzuki's role is %q, want engineer", p.Role)
		}
	}
}

// TestTaskTypesNameTheOnlyTypeToAskFor: `aoi task AGENT` of a peer that
// offers one task type ends with the command that asks for it, its
// parameters written out (the sixth walk read a generic "aoi task
// eng-suzuki TYPE KEY=VALUE…" under the one type list_files).
func TestTaskTypesNameTheOnlyTypeToAskFor(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	offersTasks(t, eng, map[string]any{
		"list_files": map[string]any{"command": []any{"ls", "--sort={{order}}", "{{dir}}"}, "context": "acme/webapp",
			"isolation": "worktree", "timeout_sec": 60, "approval": "required",
			"params": map[string]any{
				"dir":   map[string]any{"required": true, "type": "path"},
				"order": map[string]any{"enum": []any{"name", "time"}},
			}},
	})
	if out := cli(t, bin, eng, "reload"); !strings.Contains(out, "tasks: +") {
		t.Fatalf("aoi reload: %s", out)
	}
	cli(t, bin, pm, "discover")
	out := cli(t, bin, pm, "task", "eng-suzuki")
	if !strings.Contains(out, "ask with: aoi task eng-suzuki list_files dir=VALUE [order=name|time]\n") {
		t.Errorf("aoi task eng-suzuki does not end with how to ask for list_files:\n%s", out)
	}
}
