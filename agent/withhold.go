package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/agent/outbox"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// withholdAnswer is the outbox's last look at a queued answer before it
// goes: an answer the secretary drew from its mirror (an automatic answer
// to an asynchronous question, or a released draft) waits in the outbox
// while its asker is offline, and the owner may meanwhile have taken the
// asker's access to what it quotes away. It goes only if the ACL in force
// now still lets the asker read the scope it asked about and every source
// the draft was drawn from, as a release checks (unsendable); otherwise it
// is kept back and the question goes back to the owner's Queries pane,
// its draft kept, where they may answer it in their own words or decline
// it. An answer in the owner's own words goes as they wrote it.
func (c *Core) withholdAnswer(ctx context.Context, e store.OutboxRecord) outbox.Withholding {
	q, ok := c.queuedDraftAnswer(ctx, e)
	if !ok {
		return outbox.Withholding{}
	}
	why, _ := c.unsendable(q)
	if why == "" {
		return outbox.Withholding{}
	}
	return outbox.Withholding{Why: why,
		Also: func(tx *store.Tx) error { return tx.ReopenQuery(q.ID, inbox.Escalated) },
		Then: func() { c.answerWithheld(q, why) }}
}

// queuedDraftAnswer is the received question whose answer e carries, when
// that answer is the secretary's draft, sent by itself or released: it
// carries the secretary's confidence, which an answer the owner wrote
// (even keeping the draft's words) does not.
func (c *Core) queuedDraftAnswer(ctx context.Context, e store.OutboxRecord) (store.QueryRecord, bool) {
	if e.Method != wire.MethodNotify {
		return store.QueryRecord{}, false
	}
	var p wire.NotifyParams
	var sent wire.QueryResult
	if json.Unmarshal(e.Params, &p) != nil || p.Event != wire.EventQueryCompleted || json.Unmarshal(p.Data, &sent) != nil {
		return store.QueryRecord{}, false
	}
	id, _ := sent.Metadata["query_id"].(string)
	q, found, err := c.db.Query(ctx, id)
	if err != nil || !found || q.State != inbox.Answered {
		return store.QueryRecord{}, false
	}
	_, drafted := sent.Metadata[wire.MetaConfidence]
	return q, drafted
}

// answerWithheld tells the owner that the answer to q was kept from its
// asker, why, and where the question now waits.
func (c *Core) answerWithheld(q store.QueryRecord, why string) {
	c.events.Publish(EventQueryUpdated, q.ID, q.From, inbox.Escalated)
	c.events.Publish(EventAttention, q.ID, q.From, fmt.Sprintf("the secretary's answer to %s was kept back as it was about to go: %s; "+
		"the question is back in your Queries pane, to answer in your own words or decline", q.From, why))
}
