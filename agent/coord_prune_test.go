package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// Every typed message naming a new task id adds a coordination task, and
// pruning removed the read messages but never the tasks: a peer a
// messages rule lets in, sending a new task id in each message the
// assistant reads, grew the table for ever (one row and its summary a
// message, at up to five messages a second). Pruning now removes the
// tasks no kept message names, and keeps one a message still waits on.
func TestPruneRemovesCoordinationTasksNoMessageNames(t *testing.T) {
	t.Parallel()
	worker := newTestAgent(t, "worker", "engineer", grantMessages)
	mallory := newTestAgent(t, "mallory", "intern", grantMessages)
	lead := newTestAgent(t, "lead", "lead", grantMessages)
	pair(mallory, worker)
	pair(lead, worker)
	ctx := context.Background()
	for i := range 5 {
		if sent, err := mallory.SendMessage(ctx, agent.SendMessageRequest{To: "worker", Type: "task_assign", TaskID: fmt.Sprintf("T-%d", i),
			Payload: json.RawMessage(`{"description":"filler"}`)}); err != nil || sent.Queued {
			t.Fatalf("send %d = %+v (%v)", i, sent, err)
		}
	}
	msgs, err := worker.Messages(ctx, agent.MessagesRequest{Limit: 100})
	if err != nil || len(msgs) != 5 {
		t.Fatalf("worker's messages = %d (%v), want 5", len(msgs), err)
	}
	if err := worker.MarkMessagesRead(ctx, agent.MarkReadRequest{UptoSeq: msgs[len(msgs)-1].Seq}); err != nil {
		t.Fatal(err)
	}
	// One the assistant has not read yet keeps its task.
	if sent, err := lead.SendMessage(ctx, agent.SendMessageRequest{To: "worker", Type: "task_assign", TaskID: "T-LIVE",
		Payload: json.RawMessage(`{"description":"port the parser"}`)}); err != nil || sent.Queued {
		t.Fatalf("lead's send = %+v (%v)", sent, err)
	}
	time.Sleep(time.Millisecond)
	rep, err := worker.Prune(ctx, agent.PruneRequest{OlderThan: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Messages != 5 || rep.CoordTasks != 5 {
		t.Errorf("prune report = %+v; want the 5 read messages and their 5 tasks gone", rep)
	}
	ts, err := worker.CoordTasks(ctx, agent.CoordTasksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].TaskID != "T-LIVE" || ts[0].Peer != "lead" {
		t.Errorf("coordination tasks after pruning = %+v; want lead's T-LIVE alone", ts)
	}
}
