package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
)

// TestQuestionToAnOfflinePeerIsQueued: the walk's PM asked a colleague
// whose aoi had stopped and got only an error. The question is now kept
// in the outbox, said to be queued, sent when the colleague is back, and
// answered like any other.
func TestQuestionToAnOfflinePeerIsQueued(t *testing.T) {
	clk := backoff.NewFake(time.Now()) // pm's outbox waits its back-off on this clock
	pm := agenttest.Start(t, "pm-tanaka", agenttest.Options{Role: "pm", Clock: clk})
	eng := newTestAgent(t, "eng-suzuki", "engineer", nil)
	pair(eng, pm)
	eng.Stop()
	ctx := context.Background()
	res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "how is auth going?"})
	if err != nil {
		t.Fatalf("asking an offline peer: %v; want the question queued", err)
	}
	var qr wire.QueryResult
	if err := json.Unmarshal(res.Result, &qr); err != nil || qr.Completed || qr.Metadata["state"] != agent.AskQueued || !strings.Contains(qr.Summary, "eng-suzuki is offline") {
		t.Fatalf("result %s (%v); want it queued, saying eng-suzuki is offline", res.Result, err)
	}
	eng.Restart(nil)
	eventually(t, 10*time.Second, "the queued question to reach eng-suzuki", func() bool {
		clk.Advance(500 * time.Millisecond)
		qs, err := eng.Queries(ctx, agent.QueryFilter{})
		return err == nil && len(qs) == 1 && qs[0].Text == "how is auth going?"
	})
	qs, _ := eng.Queries(ctx, agent.QueryFilter{})
	if err := eng.Answer(ctx, agent.AnswerRequest{QueryID: qs[0].ID, Text: "login is done; SSO next"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the answer to the queued question", func() bool {
		msgs, err := pm.Messages(ctx, agent.MessagesRequest{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.RelatedID == res.QueryID && strings.Contains(string(m.Data), "SSO next") {
				return true
			}
		}
		return false
	})
}

// TestOutboxListsAndWithdraws: what waits to be delivered is listed (a
// question asked of a stopped peer here), and the owner can withdraw it:
// it is never sent, the question stops waiting, and the audit log says so.
func TestOutboxListsAndWithdraws(t *testing.T) {
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	eng := newTestAgent(t, "eng-suzuki", "engineer", nil)
	pair(eng, pm)
	eng.Stop()
	ctx := context.Background()
	res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "how is auth going?"})
	if err != nil {
		t.Fatal(err)
	}
	es, err := pm.Outbox(ctx)
	if err != nil || len(es) != 1 || es[0].ID != res.QueryID || es[0].What != "question" || es[0].To != "eng-suzuki" {
		t.Fatalf("outbox %+v, %v; want the queued question", es, err)
	}
	if err := pm.DropOutbox(ctx, agent.OutboxDropRequest{ID: res.QueryID}); err != nil {
		t.Fatal(err)
	}
	if es, _ := pm.Outbox(ctx); len(es) != 0 {
		t.Errorf("outbox after withdrawing: %+v", es)
	}
	if err := pm.DropOutbox(ctx, agent.OutboxDropRequest{ID: res.QueryID}); !errors.Is(err, agent.ErrNotFound) {
		t.Errorf("withdrawing it again: %v; want not found", err)
	}
	st, err := pm.Status(ctx)
	if err != nil || st.OutboxQueued != 0 {
		t.Errorf("status %+v, %v; want nothing queued", st.OutboxQueued, err)
	}
	rows, err := pm.Audit(ctx, agent.AuditFilter{Method: "ctl.outbox.drop"})
	if err != nil || len(rows) != 1 {
		t.Errorf("audit rows %+v, %v; want the withdrawal", rows, err)
	}
}

// TestTaskRequestToAnOfflinePeerIsQueued: the second walk's `:task` to a
// stopped peer failed where a question was queued. A task request (not
// one waited for with --sync) is queued too, listed in the outbox, and
// reaches the peer when it is back.
func TestTaskRequestToAnOfflinePeerIsQueued(t *testing.T) {
	clk := backoff.NewFake(time.Now())
	pm := agenttest.Start(t, "pm-tanaka", agenttest.Options{Role: "pm", Clock: clk})
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{"hold": {Command: []string{"sleep", "1"}, Context: "acme/webapp", TimeoutSec: 30, Isolation: "none", Approval: config.Approval{Required: true}}}
	})
	pair(eng, pm)
	eng.Stop()
	ctx := context.Background()
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "hold"})
	if err != nil || ticket.Status != agent.AskQueued {
		t.Fatalf("task request to an offline peer: %+v, %v; want it queued", ticket, err)
	}
	if es, _ := pm.Outbox(ctx); len(es) != 1 || es[0].What != "task request" {
		t.Fatalf("outbox %+v; want the task request", es)
	}
	eng.Restart(nil)
	eventually(t, 10*time.Second, "the queued task request to reach eng-suzuki", func() bool {
		clk.Advance(500 * time.Millisecond)
		as, err := eng.Approvals(ctx, agent.ApprovalFilter{})
		return err == nil && len(as) == 1 && as[0].TaskType == "hold"
	})
}
