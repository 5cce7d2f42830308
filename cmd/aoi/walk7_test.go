package main

import (
	"strings"
	"testing"
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
