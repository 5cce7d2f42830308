package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// seedAgentData stores what a day with two peers leaves behind: pm-tanaka
// (to be forgotten) and qa-sato (to be kept), with pm-tanaka also named in
// the owner's notes and in qa-sato's query.
func seedAgentData(t *testing.T, db *DB) {
	t.Helper()
	write(t, db, func(tx *Tx) error {
		for _, p := range []PeerRecord{
			{AgentID: "pm-tanaka", Role: "pm", Owner: "tanaka", Fingerprint: "fp-pm", Trust: "pinned", Status: "online"},
			{AgentID: "qa-sato", Role: "qa", Owner: "sato", Fingerprint: "fp-qa", Trust: "pinned", Status: "online"},
		} {
			if err := tx.UpsertPeer(p); err != nil {
				return err
			}
		}
		for _, q := range []QueryRecord{
			{ID: "q-1", From: "pm-tanaka", Text: "認証機能の進捗は？", State: "escalated", ReceivedAt: tx.Now()},
			{ID: "q-2", From: "qa-sato", Text: "did PM-Tanaka see the failing test?", State: "escalated", ReceivedAt: tx.Now()},
		} {
			if err := tx.InsertQuery(q); err != nil {
				return err
			}
		}
		if err := tx.UpdateQuery("q-1", "answered", json.RawMessage(`{"summary":"JWT done"}`), ptr(tx.Now())); err != nil {
			return err
		}
		if err := tx.InsertAsk(AskRecord{RequestID: "r-1", To: "pm-tanaka", Text: "release date?", SentAt: tx.Now()}); err != nil {
			return err
		}
		if _, _, err := tx.InsertMessage(MessageRecord{MsgID: "m-1", From: "pm-tanaka", Event: "query.completed", Data: json.RawMessage(`{"summary":"Friday"}`)}); err != nil {
			return err
		}
		if err := tx.EnqueueOutbox(OutboxRecord{ID: "o-1", To: "pm-tanaka", Method: "aoi.notify", Params: json.RawMessage(`{"to":"pm-tanaka"}`), NextAttemptAt: tx.Now()}); err != nil {
			return err
		}
		if err := tx.InsertTask(TaskRecord{ID: "t-1", Requester: "pm-tanaka", TaskType: "run_tests", State: "pending"}); err != nil {
			return err
		}
		if err := tx.InsertApproval(ApprovalRecord{ID: "a-1", TaskID: "t-1", Requester: "pm-tanaka", TaskType: "run_tests", State: "pending", ExpiresAt: tx.Now().Add(time.Hour)}); err != nil {
			return err
		}
		if _, err := tx.InsertContextEvent(ContextEvent{Source: "note", Kind: "note", Title: "sync", Body: "talked to pm-tanaka. npm-tanakax stays", TS: tx.Now()}); err != nil {
			return err
		}
		for _, a := range []struct{ agent, method string }{{"pm-tanaka", "aoi.query"}, {"qa-sato", "aoi.query"}, {"pm-tanaka", "aoi.task.execute"}} {
			if _, err := tx.AppendAudit(a.agent, a.method, "ok", map[string]any{"query_id": "q", "from": a.agent}); err != nil {
				return err
			}
		}
		_, err := tx.AppendAudit("owner", "ctl.approve", "ok", map[string]any{"note": "approved pm-tanaka's run", "pm-tanaka": 1})
		return err
	})
}

func ptr[T any](v T) *T { return &v }

func TestExportAgentFindsEverythingAboutIt(t *testing.T) {
	db, _ := openTestDB(t)
	seedAgentData(t, db)
	exp, err := db.ExportAgent(context.Background(), "pm-tanaka")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"agent_registry": 1, "queries": 2, "asks": 1, "messages": 1, "outbox": 1, "tasks": 1,
		"approvals": 1, "context_events": 1, "audit_log": 3}
	for table, n := range want {
		if got := len(exp.Tables[table]); got != n {
			t.Errorf("export has %d %s rows, want %d: %v", got, table, n, exp.Tables[table])
		}
	}
	if q := exp.Tables["queries"]; len(q) > 0 {
		if _, isJSON := q[0]["context_scope"].(json.RawMessage); !isJSON {
			t.Errorf("JSON columns should export as JSON, got %T", q[0]["context_scope"])
		}
	}
	b, _ := json.Marshal(exp)
	if strings.Contains(string(b), "fp-qa") {
		t.Fatal("export contains another agent's registry row")
	}
}

