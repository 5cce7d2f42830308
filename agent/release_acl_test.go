package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/config"
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
