package peerapi

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aoi-protocol/aoi/agent/inbox"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// repeatedQuery answers a question asked again (same caller, JSON-RPC id,
// text, scope and priority within rpc.ReplayWindow) with the question it
// repeats. The peer server answers a repeat from memory, which a restart
// empties; a retry whose first answer was lost would otherwise put the
// question in front of the owner twice, ringing twice. Only questions
// received before this process served its first can be such repeats, so
// they are read once (earlierQuestions) and a new question costs a map
// lookup. ok is false for a new question.
func (a *API) repeatedQuery(ctx context.Context, call *rpc.Call, p wire.QueryParams) (res wire.QueryResult, ok bool, err error) {
	now := a.Now()
	id, known, err := a.earlier.lookup(ctx, a.DB, now, store.QueryRequest{From: p.From, RequestID: IDString(call.ID)})
	if err != nil || !known {
		return res, false, err
	}
	q, found, err := a.DB.Query(ctx, id)
	if err != nil || !found || q.ReceivedAt.Before(now.Add(-rpc.ReplayWindow)) ||
		q.Text != p.Query || q.Priority != p.Priority || !slices.Equal(q.ContextScope, p.ContextScope) {
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

// earlierQuestions holds the questions received in the rpc.ReplayWindow
// before this process served its first: the repeats the peer server's
// memory cannot know. They are read at the first question (again at the
// next, if that read failed) and forgotten once the window has passed.
type earlierQuestions struct {
	mu   sync.Mutex
	read atomic.Pointer[earlierRead]
}

// earlierRead is one reading of the earlier questions.
type earlierRead struct {
	at  time.Time
	ids map[store.QueryRequest]string
}

// lookup returns the query id a question received before now had under
// req, if it came within the window.
func (e *earlierQuestions) lookup(ctx context.Context, db *store.DB, now time.Time, req store.QueryRequest) (string, bool, error) {
	r := e.read.Load()
	if r == nil {
		var err error
		if r, err = e.load(ctx, db, now); err != nil {
			return "", false, err
		}
	}
	if now.Sub(r.at) > rpc.ReplayWindow {
		if r.ids != nil {
			e.read.Store(&earlierRead{at: r.at}) // let the map go
		}
		return "", false, nil
	}
	id, ok := r.ids[req]
	return id, ok, nil
}

// load reads the earlier questions once.
func (e *earlierQuestions) load(ctx context.Context, db *store.DB, now time.Time) (*earlierRead, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.read.Load(); r != nil {
		return r, nil
	}
	ids, err := db.QueryRequestsSince(ctx, now.Add(-rpc.ReplayWindow))
	if err != nil {
		return nil, err
	}
	r := &earlierRead{at: now, ids: ids}
	e.read.Store(r)
	return r, nil
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
