package main

import (
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	// It names whose question went, and its start (sanitized, cut).
	if got := cli(t, bin, eng, "answer", a[:n+1], "tomorrow"); !strings.Contains(got, "answered "+a+", pm-tanaka's “"+out.Queries[0].Text+"”") {
		t.Errorf("aoi answer %s (names one):\n%s", a[:n+1], got)
	}
	if got := cli(t, bin, eng, "decline", b, "--reason", "not mine"); !strings.Contains(got, "declined "+b+", pm-tanaka's “"+out.Queries[1].Text+"”") {
		t.Errorf("aoi decline %s:\n%s", b, got)
	}
}

// TestInitAndServeOnAPortInUse: `aoi init --listen` on a port something
// already listens on warns (the README's walk-through ports may be an
// aoi the owner runs all day), and `aoi serve` there fails naming the
// config file that sets the address and the flag that takes another for
// one run, without first saying it serves.
func TestInitAndServeOnAPortInUse(t *testing.T) {
	bin := buildAOI(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	dir := shortDir(t)
	out := cli(t, bin, dir, "init", "--id", "eng-suzuki", "--listen", addr)
	if !strings.Contains(out, "warning: "+addr+" is in use now") || !strings.Contains(out, "`aoi init --force --listen HOST:PORT` picks another port") {
		t.Errorf("aoi init --listen %s (taken) does not warn:\n%s", addr, out)
	}
	free := shortDir(t)
	if out := cli(t, bin, free, "init", "--id", "pm-tanaka", "--listen", "127.0.0.1:0"); strings.Contains(out, "warning") {
		t.Errorf("aoi init on a free port warns:\n%s", out)
	}
	p := startServeProc(t, bin, dir)
	if !p.exited(20 * time.Second) {
		t.Fatalf("aoi serve on a taken port still runs:\n%s", p.out.String())
	}
	got := p.out.String()
	if !strings.Contains(got, "address already in use") || !strings.Contains(got, "in "+filepath.Join(dir, "config.json")+", or run `aoi serve --listen 127.0.0.1:PORT`") {
		t.Errorf("aoi serve on a taken port:\n%s", got)
	}
	if strings.Contains(got, "aoi serving for") {
		t.Errorf("aoi serve said it serves before failing to listen:\n%s", got)
	}
}

// TestInitIDWithCapitalsSaysTheLowerCaseOne: `aoi init --id Eng_Sato` is
// refused naming the id that would do, `--id eng_sato`; an id that is
// wrong for more than its capitals (田中) gets the rule alone.
func TestInitIDWithCapitalsSaysTheLowerCaseOne(t *testing.T) {
	bin := buildAOI(t)
	out := cliFails(t, bin, shortDir(t), 2, "init", "--id", "Eng_Sato", "--listen", "127.0.0.1:0")
	if !strings.Contains(out, `--id: "Eng_Sato" is not valid`) || !strings.Contains(out, "ids are lower-case: --id eng_sato") {
		t.Errorf("aoi init --id Eng_Sato:\n%s", out)
	}
	out = cliFails(t, bin, shortDir(t), 2, "init", "--id", "田中", "--listen", "127.0.0.1:0")
	if !strings.Contains(out, `--id: "田中" is not valid`) || strings.Contains(out, "ids are lower-case") {
		t.Errorf("aoi init --id 田中:\n%s", out)
	}
}
