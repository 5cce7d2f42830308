package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
)

// A typed message naming a task keeps a coordination task with its
// sender, summarised from the message's words. aoi forget deleted the
// sender's messages but kept that row, its name replaced: what the
// forgotten peer wrote ("hand over the Okinawa merger files") stayed in
// the database and in `aoi messages --tasks`. It is deleted with them.
func TestForgetDeletesTheCoordinationTasksOfThePeer(t *testing.T) {
	t.Parallel()
	eng := newTestAgent(t, "eng-suzuki", "engineer", grantMessages)
	pm := newTestAgent(t, "pm-tanaka", "pm", grantMessages)
	pair(eng, pm)
	ctx := context.Background()
	const words = "hand over the Okinawa merger files"
	sent, err := pm.SendMessage(ctx, agent.SendMessageRequest{To: "eng-suzuki", Type: "task_assign", TaskID: "T-OK",
		Payload: json.RawMessage(`{"description":"` + words + `"}`)})
	if err != nil || sent.Queued {
		t.Fatalf("send = %+v (%v), want it delivered", sent, err)
	}
	if ts, err := eng.CoordTasks(ctx, agent.CoordTasksRequest{TaskID: "T-OK"}); err != nil || len(ts) != 1 {
		t.Fatalf("eng's T-OK = %+v (%v), want one entry before forgetting", ts, err)
	}
	cl, err := ctlclient.Dial(eng.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := cl.Forget(ctx, agent.AgentRequest{AgentID: "pm-tanaka"}); err != nil {
		t.Fatal(err)
	}
	if ts, err := eng.CoordTasks(ctx, agent.CoordTasksRequest{TaskID: "T-OK"}); err != nil || len(ts) != 0 {
		t.Errorf("eng's T-OK after forgetting pm-tanaka = %+v (%v), want none", ts, err)
	}
	if f, i := storedAt(t, eng, words); f != "" {
		t.Errorf("%s still holds the forgotten peer's words at byte %d", f, i)
	}
}
