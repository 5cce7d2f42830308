package main

import (
	"encoding/json"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestInitWithAnyPortSaysWhereThePortIsRead: `aoi init --listen
// 127.0.0.1:0` printed a trust command with `--endpoint 127.0.0.1:0`,
// an endpoint no peer can call (the twelfth walk). It now says that the
// port is chosen at start, where to read it, and how to fix one; and
// `aoi status` of the running agent shows the port it took.
func TestInitWithAnyPortSaysWhereThePortIsRead(t *testing.T) {
	bin := buildAOI(t)
	dir := shortDir(t)
	out, err := exec.Command(bin, "init", "--id", "eng-suzuki", "--listen", "127.0.0.1:0", "--data-dir", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("aoi init: %v\n%s", err, out)
	}
	id := cli(t, bin, dir, "id")
	for name, got := range map[string]string{"aoi init": string(out), "aoi id": id} {
		if strings.Contains(got, "--endpoint 127.0.0.1:0") {
			t.Errorf("%s prints an endpoint with port 0:\n%s", name, got)
		}
		for _, want := range []string{"chosen when aoi starts", "`aoi status` shows it", "--endpoint 127.0.0.1:PORT", "aoi init --force --listen 127.0.0.1:8444"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, got)
			}
		}
	}

	startServeProc(t, bin, dir).waitServing(t, dir)
	listening := rowOf(cli(t, bin, dir, "status"), "listening")
	fields := strings.Fields(listening)
	if len(fields) < 2 {
		t.Fatalf("aoi status has no listening line: %q", listening)
	}
	addr := fields[len(fields)-1]
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "0" {
		t.Errorf("aoi status says %q; want the port aoi took, not 0", listening)
	}
	// While aoi runs, aoi id prints the trust command with that port.
	id = cli(t, bin, dir, "id")
	if !strings.Contains(id, "--endpoint "+addr+" ") || !strings.Contains(id, "takes another when it restarts") {
		t.Errorf("aoi id of the running agent (listening on %s):\n%s\nwant its trust command with that endpoint, saying the port changes on restart", addr, id)
	}
}

// TestInboxAndMessagesNameAMessageByOneID: `aoi inbox` headed the
// number of a message SEQ where `aoi messages` headed it ID, and
// --reply-to's help had to explain both (the twelfth walk). Both say ID
// now, the same number, and the number read from `aoi inbox` is what
// --reply-to takes.
func TestInboxAndMessagesNameAMessageByOneID(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	allowMessages(t, bin, eng, "pm-tanaka")

	var q agent.SentMessage
	cliJSON(t, bin, pm, &q, "send", "eng-suzuki", "question", "is the login page translated?")
	got := waitMessages(t, bin, eng, 1)[0]
	id := strconv.FormatInt(got.Seq, 10)

	inbox := cli(t, bin, eng, "inbox")
	if strings.Contains(inbox, "SEQ") || !strings.Contains(rowOf(inbox, "KIND"), "ID ") {
		t.Errorf("aoi inbox heads its messages' numbers other than ID:\n%s", inbox)
	}
	for name, out := range map[string]string{"aoi inbox": inbox, "aoi messages": cli(t, bin, eng, "messages")} {
		if row := rowOf(out, "login page"); !strings.HasPrefix(row, id+" ") {
			t.Errorf("%s row %q, want it to start with the message's ID %s", name, row, id)
		}
	}
	if help := cli(t, bin, eng, "send", "--help"); strings.Contains(help, "SEQ") || !strings.Contains(help, "its ID (as aoi messages and aoi inbox list it)") {
		t.Errorf("aoi send --help on --reply-to:\n%s", help)
	}
	out := cli(t, bin, eng, "send", "pm-tanaka", "answer", "yes, since Monday", "--reply-to", id)
	if !strings.Contains(out, "delivered") || !strings.Contains(out, "thread "+q.ThreadID) {
		t.Errorf("a reply by the ID aoi inbox shows:\n%s\nwant it delivered in thread %s", out, q.ThreadID)
	}
}

