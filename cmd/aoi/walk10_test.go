package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestReplyJoinsTheThreadItAnswers: `aoi send … --reply-to m-…` with no
// --thread joins the thread of the message it replies to, as the
// assistant's aoi_send_message with reply_to does, so the asker reads
// question and answer together (the tenth walk's reply started a thread
// of its own). A reply to an id this agent does not hold keeps starting
// its own thread.
func TestReplyJoinsTheThreadItAnswers(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	allowMessages(t, bin, eng, "pm-tanaka")
	allowMessages(t, bin, pm, "eng-suzuki")

	var q agent.SentMessage
	cliJSON(t, bin, pm, &q, "send", "eng-suzuki", "question", "which branch has the token fix?")
	if q.ThreadID == "" || q.ThreadID != q.ID {
		t.Fatalf("a question with no thread = %+v, want a thread of its own", q)
	}
	got := waitMessages(t, bin, eng, 1)[0]

	out := cli(t, bin, eng, "send", "pm-tanaka", "answer", "main has it", "--reply-to", got.MessageID)
	if !strings.Contains(out, "(thread "+q.ThreadID+", that of "+got.MessageID+" it replies to)") {
		t.Errorf("aoi send --reply-to without --thread printed\n%s\nwant it in the question's thread %s", out, q.ThreadID)
	}
	answer := waitMessages(t, bin, pm, 1)[0]
	if answer.ThreadID != q.ThreadID || answer.ReplyTo != q.ID {
		t.Errorf("the PM received %+v, want thread %s and reply_to %s", answer, q.ThreadID, q.ID)
	}
	if out := cli(t, bin, pm, "messages", "--thread", q.ThreadID); !strings.Contains(out, "main has it") {
		t.Errorf("aoi messages --thread %s does not list the answer:\n%s", q.ThreadID, out)
	}

	// The coding assistant replying through aoi mcp joins it too.
	var viaMCP agent.SentMessage
	text := mcpTool(t, bin, eng, "aoi_send_message", map[string]any{"to": "pm-tanaka", "type": "note",
		"reply_to": got.MessageID, "payload": map[string]any{"message": "and it is deployed"}})
	if err := json.Unmarshal([]byte(text), &viaMCP); err != nil || viaMCP.ThreadID != q.ThreadID {
		t.Errorf("aoi_send_message with reply_to = %s (%v), want thread %s", text, err, q.ThreadID)
	}

	// A reply to our own earlier message follows it too.
	var follow agent.SentMessage
	cliJSON(t, bin, eng, &follow, "send", "pm-tanaka", "note", "also on the release branch", "--reply-to", viaMCP.ID)
	if follow.ThreadID != q.ThreadID {
		t.Errorf("a reply to our own message %s went to thread %s, want %s", viaMCP.ID, follow.ThreadID, q.ThreadID)
	}

	// An id nothing here holds: a thread of its own, as before, and no error.
	var stray agent.SentMessage
	cliJSON(t, bin, eng, &stray, "send", "pm-tanaka", "note", "about that", "--reply-to", "m-0123456789abcdef")
	if stray.ThreadID != stray.ID {
		t.Errorf("a reply to an unknown message = %+v, want a thread of its own", stray)
	}
	// --thread given wins.
	var own agent.SentMessage
	cliJSON(t, bin, eng, &own, "send", "pm-tanaka", "note", "separately", "--reply-to", got.MessageID, "--thread", "th-side")
	if own.ThreadID != "th-side" {
		t.Errorf("--thread th-side with --reply-to went to thread %s", own.ThreadID)
	}
}

// TestStatusPointsAtOutboxForRefusals: `aoi status` sends the reader of a
// refused message to `aoi outbox`, which shows the peer's reason (it said
// "aoi.log says why", where a person finds JSON lines).
func TestStatusPointsAtOutboxForRefusals(t *testing.T) {
	bin := buildAOI(t)
	_, pm, _ := pinnedPair(t, bin)
	cliFails(t, bin, pm, exitFailure, "send", "eng-suzuki", "note", "standup moved to 10:30")
	status := cli(t, bin, pm, "status")
	for _, label := range []string{"refused by peers:", "not yet delivered:"} {
		row := rowOf(status, label)
		if !strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(row, label)), "1 ") || !strings.Contains(row, "`aoi outbox`") || strings.Contains(row, "aoi.log") {
			t.Errorf("aoi status row %q; want 1 and `aoi outbox` named", row)
		}
	}
	if out := cli(t, bin, pm, "outbox"); !strings.Contains(out, "no write access") {
		t.Errorf("aoi outbox does not show the refusal's reason the status points at:\n%s", out)
	}
}

