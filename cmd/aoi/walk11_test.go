package main

import (
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestThreadShowsTheWholeConversation: `aoi messages --thread` lists what
// this agent sent in the thread as well as what it received, in the order
// it was said, each row saying which (the tenth walk's PM saw the answers
// to questions it could not see).
func TestThreadShowsTheWholeConversation(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	allowMessages(t, bin, eng, "pm-tanaka")
	allowMessages(t, bin, pm, "eng-suzuki")

	var q agent.SentMessage
	cliJSON(t, bin, pm, &q, "send", "eng-suzuki", "question", "which branch has the token fix?")
	got := waitMessages(t, bin, eng, 1)[0]
	cli(t, bin, eng, "send", "pm-tanaka", "answer", "main has it", "--reply-to", got.MessageID)
	answer := waitMessages(t, bin, pm, 1)[0]
	cli(t, bin, pm, "send", "eng-suzuki", "note", "thanks, merging today", "--reply-to", answer.MessageID)
	cli(t, bin, pm, "send", "eng-suzuki", "note", "unrelated: standup at 10")

	out := cli(t, bin, pm, "messages", "--thread", q.ThreadID)
	lines := []string{
		rowOf(out, q.ID),
		rowOf(out, "from eng-suzuki"),
		rowOf(out, "thanks, merging today"),
	}
	for i, want := range []string{"sent to eng-suzuki", "main has it", "sent to eng-suzuki"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("row %d of aoi messages --thread = %q, want %q in it:\n%s", i, lines[i], want, out)
		}
	}
	if a, b, c := strings.Index(out, lines[0]), strings.Index(out, lines[1]), strings.Index(out, lines[2]); !(a < b && b < c) {
		t.Errorf("aoi messages --thread is not in the order it was said (question, answer, thanks):\n%s", out)
	}
	if strings.Contains(out, "standup") {
		t.Errorf("aoi messages --thread lists a message of another thread:\n%s", out)
	}

	var page agent.InboxPage
	cliJSON(t, bin, pm, &page, "messages", "--thread", q.ThreadID)
	var sides []bool
	for _, m := range page.Messages {
		sides = append(sides, m.Sent)
	}
	if len(sides) != 3 || !sides[0] || sides[1] || !sides[2] || page.Messages[0].Delivery != "delivered" || page.Messages[0].To != "eng-suzuki" {
		t.Errorf("aoi --json messages --thread = %+v; want sent, received, sent, the first delivered to eng-suzuki", page.Messages)
	}
	// Without --thread, the inbox stays what was received.
	if out := cli(t, bin, pm, "messages"); strings.Contains(out, "which branch") {
		t.Errorf("aoi messages lists a sent message:\n%s", out)
	}
}
