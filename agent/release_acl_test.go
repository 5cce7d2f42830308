package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// TestReleaseRechecksTheACL: a question arrives while its asker may read
// acme/webapp and waits, buffered, with a draft drawn from it; the owner
// then takes the asker's read access away and reloads. Releasing the
// draft is refused, saying why and what to do; nothing is queued for the
// asker, the question still waits, and the refusal is audited.
func TestReleaseRechecksTheACL(t *testing.T) {
	eng, pm := mirrorAgents(t)
	ctx := context.Background()
	// No draft is sure enough to go by itself: the question waits.
	eng.EditConfig(func(c *config.Config) { c.Secretary.InterruptControl.AutoRespondThreshold = 1 })
	if _, err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, eng)
	if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "How is auth going? refresh tokens",
		ContextScope: []string{"acme/webapp"}, Priority: "low"}); err != nil {
		t.Fatal(err)
	}
	qs, err := eng.Queries(ctx, agent.QueryFilter{State: agent.QueryBuffered})
	if err != nil || len(qs) != 1 || !inbox.DraftFoundWork(qs[0].Draft) {
		t.Fatalf("buffered = %+v, %v; want the question with a draft from acme/webapp", qs, err)
	}
	q := qs[0]

	eng.EditConfig(func(c *config.Config) { c.ACL.Rules = c.ACL.Rules[1:] }) // drops pm-read: default none
	if _, err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{q.ID, ""} { // alone, and as one of them all
		err = eng.Release(ctx, agent.ReleaseRequest{QueryID: id})
		if !errors.Is(err, agent.ErrConflict) || !strings.Contains(err.Error(), "pm-tanaka may no longer read acme/webapp") ||
			!strings.Contains(err.Error(), "aoi answer") {
			t.Fatalf("release %q after the ACL changed: %v; want a conflict naming the scope and what to do", id, err)
		}
	}
	if out, err := eng.Outbox(ctx); err != nil || len(out) != 0 {
		t.Fatalf("outbox %+v, %v; want nothing queued for the asker", out, err)
	}
	if still, _ := eng.Queries(ctx, agent.QueryFilter{State: agent.QueryBuffered}); len(still) != 1 {
		t.Fatalf("buffered after the refusal: %+v; want the question still waiting", still)
	}
	rows, err := eng.Audit(ctx, agent.AuditFilter{Method: "ctl.release", Limit: 10})
	if err != nil || len(rows) != 2 || rows[0].Result != "PERMISSION_DENIED" || !strings.Contains(string(rows[0].Detail), q.ID) {
		t.Fatalf("ctl.release audit rows %+v, %v; want the two refusals naming the query", rows, err)
	}
}

// waitIndexed waits until a's secretary has indexed its repository's
// history.
func waitIndexed(t *testing.T, a *testAgent) {
	t.Helper()
	eventually(t, 15*time.Second, "the history indexed", func() bool {
		st, err := a.Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(st.History) == 1 && st.History[0].Done
	})
}