// TestQuerySaysOnceTheAnswerComes: `aoi query` that the peer's owner will
// answer prints our line, then the peer's labelled as the peer's, and
// promises the answer once (the tenth walk read "the answer will arrive in
// your inbox" over the peer's "the answer will reach your agent").
func TestQuerySaysOnceTheAnswerComes(t *testing.T) {
	bin := buildAOI(t)
	_, pm, _ := pinnedPair(t, bin)
	out := cli(t, bin, pm, "query", "eng-suzuki", "is the release branch green?")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("aoi query printed %d lines; want ours and the peer's:\n%s", len(lines), out)
	}
	if !strings.HasPrefix(lines[0], "query ask-") || !strings.Contains(lines[0], "sent to eng-suzuki") || !strings.Contains(lines[0], "`aoi inbox`") {
		t.Errorf("our line reads %q; want the query id, the peer and `aoi inbox`", lines[0])
	}
	if !strings.HasPrefix(lines[1], "eng-suzuki says: ") {
		t.Errorf("the peer's line reads %q; want it labelled as eng-suzuki's", lines[1])
	}
	for _, promise := range []string{"will arrive", "will reach"} {
		if strings.Contains(lines[0], promise) {
			t.Errorf("our line promises the answer (%q) above the peer's promise:\n%s", promise, out)
		}
	}
	if n := strings.Count(out, "answer will"); n != 1 {
		t.Errorf("the output says the answer will come %d times; want once:\n%s", n, out)
	}

	// --wait that runs out says so, pointing at the inbox without a
	// second promise.
	out = cliFails(t, bin, pm, exitFailure, "query", "eng-suzuki", "any blockers on auth?", "--wait", "1s")
	if !strings.Contains(out, "within 1s; look in `aoi inbox` later") {
		t.Errorf("aoi query --wait that ran out:\n%s", out)
	}
	if n := strings.Count(out, "will arrive") + strings.Count(out, "will reach"); n != 1 {
		t.Errorf("aoi query --wait that ran out promises the answer %d times; want once (the peer's):\n%s", n, out)
	}
}

// TestConfigValidateNamesTheWholePath: `aoi config validate` names the
// file it read in every error, as it does on success, with the line and
// column of the offending field (the tenth walk read "config.json: /acl/…"
// while the success line named the whole path).
func TestConfigValidateNamesTheWholePath(t *testing.T) {
	bin := buildAOI(t)
	dir := shortDir(t)
	path := filepath.Join(dir, "team.json")
	writeFile(t, path, `{
  "agent": {"id": "eng-a", "role": "engineer"},
  "acl": {"default_permission": "none", "rules": [
    {"id": "pm-read", "agent_role": "pm", "scope_type": "repository",
     "scope_pattern": "*", "permission": "reed"}
  ]}
}
`)
	out := cliFails(t, bin, dir, exitFailure, "config", "validate", path)
	if !strings.Contains(out, "1 problem; aoi will not start with this file until it is fixed") {
		t.Errorf("aoi config validate does not count the problem in words:\n%s", out)
	}
	row := rowOf(out, "/acl/rules/0/permission")
	if !strings.HasPrefix(row, path+":5:28: /acl/rules/0/permission: ") {
		t.Errorf("the error reads %q; want it to start with %s:5:28: and the field", row, path)
	}
	writeFile(t, path, `{"agent": {"id": "eng-a", "role": "engineer"}}`)
	if out := cli(t, bin, dir, "config", "validate", path); !strings.HasPrefix(out, path+": valid") {
		t.Errorf("a valid file: %q", out)
	}
}
