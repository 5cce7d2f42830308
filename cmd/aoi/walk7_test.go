package main

import (
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// TestOutboxSaysWhyInWords: a message eng-suzuki refuses (no messages
// rule) waits in pm-tanaka's outbox, and `aoi outbox` says why in the
// peer's words, not as a JSON-RPC error string (the seventh walk read
// "refused: rpc error -32001 (Permission denied): agent pm-tan…").
func TestOutboxSaysWhyInWords(t *testing.T) {
	bin := buildAOI(t)
	_, pm, _ := pinnedPair(t, bin)
	cliFails(t, bin, pm, 1, "send", "eng-suzuki", "note", "the release moved to Friday")
	out := cli(t, bin, pm, "outbox")
	if strings.Contains(out, "rpc error") || strings.Contains(out, "-32001") ||
		!strings.Contains(out, "refused: agent pm-tanaka has no write access") {
		t.Errorf("aoi outbox does not say in words why the message waits:\n%s", out)
	}
}

// TestTrustMistakesSayWhatToDo: `aoi peers trust` with an id wrong only
// for its capitals names the lower-case id, and its refusals read as
// sentences after "aoi:" (the seventh walk read "aoi: trust: that agent
// id is not valid", and "trusting qa-ito failed: trust: …" in the
// interface).
func TestTrustMistakesSayWhatToDo(t *testing.T) {
	bin := buildAOI(t)
	eng, _, _ := pinnedPair(t, bin)
	fp := strings.TrimSpace(cli(t, bin, eng, "id", "--fingerprint"))
	out := cliFails(t, bin, eng, 1, "peers", "trust", "QA-Ito", fp)
	if !strings.Contains(out, "agent ids are lower-case: use qa-ito") {
		t.Errorf("trusting QA-Ito does not name qa-ito:\n%s", out)
	}
	out = cliFails(t, bin, eng, 1, "peers", "trust", "qa-ito", "1234:zz")
	if strings.Contains(out, "trust: ") || !strings.Contains(out, `"1234:zz" is not a certificate fingerprint`) {
		t.Errorf("a malformed fingerprint:\n%s", out)
	}
}

// TestUnreachablePeerIsSaidInWords: `aoi task AGENT TYPE --sync` to a
// peer whose aoi stopped says where nothing answered and what to check,
// not Go's call chain (the seventh walk read "calling aoi.task.execute on
// https://…: Post \"https://…\": dial tcp …: connect: connection refused").
func TestUnreachablePeerIsSaidInWords(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, engProc := pinnedPair(t, bin)
	offersTasks(t, eng, map[string]any{"lint": map[string]any{"command": []any{"true"}, "context": "acme/webapp",
		"isolation": "worktree", "timeout_sec": 120, "approval": "required"}})
	cli(t, bin, eng, "reload")
	cli(t, bin, pm, "discover") // it offers lint: the request is not refused here
	var peers []agent.Peer
	cliJSON(t, bin, pm, &peers, "peers")
	endpoint := ""
	for _, p := range peers {
		if p.AgentID == "eng-suzuki" {
			endpoint = p.Endpoint
		}
	}
	engProc.kill()
	out := cliFails(t, bin, pm, 1, "task", "eng-suzuki", "lint", "--sync")
	want := "eng-suzuki is unreachable at " + endpoint
	if !strings.Contains(out, want) || !strings.Contains(out, "nothing is listening there") ||
		strings.Contains(out, "dial tcp") || strings.Contains(out, "calling aoi.") {
		t.Errorf("want %q and the advice, without the Go error:\n%s", want, out)
	}
}

// TestOutboxSaysWhereNothingAnswered: a question queued for a peer whose
// aoi stopped shows, once tried, where nothing answered and what to
// check, not Go's call chain (the seventh walk's LAST ERROR read
// "calling aoi.query on https://127.0.0.1:18445/aoi/v1/rpc: Po…").
func TestOutboxSaysWhereNothingAnswered(t *testing.T) {
	bin := buildAOI(t)
	eng, _, _, pmProc := pinnedPairProcs(t, bin, serveOpts{}, serveOpts{})
	pmProc.kill()
	cli(t, bin, eng, "query", "pm-tanaka", "is the release on Friday?")
	out := ""
	for range 40 { // the first try is at once; its failure is stored after it
		if out = cli(t, bin, eng, "outbox"); strings.Contains(out, "nothing is listening") {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if !strings.Contains(out, "nothing is listening there") || strings.Contains(out, "calling aoi.") {
		t.Errorf("aoi outbox does not say in words why the question waits:\n%s", out)
	}
}
