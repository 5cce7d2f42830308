package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
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

// TestAnswerWithTheStartOfSeveralIDsSaysSo: `aoi answer`, `aoi decline`
// and `aoi release` given the start that several questions' ids share say
// so and send nothing; the core answered "no query", though 34 questions
// had that start in the fifth walk. A start that names one still answers.
func TestAnswerWithTheStartOfSeveralIDsSaysSo(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	cli(t, bin, pm, "query", "eng-suzuki", "first question about the deploy?")
	cli(t, bin, pm, "query", "eng-suzuki", "second question about the release?")
	var out struct {
		Queries []agent.Query `json:"queries"`
	}
	cliJSON(t, bin, eng, &out, "inbox", "--waiting")
	if len(out.Queries) != 2 {
		t.Fatalf("waiting = %+v; want both questions", out.Queries)
	}
	a, b := out.Queries[0].ID, out.Queries[1].ID
	n := 0
	for n < len(a) && a[n] == b[n] {
		n++
	}
	shared := a[:n]
	for _, args := range [][]string{{"answer", shared, "tomorrow"}, {"decline", shared, "--reason", "not mine"}, {"release", shared}} {
		got := cliFails(t, bin, eng, 1, args...)
		if !strings.Contains(got, shared+" starts the ids of 2 questions: give more of it") {
			t.Errorf("aoi %v:\n%s", args, got)
		}
	}
	cliJSON(t, bin, eng, &out, "inbox", "--waiting")
	if len(out.Queries) != 2 {
		t.Fatalf("after the refused lines, waiting = %+v; want both still", out.Queries)
	}
	if got := cli(t, bin, eng, "answer", a[:n+1], "tomorrow"); !strings.Contains(got, "answered "+a) {
		t.Errorf("aoi answer %s (names one):\n%s", a[:n+1], got)
	}
}