// TestReleaseRechecksTheDraftsSources: two questions wait, buffered, each
// with a draft: one drawn from acme/webapp/auth, one from deploy/. The
// owner then keeps the asker out of acme/webapp/auth with a folder rule,
// while it may still read acme/webapp, the scope both asked about.
// Releasing the first is refused, alone and among them all, saying which
// source and what to do, audited; releasing them all still sends the
// second.
func TestReleaseRechecksTheDraftsSources(t *testing.T) {
	eng, pm := waitingDrafts(t)
	ctx := context.Background()
	auth := bufferedDraft(t, eng, pm, "auth/refresh.go")
	deploy := bufferedDraft(t, eng, pm, "deploy/env.sh")

	denyAuthFolder(t, eng)
	for _, id := range []string{auth.ID, ""} { // alone, and as one of them all
		err := eng.Release(ctx, agent.ReleaseRequest{QueryID: id})
		if !errors.Is(err, agent.ErrConflict) || !strings.Contains(err.Error(), "pm-tanaka may no longer read acme/webapp/auth/") ||
			!strings.Contains(err.Error(), auth.ID) || !strings.Contains(err.Error(), "aoi answer") {
			t.Fatalf("release %q after a folder rule: %v; want a conflict naming the query, the source and what to do", id, err)
		}
	}
	if q := queryNamed(t, eng, deploy.ID); q.State != agent.QueryAnswered {
		t.Fatalf("the deploy draft after releasing them all: %s; want it sent", q.State)
	}
	if q := queryNamed(t, eng, auth.ID); q.State != agent.QueryBuffered {
		t.Fatalf("the auth draft after the refusals: %s; want it still waiting", q.State)
	}
	eventually(t, 10*time.Second, "pm receives the deploy answer only", func() bool {
		msgs, err := pm.Messages(ctx, agent.MessagesRequest{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		for _, m := range msgs {
			if m.Event == wire.EventQueryCompleted {
				got += string(m.Data)
			}
		}
		if strings.Contains(got, "auth/") {
			t.Fatalf("pm received a draft drawn from auth/: %s", got)
		}
		return strings.Contains(got, "deploy/env.sh")
	})
	rows, err := eng.Audit(ctx, agent.AuditFilter{Method: "ctl.release", Result: "PERMISSION_DENIED", Limit: 10})
	if err != nil || len(rows) != 2 || !strings.Contains(string(rows[0].Detail), auth.ID) || !strings.Contains(string(rows[0].Detail), "acme/webapp/auth/") {
		t.Fatalf("refused ctl.release audit rows %+v, %v; want the two refusals naming the query and the source", rows, err)
	}
}

// TestReleaseOfADraftWithoutSources: a draft stored before drafts kept
// their sources is re-checked at its scope only, as it was then: a folder
// rule inside the scope does not stop it.
func TestReleaseOfADraftWithoutSources(t *testing.T) {
	eng, pm := waitingDrafts(t)
	ctx := context.Background()
	q := bufferedDraft(t, eng, pm, "auth/refresh.go")
	// The row as an older aoi stored it, written through the agent's own
	// handle (the file has one).
	err := eng.DB().Write(ctx, func(tx *store.Tx) error {
		return tx.SetQueryDecision(q.ID, q.Decision, q.Confidence, q.Draft, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	denyAuthFolder(t, eng)
	if err := eng.Release(ctx, agent.ReleaseRequest{QueryID: q.ID}); err != nil {
		t.Fatalf("release of a draft without sources under a folder rule inside its scope: %v; want it sent", err)
	}
}

// waitingDrafts is mirrorAgents with no draft sure enough to go by
// itself, and the history indexed.
func waitingDrafts(t *testing.T) (eng, pm *testAgent) {
	t.Helper()
	eng, pm = mirrorAgents(t)
	eng.EditConfig(func(c *config.Config) { c.Secretary.InterruptControl.AutoRespondThreshold = 1 })
	if _, err := eng.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, eng)
	return eng, pm
}

// bufferedDraft has pm ask eng about file, low priority, in acme/webapp,
// and returns the question waiting with a draft that cites file and that
// releasing them all would send.
func bufferedDraft(t *testing.T, eng, pm *testAgent, file string) agent.Query {
	t.Helper()
	ctx := context.Background()
	before, err := eng.Queries(ctx, agent.QueryFilter{State: agent.QueryBuffered})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "what changed in " + file + "?",
		ContextScope: []string{"acme/webapp"}, Priority: "low"}); err != nil {
		t.Fatal(err)
	}
	qs, err := eng.Queries(ctx, agent.QueryFilter{State: agent.QueryBuffered})
	if err != nil || len(qs) != len(before)+1 {
		t.Fatalf("buffered = %+v, %v; want one more question", qs, err)
	}
	q := qs[0]
	if !inbox.Releasable(q.Draft, q.Confidence) || !strings.Contains(string(q.Draft), file) {
		t.Fatalf("draft %s at %.2f; want one citing %s that releasing them all sends", q.Draft, q.Confidence, file)
	}
	return q
}

// denyAuthFolder keeps pm out of acme/webapp/auth while it may still read
// acme/webapp, and reloads.
func denyAuthFolder(t *testing.T, eng *testAgent) {
	t.Helper()
	eng.EditConfig(func(c *config.Config) {
		c.ACL.Rules = append(c.ACL.Rules, config.Rule{ID: "pm-no-auth", AgentRole: "pm", ScopeType: "folder",
			ScopePattern: "acme/webapp/auth/**", Permission: "none"})
	})
	if _, err := eng.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// queryNamed is eng's received query id.
func queryNamed(t *testing.T, eng *testAgent, id string) agent.Query {
	t.Helper()
	qs, err := eng.Queries(context.Background(), agent.QueryFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		if q.ID == id {
			return q
		}
	}
	t.Fatalf("no query %s among %+v", id, qs)
	return agent.Query{}
}
