package main

import (
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestOutboxRetrySendsOneNow: a message eng-suzuki refused waits ten
// minutes for its next try; once eng-suzuki's owner allows messages,
// `aoi outbox retry ID` delivers it at once (the seventh walk had no way
// to, short of waiting). While it is still refused, the retry says why
// and exits 1; an id nothing waits under is named in the error.
func TestOutboxRetrySendsOneNow(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	cliFails(t, bin, pm, 1, "send", "eng-suzuki", "note", "the release moved to Friday")
	var waiting []agent.OutboxEntry
	cliJSON(t, bin, pm, &waiting, "outbox")
	if len(waiting) != 1 {
		t.Fatalf("aoi outbox = %+v; want the refused message", waiting)
	}
	id := waiting[0].ID

	out := cliFails(t, bin, pm, 1, "outbox", "retry", id)
	if !strings.Contains(out, "the message "+id+" to eng-suzuki still waits: agent pm-tanaka has no write access") ||
		!strings.Contains(out, "next try") {
		t.Errorf("a retry the peer still refuses:\n%s", out)
	}

	allowMessages(t, bin, eng, "pm-tanaka")
	if out := cli(t, bin, pm, "outbox", "retry", id); !strings.Contains(out, "delivered the message "+id+" to eng-suzuki") {
		t.Errorf("aoi outbox retry once allowed printed %q", out)
	}
	if msgs := waitMessages(t, bin, eng, 1); !strings.Contains(string(msgs[0].Data), "the release moved to Friday") {
		t.Errorf("eng-suzuki received %+v", msgs)
	}
	if out := cli(t, bin, pm, "outbox"); !strings.Contains(out, "nothing waits to be delivered") {
		t.Errorf("aoi outbox after the retry:\n%s", out)
	}

	out = cliFails(t, bin, pm, 1, "outbox", "retry", id)
	if !strings.Contains(out, `nothing waits to be sent under "`+id+`"`) {
		t.Errorf("retrying what was delivered:\n%s", out)
	}
}
