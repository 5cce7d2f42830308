package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestStatusCountsEveryAskWaiting: with more questions waiting for their
// answers than `aoi status` lists (the newest 20), it says how many more
// wait, and --json counts them all; the fifth walk's PM asked 31 and read
// 20 lines, the interface saying "waiting for 20 answers".
func TestStatusCountsEveryAskWaiting(t *testing.T) {
	bin := buildAOI(t)
	_, pm, _ := pinnedPair(t, bin)
	const asked = 22
	for i := 1; i <= asked; i++ {
		cli(t, bin, pm, "query", "eng-suzuki", "--async", fmt.Sprintf("status of item %d?", i))
	}
	out := cli(t, bin, pm, "status")
	if n := strings.Count(out, "waiting for:       eng-suzuki"); n != 20 {
		t.Errorf("aoi status lists %d asks, want the newest 20:\n%s", n, out)
	}
	if !strings.Contains(out, "waiting for:       2 older, not listed (22 in all)") {
		t.Errorf("aoi status does not say that 2 more wait:\n%s", out)
	}
	var st struct {
		Total int `json:"waiting_total"`
	}
	cliJSON(t, bin, pm, &st, "status")
	if st.Total != asked {
		t.Errorf("aoi status --json: waiting_total = %d, want %d", st.Total, asked)
	}
}