func TestForgetAgentLeavesNoTraceAndChainVerifies(t *testing.T) {
	db, path := openTestDB(t)
	ctx := context.Background()
	seedAgentData(t, db)
	if err := db.CheckpointWAL(ctx); err != nil {
		t.Fatal(err)
	}
	if before, _ := os.ReadFile(path); bytes.Count(before, []byte("pm-tanaka")) < 5 {
		t.Fatal("the scan below would prove nothing: the seeded file does not hold the id")
	}
	rep, err := db.ForgetAgent(ctx, "pm-tanaka", "owner")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deleted["queries"] != 1 || rep.Deleted["tasks"] != 1 || rep.AuditRedacted != 3 || len(rep.TaskIDs) != 1 || rep.Scrubbed["queries"] != 1 {
		t.Fatalf("report = %+v", rep)
	}
	if v, err := db.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("verify after forget = %+v, %v", v, err)
	}
	if err := db.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		// Every occurrence left must be the decoy "npm-tanakax", another name.
		low := []byte(lowerASCII(string(b)))
		for i := bytes.Index(low, []byte("pm-tanaka")); i >= 0; {
			if i == 0 || low[i-1] != 'n' {
				t.Fatalf("%s still holds pm-tanaka at byte %d: %q", f, i, b[max(0, i-10):min(len(b), i+60)])
			}
			next := bytes.Index(low[i+1:], []byte("pm-tanaka"))
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	got, _, _ := db.Peer(ctx, "qa-sato")
	if got.Fingerprint != "fp-qa" {
		t.Fatal("forgetting pm-tanaka removed qa-sato")
	}
	exp, _ := db.ExportAgent(ctx, "qa-sato")
	if len(exp.Tables["queries"]) != 1 || !strings.Contains(exp.Tables["queries"][0]["text"].(string), Forgotten) {
		t.Fatalf("qa-sato's query should stay, with the name replaced: %v", exp.Tables["queries"])
	}
	notes, _ := db.ExportAgent(ctx, "npm-tanakax")
	if len(notes.Tables["context_events"]) != 1 {
		t.Fatal("a longer name containing the id must not be rewritten")
	}
}

func TestForgetThenTamperIsDetected(t *testing.T) {
	db, path := openTestDB(t)
	ctx := context.Background()
	seedAgentData(t, db)
	if _, err := db.ForgetAgent(ctx, "pm-tanaka", "owner"); err != nil {
		t.Fatal(err)
	}
	raw := rawDB(t, path)
	// Edit a redacted row: it no longer matches its redaction record.
	if _, err := raw.Exec(`UPDATE audit_log SET result = 'denied' WHERE seq = 1`); err != nil {
		t.Fatal(err)
	}
	if v, _ := db.VerifyAudit(ctx); v.OK || v.FirstBad != 1 {
		t.Fatalf("edited redacted row: verify = %+v, want row 1 bad", v)
	}
	// Forge a matching redaction record too: the anchor's digest catches it.
	var prev, ts, agent, method, detail string
	if err := raw.QueryRow(`SELECT prev_hash, ts, agent, method, detail FROM audit_log WHERE seq = 1`).Scan(&prev, &ts, &agent, &method, &detail); err != nil {
		t.Fatal(err)
	}
	forged := auditHash(prev, 1, ts, agent, method, "denied", detail)
	if _, err := raw.Exec(`UPDATE audit_redactions SET redacted_hash = ? WHERE seq = 1`, forged); err != nil {
		t.Fatal(err)
	}
	v, _ := db.VerifyAudit(ctx)
	if v.OK || v.FirstBad != 1 || !strings.Contains(v.Problem, "digest") {
		t.Fatalf("forged redaction record: verify = %+v, want row 1 named with the digest", v)
	}
}

func TestForgetTwiceRedactsARowAgain(t *testing.T) {
	db, _ := openTestDB(t)
	ctx := context.Background()
	write(t, db, func(tx *Tx) error {
		_, err := tx.AppendAudit("owner", "ctl.note", "ok", map[string]any{"text": "pm-tanaka and qa-sato met"})
		return err
	})
	for _, id := range []string{"pm-tanaka", "qa-sato"} {
		if _, err := db.ForgetAgent(ctx, id, "owner"); err != nil {
			t.Fatal(err)
		}
		if v, err := db.VerifyAudit(ctx); err != nil || !v.OK {
			t.Fatalf("verify after forgetting %s = %+v, %v", id, v, err)
		}
	}
	rows, _ := db.AuditList(ctx, AuditQuery{Method: "ctl.note"})
	if len(rows) != 1 || string(rows[0].Detail) != `{"text":"[forgotten] and [forgotten] met"}` {
		t.Fatalf("note row = %s", rows[0].Detail)
	}
}

func TestMentionSpansWholeNamesOnly(t *testing.T) {
	for s, want := range map[string]bool{
		"pm-tanaka":              true,
		"asked PM-Tanaka.":       true,
		`{"from":"pm-tanaka"}`:   true,
		"pm-tanaka2":             false,
		"npm-tanaka":             false,
		"pm-tanaka.example":      false,
		"pm-tanaka, then pm-tan": true,
	} {
		if got := mentions(s, "pm-tanaka"); got != want {
			t.Errorf("mentions(%q) = %v, want %v", s, got, want)
		}
	}
	if got, _ := replaceMentions("pm-tanaka asked pm-tanaka2 and PM-TANAKA.", "pm-tanaka", "X"); got != "X asked pm-tanaka2 and X." {
		t.Fatalf("replace = %q", got)
	}
}

