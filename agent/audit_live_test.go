package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/internal/backoff"
)

// TestAuditAppendedEventFollowsCommits: an owner action writes an audit row
// and front ends hear audit.appended soon after, so the Audit pane is live;
// the text filter finds the row by a word of its detail. The watch runs on
// the core's clock: the test moves a fake one a second at a time.
func TestAuditAppendedEventFollowsCommits(t *testing.T) {
	clk := backoff.NewFake(time.Now())
	a := agenttest.Start(t, "eng-live", agenttest.Options{Role: "engineer", Clock: clk})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	events, err := a.Events(ctx, agent.EventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetFocus(ctx, agent.FocusRequest{On: true}); err != nil { // audited as ctl.focus
		t.Fatal(err)
	}
	idle := time.NewTicker(20 * time.Millisecond)
	defer idle.Stop()
	for {
		select {
		case <-idle.C:
			clk.Advance(time.Second) // the watch looks once a second
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
