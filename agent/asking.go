package agent

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// Ask sends an ad hoc query to a peer and records it so the answer that
// arrives later can be matched by its request id.
func (c *Core) Ask(ctx context.Context, req AskRequest) (AskResult, error) {
	if strings.TrimSpace(req.Query) == "" {
		return AskResult{}, errs.Invalid("ask: the question is empty")
	}
	client, err := c.peers.Client(ctx, req.To)
	if err != nil {
		return AskResult{}, err
	}
	id := newID("ask")
	params := wire.QueryParams{From: c.selfID(), To: req.To, Query: req.Query, ContextScope: req.ContextScope,
		Priority: req.Priority, Async: req.Async, Timeout: req.TimeoutSec}
	if params.ContextScope == nil {
		params.ContextScope = []string{}
	}
	var raw json.RawMessage
	if err := c.db.Write(ctx, func(tx *store.Tx) error {
		return tx.InsertAsk(store.AskRecord{RequestID: id, To: req.To, Text: req.Query, SentAt: c.now()})
	}); err != nil {
		return AskResult{}, err
	}
	callCtx := ctx
	if req.TimeoutSec > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutSec)*time.Second)
		defer cancel()
	}
	if err := client.CallWithID(callCtx, id, wire.MethodQuery, params, &raw); err != nil {
		return AskResult{QueryID: id}, c.peers.Failed(ctx, req.To, err)
	}
	return AskResult{QueryID: id, Result: raw}, nil
}

// RequestTask asks a peer to run one of its configured task types. The
// request id is kept so the task.completed notify can be matched.
func (c *Core) RequestTask(ctx context.Context, req TaskRequest) (TaskTicket, error) {
	client, err := c.peers.Client(ctx, req.To)
	if err != nil {
		return TaskTicket{}, err
	}
	params := wire.TaskExecuteParams{From: c.selfID(), To: req.To, TaskType: req.TaskType,
		TaskParams: map[string]any{}, ContextScope: req.ContextScope, Timeout: req.TimeoutSec}
	for k, v := range req.Params {
		params.TaskParams[k] = v
	}
	if params.ContextScope == nil {
		params.ContextScope = []string{}
	}
	async := !req.Sync
	params.Async = &async
	callCtx := ctx
	if req.Sync && req.TimeoutSec > 0 { // leave room for the peer's own timeout answer
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutSec+10)*time.Second)
		defer cancel()
	}
	id := newID("task-req")
	var res wire.TaskExecuteResult
	if err := client.CallWithID(callCtx, id, wire.MethodTaskExecute, params, &res); err != nil {
		return TaskTicket{RequestID: id}, c.peers.Failed(ctx, req.To, err)
	}
	return TaskTicket{RequestID: id, TaskID: res.TaskID, Status: res.Status, Result: mustJSON(res)}, nil
}

// RemoteTaskStatus asks a peer about a task it runs for us.
func (c *Core) RemoteTaskStatus(ctx context.Context, ref RemoteTaskRef) (Task, error) {
	var res wire.TaskExecuteResult
	if err := c.callPeer(ctx, ref.Peer, wire.MethodTaskStatus, wire.TaskRef{From: c.selfID(), TaskID: ref.TaskID}, &res); err != nil {
		return Task{}, err
	}
	return Task{ID: res.TaskID, Requester: c.selfID(), Type: res.TaskType, State: res.Status, Output: res.Output,
		Error: res.Error, CreatedAt: res.CreatedAt, UpdatedAt: res.UpdatedAt}, nil
}

// CancelRemoteTask asks a peer to cancel a task it runs for us.
func (c *Core) CancelRemoteTask(ctx context.Context, ref RemoteTaskRef) error {
	var res json.RawMessage
	return c.callPeer(ctx, ref.Peer, wire.MethodTaskCancel, wire.TaskRef{From: c.selfID(), TaskID: ref.TaskID}, &res)
}

// callPeer makes one call to a peer with the configured timeout.
func (c *Core) callPeer(ctx context.Context, peer, method string, params, result any) error {
	client, err := c.peers.Client(ctx, peer)
	if err != nil {
		return err
	}
	if err := client.Call(ctx, method, params, result); err != nil {
		return c.peers.Failed(ctx, peer, err)
	}
	return nil
}
