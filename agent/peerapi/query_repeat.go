package peerapi

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// repeatedQuery answers a question asked again (same caller, JSON-RPC id,
// text, scope and priority within rpc.ReplayWindow) with the question it
// repeats. The peer server answers a repeat from memory, which a restart
// empties; a retry whose first answer was lost would otherwise put the
// question in front of the owner twice, ringing twice. ok is false for a
// new question.
func (a *API) repeatedQuery(ctx context.Context, call *rpc.Call, p wire.QueryParams) (res wire.QueryResult, ok bool, err error) {
	q, found, err := a.DB.QueryByRequest(ctx, p.From, IDString(call.ID), a.Now().Add(-rpc.ReplayWindow))
	if err != nil || !found || q.Text != p.Query || q.Priority != p.Priority || !slices.Equal(q.ContextScope, p.ContextScope) {
		return res, false, err
	}
	err = a.DB.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit(p.From, call.Method, "repeated", map[string]any{"query_id": q.ID, "state": q.State})
		return err
	})
	if err != nil {
		return res, false, err
	}
	call.MarkAudited()
	return repeatResult(q, p.Async), true, nil
}

// repeatResult is what the first asking was told: the secretary's answer
// when it answered at once, else where the question stands now.
func repeatResult(q store.QueryRecord, async bool) wire.QueryResult {
	if q.Decision == DecisionAutoRespond && !async && len(q.Answer) > 0 {
		var res wire.QueryResult
		if json.Unmarshal(q.Answer, &res) == nil {
			res.Completed = true
			res.Metadata = inbox.WithMeta(res.Metadata, "query_id", q.ID)
			return res
		}
	}
	return wire.QueryResult{Summary: pendingSummary(q.State), Completed: false,
		Metadata: map[string]any{"query_id": q.ID, "state": q.State}}
}
