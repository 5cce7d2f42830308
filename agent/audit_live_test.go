package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// TestAuditAppendedEventFollowsCommits: an owner action writes an audit row
// and front ends hear audit.appended soon after, so the Audit pane is live;
// the text filter finds the row by a word of its detail.
func TestAuditAppendedEventFollowsCommits(t *testing.T) {
	a := newTestAgent(t, "eng-live", "engineer", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	events, err := a.Events(ctx, agent.EventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetFocus(ctx, agent.FocusRequest{On: true}); err != nil { // audited as ctl.focus
		t.Fatal(err)
	}
	for {
		select {
		case ev := <-events:
			if ev.Kind != agent.EventAudit {
				continue
			}
			rows, err := a.Audit(ctx, agent.AuditFilter{Text: "ctl.focus ON"})
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0].Method != "ctl.focus" || !strings.Contains(string(rows[0].Detail), `"on"`) {
				t.Fatalf("text search for the new row: %+v", rows)
			}
			return
		case <-ctx.Done():
			t.Fatal("no audit.appended event after an audited owner action")
		}
	}
}