func TestPruneTasksAndOutboxKeepRecentAndPending(t *testing.T) {
	clock := newTestClock()
	db, _ := openTestDB(t, WithClock(clock.Now))
	ctx := context.Background()
	old := clock.Now()
	write(t, db, func(tx *Tx) error {
		for _, tr := range []TaskRecord{
			{ID: "done-old", Requester: "pm", TaskType: "x", State: "completed", CreatedAt: old, UpdatedAt: old},
			{ID: "running", Requester: "pm", TaskType: "x", State: "in_progress", CreatedAt: old, UpdatedAt: old},
		} {
			if err := tx.InsertTask(tr); err != nil {
				return err
			}
		}
		for _, o := range []OutboxRecord{{ID: "sent", To: "pm", Method: "m", NextAttemptAt: old, CreatedAt: old}, {ID: "waiting", To: "pm", Method: "m", NextAttemptAt: old, CreatedAt: old}} {
			if err := tx.EnqueueOutbox(o); err != nil {
				return err
			}
		}
		return tx.MarkOutboxDelivered("sent", old)
	})
	cut := old.Add(time.Hour)
	ids, err := db.PruneTasks(ctx, cut, []string{"completed", "failed"})
	if err != nil || len(ids) != 1 || ids[0] != "done-old" {
		t.Fatalf("PruneTasks = %v, %v; want only the finished task", ids, err)
	}
	if _, ok, _ := db.Task(ctx, "running"); !ok {
		t.Fatal("a running task was pruned")
	}
	if n, err := db.PruneOutbox(ctx, cut); err != nil || n != 1 {
		t.Fatalf("PruneOutbox = %d, %v; want the delivered entry only", n, err)
	}
	if _, ok, _ := db.Outbox(ctx, "waiting"); !ok {
		t.Fatal("a pending outbox entry was pruned")
	}
}

func TestIntegrityCheckAndStats(t *testing.T) {
	db, path := openTestDB(t)
	ctx := context.Background()
	seedAgentData(t, db)
	if p, err := db.IntegrityCheck(ctx); err != nil || len(p) != 0 {
		t.Fatalf("IntegrityCheck = %v, %v", p, err)
	}
	if p, err := IntegrityCheckFile(ctx, path); err != nil || len(p) != 0 {
		t.Fatalf("IntegrityCheckFile = %v, %v", p, err)
	}
	st, err := db.OpsStats(ctx)
	if err != nil || st.Approvals["pending"] != 1 || st.Tasks["pending"] != 1 || st.OutboxDepth != 1 || st.ContextEvents != 1 || st.ContextIngested < 1 {
		t.Fatalf("OpsStats = %+v, %v", st, err)
	}
	if v := SQLiteVersion(); !strings.HasPrefix(v, "3.") {
		t.Fatalf("SQLiteVersion = %q", v)
	}
}

// TestPruneReceivedKeepsWaitingAndUnread: answered and declined questions
// and read messages received before the cut go; a question still waiting,
// an unread message and anything newer stay.
func TestPruneReceivedKeepsWaitingAndUnread(t *testing.T) {
	clock := newTestClock()
	db, _ := openTestDB(t, WithClock(clock.Now))
	ctx := context.Background()
	old := clock.Now()
	answered := old.Add(time.Minute)
	write(t, db, func(tx *Tx) error {
		for _, q := range []QueryRecord{
			{ID: "q-answered", From: "pm", Text: "a", State: "answered", ReceivedAt: old, AnsweredAt: &answered},
			{ID: "q-declined", From: "pm", Text: "b", State: "declined", ReceivedAt: old},
			{ID: "q-waiting", From: "pm", Text: "c", State: "escalated", ReceivedAt: old},
			{ID: "q-new", From: "pm", Text: "d", State: "answered", ReceivedAt: old.Add(2 * time.Hour)},
		} {
			if err := tx.InsertQuery(q); err != nil {
				return err
			}
		}
		for i, at := range []time.Time{old, old, old.Add(2 * time.Hour)} {
			if _, _, err := tx.InsertMessage(MessageRecord{MsgID: fmt.Sprintf("m%d", i), From: "pm", Event: "x", ReceivedAt: at}); err != nil {
				return err
			}
		}
		return tx.MarkMessagesRead(1) // the first is read, the second not
	})
	q, m, err := db.PruneReceived(ctx, old.Add(time.Hour))
	if err != nil || q != 2 || m != 1 {
		t.Fatalf("PruneReceived = %d questions, %d messages, %v; want 2 and 1", q, m, err)
	}
	for id, keep := range map[string]bool{"q-answered": false, "q-declined": false, "q-waiting": true, "q-new": true} {
		if _, ok, _ := db.Query(ctx, id); ok != keep {
			t.Errorf("question %s kept = %v, want %v", id, ok, keep)
		}
	}
	if n, err := db.CountQueries(ctx, ""); err != nil || n != 2 {
		t.Errorf("questions left = %d, %v", n, err)
	}
	left, err := db.Messages(ctx, 0, 10)
	if err != nil || len(left) != 2 || left[0].MsgID != "m1" || left[1].MsgID != "m2" {
		t.Errorf("messages left = %+v, %v; want the unread m1 and the new m2", left, err)
	}
}
