package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// authRepo is a repository with auth work: commits, a FIXME and a leaked
// AWS key that must never leave the machine.
func authRepo(t *testing.T) string {
	dir := gitRepo(t)
	write := func(name, body, msg string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", msg}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	write("auth/jwt.go", "package auth\n\n// JWT signing and verification\nfunc Sign() {}\n", "auth: JWT signing done")
	write("auth/refresh.go", "package auth\n\n// FIXME: token store undecided (redis?)\nfunc Refresh() {}\n", "auth: refresh tokens 75% — blocked on Redis config")
	write("deploy/env.sh", "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n", "deploy: add env for the auth service")
	return dir
}

// mirrorAgents: eng mirrors authRepo with focus on and a low threshold.
func mirrorAgents(t *testing.T) (eng, pm *testAgent) {
	repo := authRepo(t)
	eng = newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		engConfig(c)
		c.Contexts[0].LocalPath = repo
		c.Secretary.ContextMirroring.Enabled = true
		c.Secretary.ContextMirroring.IndexIntervalSec = 1
		c.Secretary.InterruptControl.Enabled = true
		c.Secretary.InterruptControl.AutoRespondThreshold = 0.3
	})
	pm = newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	if _, err := pm.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := eng.SetFocus(context.Background(), agent.FocusRequest{On: true}); err != nil {
		t.Fatal(err)
	}
	return eng, pm
}

func TestSecretaryAnswersInFocusAndBuffersUntilFocusEnds(t *testing.T) {
	eng, pm := mirrorAgents(t)
	ctx := context.Background()
	var qr wire.QueryResult
	eventually(t, 15*time.Second, "a grounded answer from the mirror", func() bool {
		res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "How is auth going? refresh tokens", ContextScope: []string{"acme/webapp"}})
		if err != nil {
			t.Fatal(err)
		}
		qr = wire.QueryResult{}
		json.Unmarshal(res.Result, &qr)
		return qr.Completed
	})
	body, _ := json.Marshal(qr)
	if !strings.Contains(string(body), "auth/refresh.go") {
		t.Fatalf("answer %s should point at auth/refresh.go", body)
	}
	// An answer that came back at once is kept in the asker's inbox too,
	// read: the walk found `aoi query`'s answers nowhere afterwards.
	kept, err := pm.Messages(ctx, agent.MessagesRequest{Limit: 100})
	if err != nil || !slices.ContainsFunc(kept, func(m agent.Message) bool {
		return m.From == "eng-suzuki" && m.Event == wire.EventQueryCompleted && m.Read && strings.Contains(string(m.Data), "auth/refresh.go")
	}) {
		t.Errorf("pm's inbox %+v (%v) lacks the answer it got at once", kept, err)
	}
	if strings.Contains(string(body), "AKIAIOSFODNN7EXAMPLE") {
		t.Fatalf("answer leaks the AWS key: %s", body)
	}

	// A low-priority question the mirror cannot answer waits for focus to end.
	res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "zebra quartz xylophone", Priority: "low"})
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(res.Result, &qr)
	if qr.Completed || qr.Metadata["state"] != agent.QueryBuffered {
		t.Fatalf("unanswerable low-priority query = %+v, want buffered", qr)
	}
	// Focus ends: the question reaches the owner (escalated), not the asker
	// (the mirror was not sure of its draft); the owner answers it.
	if err := eng.SetFocus(ctx, agent.FocusRequest{}); err != nil {
		t.Fatal(err)
	}
	// Asks made above before the mirror was indexed may wait escalated
	// too: the buffered question must be among them.
	escalated, err := eng.Queries(ctx, agent.QueryFilter{State: agent.QueryEscalated})
	i := slices.IndexFunc(escalated, func(q agent.Query) bool { return q.Text == "zebra quartz xylophone" })
	if err != nil || i < 0 || escalated[i].Decision != "BUFFER" {
		t.Fatalf("escalated after focus = %+v, %v; want the buffered question", escalated, err)
	}
	open := escalated[i:]
	msgs, err := pm.Messages(ctx, agent.MessagesRequest{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.RelatedID == res.QueryID {
			t.Fatalf("pm got an answer when focus ended, before the owner answered: %s", m.Data)
		}
	}
	if err := eng.Answer(ctx, agent.AnswerRequest{QueryID: open[0].ID, Text: "no idea, sorry"}); err != nil {
		t.Fatal(err)
	}
	waitMessage(t, pm, res.QueryID)

	v, err := eng.VerifyAudit(ctx)
	if err != nil || !v.OK {
		t.Fatalf("verify = %+v, %v", v, err)
	}
	rows, _ := eng.Audit(ctx, agent.AuditFilter{Limit: 1000})
	for _, r := range rows {
		if strings.Contains(string(r.Detail), "AKIAIOSFODNN7EXAMPLE") {
			t.Fatalf("audit row %d leaks the AWS key", r.Seq)
		}
	}
}

