package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// TestAnswerKeepsQuestionAndReadMarkAcrossRestart: the answer to the owner's
// question names the question, listing messages marks nothing read, the
// owner's read mark survives a restart, and a later message is unread again.
func TestAnswerKeepsQuestionAndReadMarkAcrossRestart(t *testing.T) {
	eng := newTestAgent(t, "eng-reader", "engineer", nil)
	pm := newTestAgent(t, "pm-answerer", "pm", nil)
	pair(eng, pm)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	ask := func(q string) string {
		res, err := eng.Ask(ctx, agent.AskRequest{To: "pm-answerer", Query: q})
		if err != nil {
			t.Fatal(err)
		}
		var id string
		eventually(t, 10*time.Second, "the PM holds the question", func() bool {
			qs, _ := pm.Queries(ctx, agent.QueryFilter{})
			for _, x := range qs {
				if x.Text == q && x.State != agent.QueryAnswered {
					id = x.ID
				}
			}
			return id != ""
		})
		if err := pm.Answer(ctx, agent.AnswerRequest{QueryID: id, Text: "answer to: " + q}); err != nil {
			t.Fatal(err)
		}
		return res.QueryID
	}
	unread := func() int {
		st, err := eng.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return st.UnreadMsgs
	}

	askID := ask("when is the release?")
	var msgs []agent.Message
	eventually(t, 10*time.Second, "the answer reaches eng", func() bool {
		msgs, _ = eng.Messages(ctx, agent.MessagesRequest{Limit: 100})
		return len(msgs) == 1
	})
	if m := msgs[0]; m.RelatedID != askID || m.Question != "when is the release?" || m.Read {
		t.Fatalf("answer = %+v; want it unread, about %s, naming the question", m, askID)
	}
	if n := unread(); n != 1 {
		t.Fatalf("unread after listing = %d; listing must not mark read", n)
	}
	if err := eng.MarkMessagesRead(ctx, agent.MarkReadRequest{UptoSeq: msgs[0].Seq}); err != nil {
		t.Fatal(err)
	}
	eng.Restart(nil)
	if n := unread(); n != 0 {
		t.Fatalf("unread after a restart = %d; the read mark was lost", n)
	}
	again, _ := eng.Messages(ctx, agent.MessagesRequest{Limit: 100})
	if len(again) != 1 || !again[0].Read || again[0].Question != "when is the release?" {
		t.Fatalf("after the restart: %+v", again)
	}
	ask("and the freeze?")
	eventually(t, 10*time.Second, "the second answer is unread", func() bool { return unread() == 1 })
}