// TestProgressOnATaskJoinsItsThread: `aoi send - progress TEXT --task T`
// with no --reply-to started a thread of its own, so the assigner's
// `aoi messages --thread` of the task_assign missed the progress (the
// twelfth walk). It joins the thread already open about the task with
// that peer, says so, and the conversation reads whole on both sides; a
// task with no message yet still starts its own.
func TestProgressOnATaskJoinsItsThread(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	allowMessages(t, bin, eng, "pm-tanaka")

	var assign agent.SentMessage
	cliJSON(t, bin, pm, &assign, "send", "eng-suzuki", "task_assign", "translate the login page", "--task", "L10N-1")
	waitMessages(t, bin, eng, 1)

	out := cli(t, bin, eng, "send", "-", "progress", "half of it is done", "--task", "L10N-1")
	if !strings.Contains(out, "thread "+assign.ThreadID+", the one about task L10N-1 with pm-tanaka") || !strings.Contains(out, "delivered") {
		t.Errorf("progress on L10N-1 without --reply-to:\n%s\nwant it delivered in the task's thread %s, saying so", out, assign.ThreadID)
	}
	got := waitMessages(t, bin, pm, 1)[0]
	if got.ThreadID != assign.ThreadID {
		t.Errorf("pm-tanaka received the progress in thread %q, want the task_assign's %q", got.ThreadID, assign.ThreadID)
	}
	conv := cli(t, bin, pm, "messages", "--thread", assign.ThreadID)
	if a, p := strings.Index(conv, "translate the login page"), strings.Index(conv, "half of it is done"); a < 0 || p < a {
		t.Errorf("aoi messages --thread of the task_assign:\n%s\nwant the assignment, then the progress", conv)
	}

	// A reply to a message about the task is about the task too, as the
	// interface's :reply has it: `aoi messages --task` lists it.
	cli(t, bin, eng, "send", "-", "question", "which locales?", "--task", "L10N-1")
	question := waitMessages(t, bin, pm, 2)[1]
	out = cli(t, bin, pm, "send", "eng-suzuki", "answer", "ja and fr", "--reply-to", strconv.FormatInt(question.Seq, 10))
	if !strings.Contains(out, "task L10N-1") {
		t.Errorf("an answer to a question about L10N-1, by --reply-to alone:\n%s\nwant it about the task", out)
	}
	if conv := cli(t, bin, pm, "messages", "--task", "L10N-1"); !strings.Contains(conv, "ja and fr") {
		t.Errorf("aoi messages --task L10N-1 leaves out the answer sent with --reply-to:\n%s", conv)
	}

	// A task nothing was said about yet starts a thread of its own.
	var first agent.SentMessage
	cliJSON(t, bin, pm, &first, "send", "eng-suzuki", "task_assign", "fix the date format", "--task", "L10N-2")
	if first.ThreadID != first.ID {
		t.Errorf("the first message about L10N-2 is in thread %q, want its own (%s)", first.ThreadID, first.ID)
	}
}

// TestMessagesLimitCountsTheWholeConversation: `aoi messages --thread X
// --limit N` counted only the received messages, so a page showed more
// rows than asked for, and its "more waiting" line could skip or repeat
// the sent ones (the twelfth walk). Each page now shows at most N rows,
// sent ones included, and following its "more waiting" line, which names
// the last row by the ID it shows (a sent message's m-…), lists every
// message once, in the order it was said.
func TestMessagesLimitCountsTheWholeConversation(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	allowMessages(t, bin, eng, "pm-tanaka")

	var q agent.SentMessage
	cliJSON(t, bin, pm, &q, "send", "eng-suzuki", "question", "said-1 which branch has the fix?")
	asked := waitMessages(t, bin, eng, 1)[0]
	cli(t, bin, eng, "send", "pm-tanaka", "answer", "said-2 main", "--reply-to", asked.MessageID)
	waitMessages(t, bin, pm, 1)
	cli(t, bin, pm, "send", "eng-suzuki", "note", "said-3 thanks", "--thread", q.ThreadID)
	cli(t, bin, pm, "send", "eng-suzuki", "note", "said-4 merging today", "--thread", q.ThreadID)
	cli(t, bin, eng, "send", "pm-tanaka", "note", "said-5 ok", "--thread", q.ThreadID)
	waitMessages(t, bin, pm, 2)

	args := []string{"messages", "--thread", q.ThreadID, "--limit", "2"}
	var said []string
	for page := 0; args != nil; page++ {
		if page > 5 {
			t.Fatalf("following the more waiting lines did not end after 5 pages: %q", said)
		}
		out := cli(t, bin, pm, args...)
		rows := 0
		for _, line := range strings.Split(out, "\n") {
			if i := strings.Index(line, "said-"); i >= 0 {
				said = append(said, line[i:i+len("said-1")])
				rows++
			}
		}
		if rows == 0 || rows > 2 {
			t.Errorf("aoi %s shows %d messages, want 1 or 2:\n%s", strings.Join(args, " "), rows, out)
		}
		args = nil
		if more := rowOf(out, "more waiting: aoi "); more != "" {
			args = strings.Fields(strings.TrimPrefix(more, "more waiting: aoi "))
			if page == 1 && !strings.HasSuffix(more, " --after "+lastSentID(t, bin, pm, q.ThreadID, "said-4")) {
				t.Errorf("the second page ends with a message you sent; its more waiting line %q does not name it by its m-… ID", more)
			}
		}
	}
	if want := []string{"said-1", "said-2", "said-3", "said-4", "said-5"}; strings.Join(said, " ") != strings.Join(want, " ") {
		t.Errorf("the thread a page of 2 at a time = %q, want %q", said, want)
	}
	if out := cliFails(t, bin, pm, 2, "messages", "--after", "m-abc"); !strings.Contains(out, "--thread or --task") {
		t.Errorf("aoi messages --after m-abc with no conversation:\n%s\nwant a usage error saying it needs --thread or --task", out)
	}
}

