package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// The owner's words to a peer are redacted before they leave: an answer
// and a decline's reason were, a rejection's reason was not. `aoi reject
// ID --reason "use the staging token ghp_… instead"` sent the token to
// the requester and kept it in the task, the approval and the outbox.
func TestRejectReasonIsRedactedBeforeItIsSent(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"})
	if err != nil {
		t.Fatal(err)
	}
	aps, err := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending})
	if err != nil || len(aps) != 1 {
		t.Fatalf("approvals = %+v (%v)", aps, err)
	}
	token := "ghp_" + "9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S"
	if err := eng.Reject(ctx, agent.RejectRequest{ID: aps[0].ID, Reason: "use the staging token " + token + " instead"}); err != nil {
		t.Fatal(err)
	}
	m := waitMessage(t, pm, ticket.RequestID)
	if !strings.Contains(string(m.Data), "use the staging token") {
		t.Errorf("pm's result %s; want the owner's reason", m.Data)
	}
	db := rawSQL(t, eng)
	for _, q := range []string{
		`SELECT COALESCE(params, '') FROM outbox`,
		`SELECT COALESCE(error, '') || COALESCE(output, '') FROM tasks`,
		`SELECT COALESCE(reason, '') FROM approvals`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(s, token) {
				t.Errorf("%s: the reason went out or was kept with its token: %s", q, s)
			}
		}
		rows.Close()
	}
}
