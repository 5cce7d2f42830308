package main

import (
	"path/filepath"
	"strconv"
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
	// A page of a filtered list points at the next page of the same
	// filter, not at every message after it.
	waitMessages(t, bin, eng, 3)
	out = cli(t, bin, eng, "messages", "--type", "note", "--limit", "1")
	next := strings.TrimPrefix(rowOf(out, "more waiting: "), "more waiting: aoi ")
	if !strings.HasPrefix(next, "messages --type note --limit 1 --after ") {
		t.Fatalf("aoi messages --type note --limit 1 points at %q for more:\n%s", next, out)
	}
	if out := cli(t, bin, eng, strings.Fields(next)...); !strings.Contains(out, "standup") || strings.Contains(out, "which branch") {
		t.Errorf("aoi %s, the next page it pointed at:\n%s\nwant the second note alone", next, out)
	}

	// aoi inbox says what a typed reply answers, as it does for an
	// answer to a question asked with aoi query.
	if row := rowOf(cli(t, bin, pm, "inbox"), "main has it"); !strings.Contains(row, "“which branch") {
		t.Errorf("aoi inbox row of the answer = %q, want the question it replies to in ABOUT", row)
	}
}

// TestReplyToOwnMessagePassesTheACL: a colleague's reply to a message you
// sent them (or one in its thread) reaches your assistant although no
// `messages` rule lets them write to you: you started that conversation.
// The colleague names the message by the ID `aoi messages` shows. Progress
// on a task you assigned them gets through the same way.
// A message that answers nothing of yours is still refused, and so is a
// reply when a rule of yours refuses that colleague.
func TestReplyToOwnMessagePassesTheACL(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	allowMessages(t, bin, eng, "pm-tanaka") // pm-tanaka has no rule for eng-suzuki

	var q agent.SentMessage
	cliJSON(t, bin, pm, &q, "send", "eng-suzuki", "question", "can you review PR 12?")
	got := waitMessages(t, bin, eng, 1)[0]

	// The engineer replies by the ID `aoi messages` shows.
	if row := rowOf(cli(t, bin, eng, "messages"), "can you review"); !strings.HasPrefix(row, strconv.FormatInt(got.Seq, 10)+" ") {
		t.Fatalf("aoi messages row %q, want it to start with ID %d", row, got.Seq)
	}
	out := cli(t, bin, eng, "send", "pm-tanaka", "answer", "yes, after lunch", "--reply-to", strconv.FormatInt(got.Seq, 10))
	if !strings.Contains(out, "delivered") || !strings.Contains(out, "that of "+got.MessageID+" it replies to") {
		t.Errorf("a reply to pm-tanaka's own question, by its ID in aoi messages:\n%s\nwant it delivered, in reply to %s", out, got.MessageID)
	}
	if out := cliFails(t, bin, eng, exitFailure, "send", "pm-tanaka", "answer", "yes", "--reply-to", "99"); !strings.Contains(out, "no received message 99") {
		t.Errorf("aoi send --reply-to 99 with no message 99:\n%s\nwant it named", out)
	}
	cli(t, bin, eng, "send", "pm-tanaka", "note", "done, two comments", "--thread", q.ThreadID)
	if msgs := waitMessages(t, bin, pm, 2); msgs[0].ThreadID != q.ThreadID || msgs[1].ThreadID != q.ThreadID {
		t.Errorf("pm-tanaka received %+v, want both in thread %s", msgs, q.ThreadID)
	}

	// Progress on a task pm-tanaka assigned gets through as well.
	cli(t, bin, pm, "send", "eng-suzuki", "task_assign", "translate the login page", "--task", "L10N-1")
	if out := cli(t, bin, eng, "send", "-", "progress", "half of it is done", "--task", "L10N-1"); !strings.Contains(out, "delivered") {
		t.Errorf("progress on the task pm-tanaka assigned:\n%s\nwant it delivered", out)
	}
	// aoi messages --task is the task's conversation, both ways.
	out = cli(t, bin, pm, "messages", "--task", "L10N-1")
	assign, progress := strings.Index(out, "sent to eng-suzuki"), strings.Index(out, "from eng-suzuki")
	if assign < 0 || progress < assign || !strings.Contains(out, "translate the login page") {
		t.Errorf("aoi messages --task L10N-1 on pm-tanaka's side:\n%s\nwant the task_assign sent, then the progress received", out)
	}

	// pm-tanaka's audit log says what let them in.
	if out := cli(t, bin, pm, "--json", "audit", "--method", "aoi.message"); strings.Count(out, `"allowed_as": "reply"`) != 3 {
		t.Errorf("pm-tanaka's audit rows of the two replies do not say they were let in as replies:\n%s", out)
	}

	out = cliFails(t, bin, eng, exitFailure, "send", "pm-tanaka", "note", "unrelated: can I take Friday off?")
	if !strings.Contains(out, "refused") {
		t.Errorf("a message that answers nothing pm-tanaka sent:\n%s\nwant it refused", out)
	}

	denyMessages(t, bin, pm, "eng-suzuki")
	out = cliFails(t, bin, eng, exitFailure, "send", "pm-tanaka", "note", "one more thing", "--reply-to", got.MessageID)
	if !strings.Contains(out, "refused") {
		t.Errorf("a reply while a rule of pm-tanaka's refuses eng-suzuki:\n%s\nwant it refused", out)
	}
}

// denyMessages gives dir's agent a rule refusing peer's messages.
func denyMessages(t *testing.T, bin, dir, peer string) {
	t.Helper()
	path := filepath.Join(dir, "config.json")
	cfg := readFile(t, path)
	rule := `"rules": [
      {"id": "no-msgs-` + peer + `", "agent_id": "` + peer + `", "scope_type": "messages", "scope_pattern": "*", "permission": "none"},`
	writeFile(t, path, strings.Replace(cfg, `"rules": [`, rule, 1))
	if out := cli(t, bin, dir, "reload"); !strings.Contains(out, "(+no-msgs-"+peer+")") {
		t.Fatalf("aoi reload: %s", out)
	}
}
