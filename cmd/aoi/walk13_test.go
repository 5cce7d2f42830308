package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// storeNotes writes n notes from pm-tanaka into dir's database, as
// received messages, and returns their seqs in order.
func storeNotes(t *testing.T, dir string, n int) []int64 {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "aoi.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var seqs []int64
	err = db.Write(context.Background(), func(tx *store.Tx) error {
		for i := range n {
			seq, _, err := tx.InsertMessage(store.MessageRecord{MsgID: fmt.Sprintf("m-note-%d", i), From: "pm-tanaka", Event: "note", Type: "note",
				Data: json.RawMessage(`{"text":"note ` + string(rune('A'+i)) + `"}`)})
			if err != nil {
				return err
			}
			seqs = append(seqs, seq)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return seqs
}

// readFlags are the read marks of dir's messages in seq order, read from
// its database after the aoi that had it open has let go.
func readFlags(t *testing.T, dir string) []bool {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "aoi.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	msgs, err := db.Messages(context.Background(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	flags := make([]bool, len(msgs))
	for i, m := range msgs {
		flags[i] = m.Read
	}
	return flags
}

// TestInboxLimitLeavesEarlierMessagesUnread: `aoi inbox --limit 1`
// showed the newest message, said two earlier ones were not shown, and
// marked all three read, so the owner never saw the two (the thirteenth
// walk). It marks the one it showed alone, says how to see the others,
// and the running aoi's `aoi inbox --limit` does the same.
func TestInboxLimitLeavesEarlierMessagesUnread(t *testing.T) {
	bin := buildAOI(t)
	dir := shortDir(t)
	initAgent(t, bin, dir, "eng-suzuki")
	storeNotes(t, dir, 3)

	out := cli(t, bin, dir, "inbox", "--limit", "1")
	if !strings.Contains(out, "note C") || strings.Contains(out, "note B") {
		t.Fatalf("aoi inbox --limit 1 shows other than the newest note:\n%s", out)
	}
	if !strings.Contains(out, "2 earlier messages not shown (nor marked read): `aoi inbox --limit 3` shows them too") {
		t.Errorf("aoi inbox --limit 1 does not say how to see the 2 it left out:\n%s", out)
	}
	if got := readFlags(t, dir); len(got) != 3 || got[0] || got[1] || !got[2] {
		t.Errorf("read marks after aoi inbox --limit 1 (no aoi running) = %v, want [false false true]", got)
	}

	p := startServeProc(t, bin, dir)
	if st := p.waitServing(t, dir); st.UnreadMsgs != 2 {
		t.Errorf("aoi status counts %d unread, want the 2 not shown", st.UnreadMsgs)
	}
	out = cli(t, bin, dir, "inbox", "--limit", "2")
	if !strings.Contains(out, "note B") || !strings.Contains(out, "1 earlier message not shown (nor marked read): `aoi inbox --limit 3` shows it too") {
		t.Errorf("aoi inbox --limit 2 of the running aoi:\n%s", out)
	}
	if row := rowOf(cli(t, bin, dir, "status"), "unread messages"); !strings.HasSuffix(strings.TrimSpace(row), "1") {
		t.Errorf("aoi status after aoi inbox --limit 2: %q, want the 1 not shown unread", row)
	}
	out = cli(t, bin, dir, "inbox", "--limit", "3")
	if strings.Contains(out, "earlier") {
		t.Errorf("aoi inbox --limit 3 speaks of earlier messages with none left out:\n%s", out)
	}
	if row := rowOf(cli(t, bin, dir, "status"), "unread messages"); !strings.HasSuffix(strings.TrimSpace(row), "0") {
		t.Errorf("aoi status after aoi inbox showed all: %q, want 0 unread", row)
	}
}

// TestInboxAndMessagesNameATypedMessageByItsType: `aoi inbox` read "task
// assigned" where `aoi messages`, `aoi send` and the coding assistant say
// task_assign (the thirteenth walk). Both commands name a typed message
// by its type and a notification in words ("answer"), alike.
func TestInboxAndMessagesNameATypedMessageByItsType(t *testing.T) {
	msgs := []agent.Message{
		{Seq: 1, From: "pm-tanaka", Event: "task_assign", Type: "task_assign", TaskID: "T-1", Data: json.RawMessage(`{"description":"translate the login page"}`)},
		{Seq: 2, From: "qa-ito", Event: "review_request", Type: "review_request", TaskID: "T-2", Data: json.RawMessage(`{"description":"PR 42"}`)},
		{Seq: 3, From: "eng-sato", Event: "query.completed", Data: json.RawMessage(`{"summary":"Thursday"}`)},
	}
	var inbox, messages strings.Builder
	printInbox(&inbox, inboxOutput{Messages: msgs}, 0)
	printMessages(&messages, agent.InboxPage{Messages: msgs}, agent.InboxFilter{})
	for name, out := range map[string]string{"aoi inbox": inbox.String(), "aoi messages": messages.String()} {
		for from, kind := range map[string]string{"pm-tanaka": "task_assign", "qa-ito": "review_request", "eng-sato": "answer"} {
			if !strings.Contains(rowOf(out, from), " "+kind+" ") {
				t.Errorf("%s names %s's message other than %s:\n%s", name, from, kind, out)
			}
		}
		if strings.Contains(out, "task assigned") || strings.Contains(out, "review asked") {
			t.Errorf("%s names a typed message in other words than its type:\n%s", name, out)
		}
	}
}

// TestMessagesFromAnOlderAgentSaysItIgnoredAfter: `aoi messages --thread
// T --after m-…` asked of an aoi started before --after took a sent
// message's id listed the conversation from its start, as if it were the
// next page (the thirteenth walk). It now says the running aoi is older,
// what it ignored and to restart it, and shows no list: here against a
// control socket answering as that older aoi did.
func TestMessagesFromAnOlderAgentSaysItIgnoredAfter(t *testing.T) {
	bin := buildAOI(t)
	dir := shortDir(t)
	initAgent(t, bin, dir, "eng-suzuki")
	serveOlderInbox(t, dir)

	out := cliFails(t, bin, dir, 1, "messages", "--thread", "m-1", "--after", "m-2")
	for _, want := range []string{"the running aoi is older than this one and ignored", "--after m-2", "restart it"} {
		if !strings.Contains(out, want) {
			t.Errorf("aoi messages --after m-2 of an older aoi:\n%s\nwant %q", out, want)
		}
	}
	if strings.Contains(out, "old note") {
		t.Errorf("aoi messages shows the older aoi's page that ignored --after:\n%s", out)
	}
	// What it knew it applied: the received messages list as before.
	if out := cli(t, bin, dir, "messages"); !strings.Contains(out, "old note") {
		t.Errorf("aoi messages with no newer option, of an older aoi:\n%s", out)
	}
}

// serveOlderInbox answers ctl.inbox on dir's control socket as an aoi
// built before the filter's echo did: one received message, the page
// with no word of the options it did not read.
func serveOlderInbox(t *testing.T, dir string) {
	t.Helper()
	srv := rpc.NewServer(rpc.Options{Identify: rpc.UnixIdentify})
	srv.Handle(agent.CtlInbox, func(_ context.Context, call *rpc.Call) (any, error) {
		var known struct {
			ThreadID string `json:"thread_id"`
			Limit    int    `json:"limit"`
		}
		if err := call.Bind(&known); err != nil {
			return nil, err
		}
		return map[string]any{"messages": []any{map[string]any{"seq": 1, "from": "pm-tanaka", "event": "note", "type": "note",
			"data": map[string]any{"text": "old note"}}}, "last_id": 1, "more": false}, nil
	})
	ln, err := rpc.ListenUnix(agent.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ConnContext: rpc.UnixConnContext, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
}

// TestDailyCommandsOnAFreshDataDirSayWhatIsWrong: the thirteenth walk's
// round of aoi status, inbox and approvals on a fresh data dir.
// `aoi approvals --state bogus` said "no approvals" as if none waited
// (and the help left canceled out); `aoi inbox --watch --waiting` was
// cobra's "if any flags in the group [waiting watch] are set…" with exit
// 1; and with no aoi running, the advice to "run `aoi` for the
// interface" would start one on the default data dir, not this one.
func TestDailyCommandsOnAFreshDataDirSayWhatIsWrong(t *testing.T) {
	bin := buildAOI(t)
	dir := shortDir(t)
	initAgent(t, bin, dir, "eng-suzuki")

	out := cliFails(t, bin, dir, 2, "approvals", "--state", "bogus")
	if !strings.Contains(out, `--state "bogus" is not an approval's state; use one of pending, approved, rejected, expired, canceled`) {
		t.Errorf("aoi approvals --state bogus:\n%s", out)
	}
	if out := cliFails(t, bin, dir, 2, "approvals", "--limit", "0"); !strings.Contains(out, "--limit must be positive") {
		t.Errorf("aoi approvals --limit 0:\n%s", out)
	}
	if help := cli(t, bin, dir, "approvals", "--help"); !strings.Contains(help, "expired, canceled)") {
		t.Errorf("aoi approvals --help leaves a state out:\n%s", help)
	}
	out = cliFails(t, bin, dir, 2, "inbox", "--watch", "--waiting")
	if !strings.Contains(out, "--waiting lists the questions waiting now and --watch follows what arrives: give one of them") || strings.Contains(out, "flags in the group") {
		t.Errorf("aoi inbox --watch --waiting:\n%s", out)
	}
	out = cliFails(t, bin, dir, 1, "status")
	if !strings.Contains(out, "`aoi serve --data-dir "+dir+"`, or run `aoi --data-dir "+dir+"` for the interface") {
		t.Errorf("aoi status with no aoi running for a data dir given with --data-dir:\n%s", out)
	}
}

// TestAfterASentMessageWithUnreadSaysUnreadIsWhy: `aoi messages --thread
// T --unread --after m-…` said a sent message's m-… goes "only with
// --thread or --task", which was given; --unread is what leaves sent
// messages out, and the error now says so.
func TestAfterASentMessageWithUnreadSaysUnreadIsWhy(t *testing.T) {
	f := agent.InboxFilter{ThreadID: "m-1", Unread: true}
	err := parseAfter("m-2", &f)
	if err == nil || !strings.Contains(err.Error(), "--unread lists received messages alone") || strings.Contains(err.Error(), "only with --thread") {
		t.Errorf("parseAfter(m-2) with --thread and --unread: %v", err)
	}
	f = agent.InboxFilter{Unread: true}
	if err := parseAfter("m-2", &f); err == nil || !strings.Contains(err.Error(), "only with --thread or --task") {
		t.Errorf("parseAfter(m-2) with --unread and no conversation: %v", err)
	}
}
