package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// The owner's answer that keeps the draft's words carries the draft's
// references, which the answer's text does not show. Releasing a draft
// re-checks the ACL (TestReleaseRechecksTheDraftsSources), but answering
// with its words did not: after a folder rule kept pm out of auth/, the
// answer the owner wrote from the draft still sent pm the references
// (path and summary) of the auth/ work it was drawn from. Those go only
// while the asker may still read the draft's sources; the owner's words
// go in any case.
func TestAnswerKeepingTheDraftRechecksItsReferences(t *testing.T) {
	eng, pm := waitingDrafts(t)
	ctx := context.Background()
	auth := bufferedDraft(t, eng, pm, "auth/refresh.go")
	var draft wire.QueryResult
	if err := json.Unmarshal(auth.Draft, &draft); err != nil || len(draft.ContextRefs) == 0 {
		t.Fatalf("draft %s (%v); want one with references", auth.Draft, err)
	}
	denyAuthFolder(t, eng)
	if err := eng.Answer(ctx, agent.AnswerRequest{QueryID: auth.ID, Text: draft.Summary + " More on Friday."}); err != nil {
		t.Fatal(err)
	}
	var got wire.QueryResult
	eventually(t, 10*time.Second, "pm receives the owner's answer", func() bool {
		msgs, err := pm.Messages(ctx, agent.MessagesRequest{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Event == wire.EventQueryCompleted {
				return json.Unmarshal(m.Data, &got) == nil
			}
		}
		return false
	})
	if !strings.Contains(got.Summary, "More on Friday.") {
		t.Errorf("pm's answer %q; want the owner's words", got.Summary)
	}
	for _, r := range got.ContextRefs {
		t.Errorf("pm received the draft's reference %+v, drawn from a folder it may no longer read", r)
	}
}
