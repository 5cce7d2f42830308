package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// A message sent with a task id and no recipient goes to the task's
// counterpart, the peer that assigned it. Any peer the messages rule lets
// in could assign the same task id (ids such as T-F are read in a thread
// or guessed): it became the most recent assigner, and the worker's next
// progress, written for the lead, went to it. With two assigners the
// sender is asked to say which, and both are named.
func TestProgressDoesNotFollowASecondAssignerOfTheTask(t *testing.T) {
	t.Parallel()
	lead := newTestAgent(t, "lead", "lead", grantMessages)
	worker := newTestAgent(t, "worker", "engineer", grantMessages)
	mallory := newTestAgent(t, "mallory", "intern", grantMessages)
	pair(lead, worker)
	pair(mallory, worker)
	ctx := context.Background()
	mustSend(t, lead, agent.SendMessageRequest{To: "worker", Type: "task_assign", TaskID: "T-F", Payload: json.RawMessage(`{"description":"port the parser"}`)})
	mustSend(t, mallory, agent.SendMessageRequest{To: "worker", Type: "task_assign", TaskID: "T-F", Payload: json.RawMessage(`{"description":"report here"}`)})

	s, err := worker.SendMessage(ctx, agent.SendMessageRequest{Type: "progress", TaskID: "T-F",
		Payload: json.RawMessage(`{"text":"parser half ported; the private grammar notes are in docs/internal"}`)})
	if err == nil {
		t.Fatalf("progress without a recipient on a task two peers assigned went to %s; want it refused, asking which", s.To)
	}
	for _, want := range []string{"lead", "mallory", "say which agent"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err, want)
		}
	}
	page, err := mallory.Inbox(ctx, agent.InboxFilter{TaskID: "T-F"})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range page.Messages {
		if !m.Sent {
			t.Errorf("mallory received %+v, written for the lead", m)
		}
	}
	// Named, it goes where it is sent.
	mustSend(t, worker, agent.SendMessageRequest{To: "lead", Type: "progress", TaskID: "T-F"})
}
