package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
)

// TestMessageNeedsGrantAndIsRedacted: without a messages rule the receiver
// refuses aoi.message (audited) and the sender's outbox keeps it; once the
// owner grants messaging and reloads, it arrives once, with the secret in
// its payload redacted.
func TestMessageNeedsGrantAndIsRedacted(t *testing.T) {
	t.Parallel()
	alice := newTestAgent(t, "alice", "lead", nil)
	bob := newTestAgent(t, "bob", "engineer", func(c *config.Config) { c.ACL = config.ACL{DefaultPermission: "none"} })
	pair(alice, bob)
	ctx := context.Background()
	evCtx, stop := context.WithCancel(ctx)
	defer stop()
	events, err := alice.Events(evCtx, agent.EventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	token := "ghp_" + "9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S"
	sent, err := alice.SendMessage(ctx, agent.SendMessageRequest{To: "bob", Type: "task_assign", TaskID: "T-9",
		Payload: json.RawMessage(`{"description":"rotate ` + token + `"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !sent.Queued || !sent.Refused || sent.TaskState != agent.CoordAssigned {
		t.Fatalf("sent = %+v, want it queued (refused) and the task assigned on alice's side", sent)
	}
	// bob is online and said no: the sender hears that, and why, not "offline".
	if !strings.Contains(sent.Note, "bob refused the message: ") || !strings.Contains(sent.Note, "messages") ||
		strings.Contains(sent.Note, "offline") || strings.Contains(sent.Note, "trusts you") {
		t.Errorf("note = %q; want it to say bob refused it and what would let it through", sent.Note)
	}
	rows, err := bob.Audit(ctx, agent.AuditFilter{Method: "aoi.message"})
	if err != nil || len(rows) == 0 || rows[0].Result != "PERMISSION_DENIED" {
		t.Fatalf("bob's audit = %+v (%v), want the refused aoi.message", rows, err)
	}
	// The queued message keeps being refused: alice's owner is told once,
	// in words (not only in aoi.log), and `aoi status` counts it.
	told := ""
	deadline := time.After(10 * time.Second)
	for told == "" {
		select {
		case ev := <-events:
			if ev.Kind == agent.EventAttention && ev.Agent == "bob" {
				told = ev.Summary
			}
		case <-deadline:
			t.Fatal("alice's owner was not told that bob refuses the queued message")
		}
	}
	if !strings.Contains(told, "bob refused the message you sent") || !strings.Contains(told, "messages") {
		t.Errorf("the owner was told %q", told)
	}
	eventually(t, 10*time.Second, "aoi status counts the refused message", func() bool {
		st, err := alice.Status(ctx)
		return err == nil && st.OutboxRefused == 1
	})

	cfg, err := config.Load(bob.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ACL.Rules = append(cfg.ACL.Rules, config.Rule{ID: "alice-msg", AgentID: "alice", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "write"})
	if err := config.Write(bob.ConfigPath, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	var page agent.InboxPage
	eventually(t, 10*time.Second, "the queued message reaches bob", func() bool {
		page, err = bob.Inbox(ctx, agent.InboxFilter{TaskID: "T-9"})
		return err == nil && len(page.Messages) == 1
	})
	m := page.Messages[0]
	if m.From != "alice" || m.Type != "task_assign" || strings.Contains(string(m.Data), token) || !strings.Contains(string(m.Data), "rotate") {
		t.Fatalf("bob got %+v, want alice's assignment with the token redacted", m)
	}
	eventually(t, 10*time.Second, "aoi status stops counting the delivered message", func() bool {
		st, err := alice.Status(ctx) // alice marks it delivered just after bob stored it
		return err == nil && st.OutboxRefused == 0
	})
	// The owner reading messages (the interface, aoi inbox) does not hide
	// them from the assistant's unread filter, and vice versa.
	if _, err := bob.Messages(ctx, agent.MessagesRequest{Limit: 100}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 0} {
		page, err := bob.Inbox(ctx, agent.InboxFilter{Unread: true, Assistant: true})
		if err != nil || len(page.Messages) != want {
			t.Fatalf("assistant's unread check %d = %+v (%v), want %d", i+1, page.Messages, err, want)
		}
	}
	// Each mark shows as its own field: the owner's read, the assistant's seen.
	all, err := bob.Inbox(ctx, agent.InboxFilter{TaskID: "T-9"})
	if err != nil || len(all.Messages) != 1 || !all.Messages[0].AssistantSeen {
		t.Fatalf("after the assistant's check: %+v (%v), want assistant_seen", all.Messages, err)
	}
	ts, err := bob.CoordTasks(ctx, agent.CoordTasksRequest{TaskID: "T-9"})
	if err != nil || len(ts) != 1 || ts[0].Side != agent.SideAssignee || ts[0].State != agent.CoordAssigned || ts[0].Peer != "alice" {
		t.Fatalf("bob's task = %+v (%v), want assigned by alice", ts, err)
	}
}

// TestAssistantHeartbeat: once the assistant has polled, the agent shows
// away to peers when it stops polling for assistant_away_after_sec, and
// online again when it polls.
func TestAssistantHeartbeat(t *testing.T) {
	t.Parallel()
	alice := newTestAgent(t, "alice", "lead", nil)
	bob := newTestAgent(t, "bob", "engineer", func(c *config.Config) { c.Network.AssistantAwayAfterSec = 1 })
	pair(alice, bob)
	ctx := context.Background()
	statusOfBob := func() string {
		ps, err := alice.Discover(ctx)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(ps, func(p agent.Peer) bool { return p.AgentID == "bob" })
		if i < 0 {
			t.Fatalf("alice does not know bob: %+v", ps)
		}
		return ps[i].Status
	}
	if s := statusOfBob(); s != agent.PeerOnline {
		t.Fatalf("bob before any poll = %s, want online (no assistant is not away)", s)
	}
	if _, err := bob.Inbox(ctx, agent.InboxFilter{Assistant: true}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "bob shows away", func() bool { return statusOfBob() == agent.PeerAway })
	if _, err := bob.Inbox(ctx, agent.InboxFilter{Assistant: true}); err != nil {
		t.Fatal(err)
	}
	if s := statusOfBob(); s != agent.PeerOnline {
		t.Fatalf("bob after polling again = %s, want online", s)
	}
}

// TestCoordTaskFailureSeenOnBothSides: a worker that gives up reports
// task_complete {"status":"failed"}; both the requester's and the worker's
// aoi show the task failed, and a late review request does not revive it.
func TestCoordTaskFailureSeenOnBothSides(t *testing.T) {
	t.Parallel()
	lead := newTestAgent(t, "lead", "lead", grantMessages)
	worker := newTestAgent(t, "worker", "engineer", grantMessages)
	pair(lead, worker)
	ctx := context.Background()
	state := func(a *testAgent) string {
		ts, err := a.CoordTasks(ctx, agent.CoordTasksRequest{TaskID: "T-F"})
		if err != nil || len(ts) != 1 {
			t.Fatalf("%s's T-F = %+v (%v), want one entry", a.ID, ts, err)
		}
		return ts[0].State
	}
	if _, err := worker.SendMessage(ctx, agent.SendMessageRequest{Type: "progress", TaskID: "T-F"}); err == nil || !strings.Contains(err.Error(), "say which agent") {
		t.Fatalf("progress on a task nobody mentioned yet = %v, want an error asking whom to send it to", err)
	}
	mustSend(t, lead, agent.SendMessageRequest{To: "worker", Type: "task_assign", TaskID: "T-F", Payload: json.RawMessage(`{"description":"port the parser"}`)})
	if s := mustSend(t, worker, agent.SendMessageRequest{Type: "progress", TaskID: "T-F"}); s.To != "lead" || s.TaskState != agent.CoordInProgress {
		t.Fatalf("progress without a recipient = %+v, want it sent to the assigner with the task in progress", s)
	}
	if got := state(lead); got != agent.CoordInProgress {
		t.Fatalf("lead's T-F after progress = %s, want in_progress", got)
	}
	mustSend(t, worker, agent.SendMessageRequest{Type: "task_complete", TaskID: "T-F", Payload: json.RawMessage(`{"status":"failed","error":"the grammar is ambiguous"}`)})
	mustSend(t, worker, agent.SendMessageRequest{Type: "review_request", TaskID: "T-F"})
	for _, a := range []*testAgent{lead, worker} {
		if got := state(a); got != agent.CoordFailed {
			t.Errorf("%s's T-F = %s, want failed", a.ID, got)
		}
	}
}