// TestAsyncAutoAnswerArrivesAtOnce: the interface asks asynchronously; a
// question the mirror answers says so (not "passed to the owner") and its
// answer is sent at once, not at the outbox's next idle wake-up (30 s).
func TestAsyncAutoAnswerArrivesAtOnce(t *testing.T) {
	_, pm := mirrorAgents(t)
	ctx := context.Background()
	eventually(t, 15*time.Second, "a grounded answer from the mirror", func() bool {
		res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "How is auth going? refresh tokens"})
		if err != nil {
			t.Fatal(err)
		}
		var qr wire.QueryResult
		json.Unmarshal(res.Result, &qr)
		return qr.Completed
	})
	res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "How is auth going? refresh tokens", Async: true})
	if err != nil {
		t.Fatal(err)
	}
	var qr wire.QueryResult
	json.Unmarshal(res.Result, &qr)
	if qr.Metadata["state"] != agent.QueryAnswered || strings.Contains(qr.Summary, "owner") {
		t.Fatalf("async auto-answered query replied %+v; want state answered and no word of the owner", qr)
	}
	start := time.Now()
	eventually(t, 5*time.Second, "the async answer", func() bool {
		msgs, err := pm.Messages(ctx, agent.MessagesRequest{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.RelatedID == res.QueryID {
				return true
			}
		}
		return false
	})
	t.Logf("the async answer arrived after %v", time.Since(start).Round(time.Millisecond))
}

func TestNoteFeedsTheMirror(t *testing.T) {
	eng, pm := mirrorAgents(t)
	ctx := context.Background()
	if _, err := eng.Note(ctx, agent.NoteRequest{Text: "認証: Redis待ち — ops ticket OPS-42"}); err != nil {
		t.Fatal(err)
	}
	var qr wire.QueryResult
	eventually(t, 15*time.Second, "the note in an answer", func() bool {
		res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "認証の状況は？"})
		if err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(res.Result, &qr)
		b, _ := json.Marshal(qr)
		return qr.Completed && strings.Contains(string(b), "OPS-42")
	})
}

// TestStatusShowsHistoryIndexing: the status front ends read says how much
// of each repository's history the secretary has indexed.
func TestStatusShowsHistoryIndexing(t *testing.T) {
	eng, _ := mirrorAgents(t)
	ctx := context.Background()
	var st agent.Status
	eventually(t, 15*time.Second, "the history indexed in the status", func() bool {
		var err error
		if st, err = eng.Status(ctx); err != nil {
			t.Fatal(err)
		}
		return len(st.History) == 1 && st.History[0].Done
	})
	// authRepo: the repository's first commit and three more.
	if h := st.History[0]; h.Context != "acme/webapp" || h.Indexed != 4 || h.Total != 4 {
		t.Fatalf("history = %+v, want acme/webapp with its 4 commits indexed", h)
	}
}

// TestWaitingQuestionIsRedrafted: a question asked before the mirror knew
// anything about its topic waits for the owner with a draft that finds
// nothing; once a note about the topic is recorded, the next redraft round
// replaces that draft (the walk saw "No recorded work matches" kept), and
// nothing is sent to the asker.
func TestWaitingQuestionIsRedrafted(t *testing.T) {
	eng, pm := mirrorAgents(t)
	ctx := context.Background()
	if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "how is the invoice export going?", Async: true}); err != nil {
		t.Fatal(err)
	}
	var q agent.Query
	eventually(t, 10*time.Second, "the question waits for the owner", func() bool {
		qs, err := eng.Queries(ctx, agent.QueryFilter{State: agent.QueryEscalated})
		if err != nil || len(qs) != 1 {
			return false
		}
		q = qs[0]
		return true
	})
	if strings.Contains(string(q.Draft), "PDF layout") {
		t.Fatalf("the first draft already knows the note: %s", q.Draft)
	}
	if _, err := eng.Note(ctx, agent.NoteRequest{Text: "invoice export: CSV done, PDF layout waits for legal review"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "a redraft round replaces the draft", func() bool {
		if _, err := eng.RedraftWaiting(ctx); err != nil {
			t.Fatal(err)
		}
		qs, err := eng.Queries(ctx, agent.QueryFilter{State: agent.QueryEscalated})
		return err == nil && len(qs) == 1 && strings.Contains(string(qs[0].Draft), "PDF layout")
	})
	msgs, err := pm.Messages(ctx, agent.MessagesRequest{})
	if err != nil || len(msgs) != 0 {
		t.Fatalf("the asker got %+v (%v) from a redraft; nothing is sent until the owner answers", msgs, err)
	}
}
