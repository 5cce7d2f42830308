package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestQueuedAnswerRechecksTheACL: pm asks asynchronously about
// auth/refresh.go while eng cannot reach it, so the secretary's automatic
// answer, drawn from that file, waits in eng's outbox. With the ACL
// unchanged the answer goes when pm is reachable again. When eng's owner
// meanwhile keeps pm out of acme/webapp/auth, the answer is kept back at
// delivery: pm receives nothing, the entry is withheld and audited, the
// retry says why, and the question is back with eng's owner, its draft
// kept, to answer or decline.
func TestQueuedAnswerRechecksTheACL(t *testing.T) {
	for _, tighten := range []bool{false, true} {
		t.Run(map[bool]string{false: "acl unchanged", true: "folder denied"}[tighten], func(t *testing.T) {
			eng, pm := mirrorAgents(t)
			ctx := context.Background()
			waitIndexed(t, eng)
			events, err := eng.Events(ctx, agent.EventsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			unreachable(t, eng, pm)
			res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "what changed in auth/refresh.go?",
				ContextScope: []string{"acme/webapp"}, Async: true})
			if err != nil {
				t.Fatal(err)
			}
			entry := waitingAnswer(t, eng)
			q := queryNamed(t, eng, answeredID(t, res))
			if q.State != agent.QueryAnswered || !strings.Contains(string(q.Draft), "auth/refresh.go") {
				t.Fatalf("query %+v; want it answered at once from auth/refresh.go", q)
			}
			if tighten {
				denyAuthFolder(t, eng)
			}
			eng.Pin(pm) // reachable again
			got, err := eng.RetryOutbox(ctx, agent.OutboxRetryRequest{ID: entry.ID})
			// The outbox's own retry (its back-off after the failed try is a
			// second or two) may take the entry before this one on a slow
			// machine: the retry then finds it delivered or kept back, the
			// outcome checked below either way.
			tookFirst := err != nil && strings.Contains(err.Error(), map[bool]string{false: "was delivered", true: "was kept back"}[tighten])
			if err != nil && !tookFirst {
				t.Fatal(err)
			}
			if !tighten {
				if !got.Delivered && !tookFirst {
					t.Fatalf("retry with the ACL unchanged: %+v; want the answer delivered", got)
				}
				receivedAnswer(t, pm, res.QueryID, true)
				return
			}
			if !tookFirst && (got.Delivered || !got.Withheld || !strings.Contains(got.Error, "pm-tanaka may no longer read acme/webapp/auth/")) {
				t.Fatalf("retry after the folder rule: %+v; want it withheld, naming the source", got)
			}
			receivedAnswer(t, pm, res.QueryID, false)
			if _, err := eng.RetryOutbox(ctx, agent.OutboxRetryRequest{ID: entry.ID}); err == nil || !strings.Contains(err.Error(), "was kept back") {
				t.Fatalf("retrying the withheld answer again: %v; want it said to be kept back", err)
			}
			if q := queryNamed(t, eng, q.ID); q.State != agent.QueryEscalated || len(q.Answer) != 0 || !strings.Contains(string(q.Draft), "auth/refresh.go") {
				t.Fatalf("the question after its answer was kept back: %+v; want it escalated again, its draft kept, no answer", q)
			}
			if out, err := eng.Outbox(ctx); err != nil || len(out) != 0 {
				t.Fatalf("outbox %+v, %v; want nothing waiting", out, err)
			}
			rows, err := eng.Audit(ctx, agent.AuditFilter{Method: "outbox.withheld", Limit: 10})
			if err != nil || len(rows) != 1 || rows[0].Agent != "pm-tanaka" || rows[0].Result != "PERMISSION_DENIED" ||
				!strings.Contains(string(rows[0].Detail), entry.ID) || !strings.Contains(string(rows[0].Detail), "acme/webapp/auth/") {
				t.Fatalf("outbox.withheld audit rows %+v, %v; want one naming the entry and the source", rows, err)
			}
			attention(t, events, "answer to pm-tanaka was kept back")
			// The owner's own words still go.
			if err := eng.Answer(ctx, agent.AnswerRequest{QueryID: q.ID, Text: "ask me on Monday"}); err != nil {
				t.Fatal(err)
			}
			agenttest.Eventually(t, 10*time.Second, "the owner's answer", func() bool {
				return strings.Contains(answersTo(t, pm, res.QueryID), "ask me on Monday")
			})
		})
	}
}

// unreachable re-pins pm in eng's registry at a port nothing listens on:
// eng's deliveries to pm fail until eng.Pin(pm) again, while pm can still
// ask eng.
func unreachable(t *testing.T, eng, pm *testAgent) {
	t.Helper()
	err := eng.Trust(context.Background(), agent.TrustRequest{AgentID: pm.ID, Fingerprint: pm.Fingerprint(),
		Endpoint: agenttest.FreeAddr(t), Role: pm.Role})
	if err != nil {
		t.Fatal(err)
	}
}

// waitingAnswer is the one answer waiting in eng's outbox after a failed try.
func waitingAnswer(t *testing.T, eng *testAgent) agent.OutboxEntry {
	t.Helper()
	var entry agent.OutboxEntry
	agenttest.Eventually(t, 10*time.Second, "the answer waiting in the outbox after a failed try", func() bool {
		out, err := eng.Outbox(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != 1 || out[0].Attempts == 0 {
			return false
		}
		entry = out[0]
		return true
	})
	return entry
}

// answeredID is eng's query id in an async ask's immediate reply.
func answeredID(t *testing.T, res agent.AskResult) string {
	t.Helper()
	var qr wire.QueryResult
	if err := json.Unmarshal(res.Result, &qr); err != nil {
		t.Fatal(err)
	}
	id, _ := qr.Metadata["query_id"].(string)
	if qr.Metadata["state"] != agent.QueryAnswered || id == "" {
		t.Fatalf("async reply %s; want it answered, naming the query", res.Result)
	}
	return id
}

// answersTo is every completed answer pm holds for its question askID.
func answersTo(t *testing.T, pm *testAgent, askID string) string {
	t.Helper()
	msgs, err := pm.Messages(context.Background(), agent.MessagesRequest{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, m := range msgs {
		if m.RelatedID == askID && m.Event == wire.EventQueryCompleted {
			got += string(m.Data)
		}
	}
	return got
}

// receivedAnswer checks whether pm received the secretary's answer drawn
// from auth/refresh.go; waiting a moment before saying it did not.
func receivedAnswer(t *testing.T, pm *testAgent, askID string, want bool) {
	t.Helper()
	if want {
		agenttest.Eventually(t, 10*time.Second, "the answer at pm", func() bool {
			return strings.Contains(answersTo(t, pm, askID), "auth/refresh.go")
		})
		return
	}
	time.Sleep(300 * time.Millisecond)
	if got := answersTo(t, pm, askID); got != "" {
		t.Fatalf("pm received %s; want the answer kept back", got)
	}
}

// attention waits for an attention event whose summary contains want.
func attention(t *testing.T, events <-chan agent.Event, want string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == agent.EventAttention && strings.Contains(ev.Summary, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no attention event saying %q", want)
		}
	}
}