// lastSentID is the message id of the message this agent sent in thread
// whose text contains marker.
func lastSentID(t *testing.T, bin, dir, thread, marker string) string {
	t.Helper()
	var page agent.InboxPage
	cliJSON(t, bin, dir, &page, "messages", "--thread", thread)
	for _, m := range page.Messages {
		if m.Sent && strings.Contains(string(m.Data), marker) {
			return m.MessageID
		}
	}
	t.Fatalf("no sent message with %q in thread %s: %+v", marker, thread, page.Messages)
	return ""
}

// TestApprovalsListNamesUnconfinedRequests: `aoi approvals` names the
// pending requests whose task type runs without Landlock, as the
// interface marks them, and no other.
func TestApprovalsListNamesUnconfinedRequests(t *testing.T) {
	var out strings.Builder
	printApprovals(&out, []agent.Approval{
		{ID: "a-1", Requester: "pm-tanaka", TaskType: "gen_docs", State: "pending", Plan: &agent.TaskPlan{Unconfined: true}},
		{ID: "a-2", Requester: "pm-tanaka", TaskType: "run_tests", State: "pending", Plan: &agent.TaskPlan{}},
		{ID: "a-3", Requester: "pm-tanaka", TaskType: "gen_docs", State: "approved"},
	})
	line := rowOf(out.String(), "UNCONFINED")
	if !strings.Contains(line, "a-1") || strings.Contains(line, "a-2") || strings.Contains(line, "a-3") {
		t.Errorf("aoi approvals names %q as unconfined, want a-1 alone:\n%s", line, out.String())
	}
}

// TestInboxSaysHowManyEarlierMessagesItLeftOut: `aoi inbox --limit 1`
// showed the newest message and no sign of the others; it now says how
// many earlier ones it left out and where they are listed.
func TestInboxSaysHowManyEarlierMessagesItLeftOut(t *testing.T) {
	var b strings.Builder
	printInbox(&b, inboxOutput{Messages: []agent.Message{{Seq: 3, From: "pm-tanaka", Event: "note", Type: "note"}}}, 2)
	if !strings.Contains(b.String(), "2 earlier messages not shown (nor marked read): `aoi inbox --limit 3` shows them too (`aoi messages` lists them all") {
		t.Errorf("aoi inbox with 2 messages left out:\n%s", b.String())
	}
	b.Reset()
	printInbox(&b, inboxOutput{Messages: []agent.Message{{Seq: 1, From: "pm-tanaka", Event: "note", Type: "note"}}}, 0)
	if strings.Contains(b.String(), "earlier") {
		t.Errorf("aoi inbox with nothing left out speaks of earlier messages:\n%s", b.String())
	}
}

// TestStatusNamesPeersYourACLRefuses: a trusted colleague's message that
// the receiver's ACL refused was told only in the interface; `aoi status`
// said nothing and `aoi inbox` "no messages" (the twelfth walk). The
// status now names the sender and the fix, until a newer message of
// theirs gets in.
func TestStatusNamesPeersYourACLRefuses(t *testing.T) {
	bin := buildAOI(t)
	eng, pm, _ := pinnedPair(t, bin)
	if row := rowOf(cli(t, bin, eng, "status"), "refused by you"); row != "" {
		t.Fatalf("aoi status before any message: %q", row)
	}
	// A refused message exits 1 (it is queued, not on its way).
	out, _ := exec.Command(bin, "--data-dir", pm, "--json", "send", "eng-suzuki", "task_assign", "translate the login page", "--task", "L10N-1").Output()
	var sent agent.SentMessage
	if err := json.Unmarshal(out, &sent); err != nil || !sent.Refused {
		t.Fatalf("the message to an agent with no messages rule = %s (%v), want it refused", out, err)
	}
	row := rowOf(cli(t, bin, eng, "status"), "refused by you")
	if !strings.Contains(row, "messages from pm-tanaka") || !strings.Contains(row, "aoi reload") {
		t.Errorf("aoi status of the refusing agent: %q, want pm-tanaka named with the fix", row)
	}
	allowMessages(t, bin, eng, "pm-tanaka")
	cli(t, bin, pm, "outbox", "retry", sent.ID)
	waitMessages(t, bin, eng, 1)
	if row := rowOf(cli(t, bin, eng, "status"), "refused by you"); row != "" {
		t.Errorf("aoi status once pm-tanaka's message got in still says %q", row)
	}
}
