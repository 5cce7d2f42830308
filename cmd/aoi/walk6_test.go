package main

import (
	"strings"
	"testing"
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
