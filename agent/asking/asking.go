// Package asking is what this agent asks of its peers: the outgoing Ask
// (aoi.query) and remote tasks (aoi.task.execute, aoi.task.status,
// aoi.task.cancel). Like agent/task's Engine it gets what it needs as
// fields and holds no pointer back to the core; the core's AskingService
// methods delegate here (agent/asking.go).
package asking

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/outbox"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/service"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/internal/termtext"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// Asker sends this agent's questions and task requests to peers. Set the
// fields before use.
type Asker struct {
	DB    *store.DB
	Peers *peers.Registry // the peer clients; Failed marks an unreachable peer offline
	Now   func() time.Time
	// Self is this agent's id (the From of every call; reloads apply).
	Self func() string
	// Redact removes secrets from what is sent and kept: the owner's
	// question and task parameters (nil leaves them as they are). What a
	// peer answers goes through it too before a front end shows it.
	Redact func(string) string
	// RedactJSON is Redact for a peer's JSON answer: it keeps the
	// document valid (nil leaves it as it is).
	RedactJSON func([]byte) []byte
	// Outbox takes a question for a peer that cannot be reached, and
	// QueueExpiry says how long it keeps trying (nil: such a question
	// fails instead).
	Outbox      *outbox.Outbox
	QueueExpiry func() time.Duration
}

// redact is Redact, when there is one.
func (a *Asker) redact(s string) string {
	if a.Redact == nil {
		return s
	}
	return a.Redact(s)
}

// redactAnswer is RedactJSON, when there is one, over the answer as it
// will be shown: every string in it is sanitised first (escape sequences,
// controls, invisible marks removed), so a secret split by one of them,
// which the front end would join up again, is seen whole and redacted.
func (a *Asker) redactAnswer(raw json.RawMessage) json.RawMessage {
	if a.RedactJSON == nil || len(raw) == 0 {
		return raw
	}
	return a.RedactJSON(shownJSON(raw))
}

// shownJSON is raw with every string and key as a reader would see it
// (termtext.VisibleMultiline); raw as it is when it is not JSON (the
// redactor still sees it).
func shownJSON(raw json.RawMessage) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return raw
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(shown(v)) != nil {
		return raw
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func shown(v any) any {
	switch x := v.(type) {
	case string:
		return termtext.VisibleMultiline(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[termtext.Visible(k)] = shown(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = shown(e)
		}
	}
	return v
}

// failed is Peers.Failed with the peer's own words redacted: a peer that
// echoes a secret in its error does not put it on the owner's screen. The
// JSON-RPC error's message and data (any shape: data may be a bare
// string, which is its reason) are redacted and kept on one line, and the
// whole error's text is redacted too, for what a transport error quotes
// (a mismatched id, an HTTP body). The error still unwraps to what it
// was, so its code and kind keep deciding exit codes and offline marks.
func (a *Asker) failed(ctx context.Context, peer string, err error) error {
	var re *rpc.Error
	if errors.As(err, &re) {
		re.Message = a.peerText(re.Message)
		re.Data = a.redactData(re.Data)
	}
	out := a.Peers.Failed(ctx, peer, err)
	return &redactedError{text: a.peerText(out.Error()), err: out}
}

// peerText is one line of a peer's prose as it will be shown, redacted:
// sanitised first, so a secret split by an escape sequence or an
// invisible mark (which the display would drop) is redacted whole.
func (a *Asker) peerText(s string) string {
	return a.redact(termtext.Visible(s))
}

// redactData redacts every string in an error's data, however nested.
func (a *Asker) redactData(v any) any {
	switch d := v.(type) {
	case string:
		return a.peerText(d)
	case map[string]any:
		for k, x := range d {
			d[k] = a.redactData(x)
		}
	case []any:
		for i, x := range d {
			d[i] = a.redactData(x)
		}
	}
	return v
}

// redactedError shows a redacted text and unwraps to the error it stands
// for.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// decodeAnswer redacts a peer's JSON answer, then decodes it into v, so
// every field a front end prints (ids and states too) is redacted.
func (a *Asker) decodeAnswer(raw json.RawMessage, v any) error {
	if err := json.Unmarshal(a.redactAnswer(raw), v); err != nil {
		return fmt.Errorf("the peer's answer is not what aoi expects (%v); check that both sides run compatible aoi versions", err)
	}
	return nil
}

// Ask sends an ad hoc query to a peer and records it so the answer that
// arrives later can be matched by its request id.
func (a *Asker) Ask(ctx context.Context, req service.AskRequest) (service.AskResult, error) {
	if strings.TrimSpace(req.Query) == "" {
		return service.AskResult{}, errs.Invalid("ask: the question is empty")
	}
	client, err := a.Peers.Client(ctx, req.To)
	if err != nil {
		return service.AskResult{}, err
	}
	id := wire.NewID("ask")
	req.Query = a.redact(req.Query) // a pasted key goes neither out nor into the asks table
	params := wire.QueryParams{From: a.Self(), To: req.To, Query: req.Query, ContextScope: wire.CleanScope(req.ContextScope),
		Priority: req.Priority, Async: req.Async, Timeout: req.TimeoutSec}
	if params.ContextScope == nil {
		params.ContextScope = []string{}
	}
	var raw json.RawMessage
	if err := a.DB.Write(ctx, func(tx *store.Tx) error {
		return tx.InsertAsk(store.AskRecord{RequestID: id, To: req.To, Text: req.Query, SentAt: a.Now()})
	}); err != nil {
		return service.AskResult{}, err
	}
	callCtx := ctx
	if req.TimeoutSec > 0 {
		var cancel context.CancelFunc
		callCtx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutSec)*time.Second)
		defer cancel()
	}
	if err := client.CallWithID(callCtx, id, wire.MethodQuery, params, &raw); err != nil {
		if a.Outbox != nil && peers.NotDialed(err) {
			return a.queueQuery(ctx, id, params, err)
		}
		err = a.failed(ctx, req.To, err)
		a.settle(ctx, id, map[string]string{"error": err.Error()})
		return service.AskResult{QueryID: id}, err
	}
	res := a.redactAnswer(raw)
	a.settle(ctx, id, res) // "completed": answered now, or waiting for the notify
	a.keepAnswer(ctx, id, req.To, res)
	return service.AskResult{QueryID: id, Result: res}, nil
}

// keepAnswer files an answer that came back at once in the inbox, beside
// those that come later as a query.completed notify, marked read (the
// asker has it in hand): the walk found `aoi query`'s answers nowhere
// after they scrolled away. It is bookkeeping, as settle is.
func (a *Asker) keepAnswer(ctx context.Context, id, from string, res json.RawMessage) {
	var r struct {
		Completed bool `json:"completed"`
	}
	if json.Unmarshal(res, &r) != nil || !r.Completed {
		return
	}
	_ = a.DB.Write(context.WithoutCancel(ctx), func(tx *store.Tx) error {
		_, _, err := tx.InsertMessage(store.MessageRecord{From: from, Event: wire.EventQueryCompleted, RelatedID: id, Data: res, Read: true})
		return err
	})
}

// queue keeps a question for a peer that could not be dialed (its machine
// asleep, aoi stopped) in the outbox, which sends it when the peer is back,
// as an async question: its answer arrives as a query.completed notify
// like any other. Only a question that never left is queued; one whose
// connection dropped mid-way may have arrived, and fails as before.
func (a *Asker) queueQuery(ctx context.Context, id string, params wire.QueryParams, cause error) (service.AskResult, error) {
	params.Async = true
	until, err := a.queue(ctx, id, params.To, wire.MethodQuery, params, cause)
	if err != nil {
		return service.AskResult{QueryID: id}, err
	}
	res := wire.MustJSON(wire.QueryResult{Completed: false, Metadata: map[string]any{"state": service.AskQueued},
		Summary: fmt.Sprintf("%s is offline: the question is queued and goes out when %s is back (tried until %s); the answer arrives like any other",
			params.To, params.To, until.Local().Format("Jan 2 15:04"))})
	a.settle(ctx, id, res) // waiting, as an async question is
	return service.AskResult{QueryID: id, Result: res}, nil
}

// queueTask is queueQuery for a task request (not one asked with --sync,
// whose asker waits for it): the walk's `:task` to a stopped peer failed
// where a question was queued.
func (a *Asker) queueTask(ctx context.Context, id string, params wire.TaskExecuteParams, cause error) (service.TaskTicket, error) {
	until, err := a.queue(ctx, id, params.To, wire.MethodTaskExecute, params, cause)
	if err != nil {
		return service.TaskTicket{RequestID: id}, err
	}
	res := wire.MustJSON(map[string]any{"status": service.AskQueued,
		"message": fmt.Sprintf("%s is offline: the request is queued and goes out when %s is back (tried until %s); the result arrives like any other",
			params.To, params.To, until.Local().Format("Jan 2 15:04"))})
	a.settle(ctx, id, map[string]any{"completed": false, "status": service.AskQueued})
	return service.TaskTicket{RequestID: id, Status: service.AskQueued, Result: res}, nil
}

// queue stores a call to a peer that could not be dialed in the outbox,
// marks the peer offline and wakes the outbox; it returns when the outbox
// gives up.
func (a *Asker) queue(ctx context.Context, id, to, method string, params any, cause error) (time.Time, error) {
	_ = a.Peers.Failed(ctx, to, cause) // marks it offline
	now := a.Now()
	entry := store.OutboxRecord{ID: id, To: to, Method: method, Params: wire.MustJSON(params),
		NextAttemptAt: now.Add(time.Second), CreatedAt: now, ExpiresAt: now.Add(a.QueueExpiry())}
	if err := a.DB.Write(ctx, func(tx *store.Tx) error { return tx.EnqueueOutbox(entry) }); err != nil {
		a.settle(ctx, id, map[string]string{"error": err.Error()})
		return time.Time{}, err
	}
	a.Outbox.Wake()
	return entry.ExpiresAt, nil
}

// settle records how the call of an ask went (its immediate result, or
// why it failed), which tells what is still waiting for an answer
// (store.WaitingAsks). It is bookkeeping: a failure to record is logged by
// the writer, not the caller's problem.
func (a *Asker) settle(ctx context.Context, id string, outcome any) {
	raw, err := json.Marshal(outcome)
	if err != nil {
		return
	}
	_ = a.DB.Write(context.WithoutCancel(ctx), func(tx *store.Tx) error { return tx.SetAskResult(id, raw) })
}

// taskEnded reports whether a task status is final: the request needs no
// more answer.
func taskEnded(status string) bool {
	switch status {
	case "completed", "failed", "rejected", "expired", "canceled":
		return true
	}
	return false
}

// RequestTask asks a peer to run one of its configured task types. The
// request id is recorded so the task.completed notify can be matched.
func (a *Asker) RequestTask(ctx context.Context, req service.TaskRequest) (service.TaskTicket, error) {
	client, err := a.Peers.Client(ctx, req.To)
	if err != nil {
		return service.TaskTicket{}, err
	}
	if err := a.checkTaskParams(ctx, req); err != nil {
		return service.TaskTicket{}, err
	}
	params := wire.TaskExecuteParams{From: a.Self(), To: req.To, TaskType: req.TaskType,
		TaskParams: map[string]any{}, ContextScope: wire.CleanScope(req.ContextScope), Timeout: req.TimeoutSec}
	for k, v := range req.Params {
		params.TaskParams[k] = a.redact(v)
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
	id := wire.NewID("task-req")
	// Recorded like a question, so the task.completed / task.failed notify
	// that answers it is let in (and matched) by its request id.
	if err := a.DB.Write(ctx, func(tx *store.Tx) error {
		return tx.InsertAsk(store.AskRecord{RequestID: id, To: req.To, Text: req.Label(), SentAt: a.Now()})
	}); err != nil {
		return service.TaskTicket{}, err
	}
	var raw json.RawMessage
	if err := client.CallWithID(callCtx, id, wire.MethodTaskExecute, params, &raw); err != nil {
		if a.Outbox != nil && !req.Sync && !req.NoQueue && peers.NotDialed(err) {
			return a.queueTask(ctx, id, params, err)
		}
		err = a.failed(ctx, req.To, err)
		a.settle(ctx, id, map[string]string{"error": err.Error()})
		return service.TaskTicket{RequestID: id}, err
	}
	var res wire.TaskExecuteResult
	if err := a.decodeAnswer(raw, &res); err != nil {
		a.settle(ctx, id, map[string]string{"error": err.Error()})
		return service.TaskTicket{RequestID: id}, err
	}
	a.settle(ctx, id, map[string]any{"completed": taskEnded(res.Status), "task_id": res.TaskID, "status": res.Status})
	return service.TaskTicket{RequestID: id, TaskID: res.TaskID, Status: res.Status, Result: wire.MustJSON(res)}, nil
}

// checkTaskParams refuses, before anything is sent or queued, a request
// the peer would refuse by the parameters it last said the task type
// takes (peers.Peer.TaskRequestProblem): a wrong value is then said at
// once, even to a peer that is offline, not after a round trip.
func (a *Asker) checkTaskParams(ctx context.Context, req service.TaskRequest) error {
	rec, found, err := a.DB.Peer(ctx, req.To)
	if err != nil || !found {
		return nil // the call says what is wrong with the peer
	}
	if problem := a.Peers.View(rec).TaskRequestProblem(req.TaskType, req.Params); problem != "" {
		return errs.Invalid("%s — by what %s last announced; `aoi discover` asks again", problem, req.To)
	}
	return nil
}

// RemoteTaskStatus asks a peer about a task it runs for us.
func (a *Asker) RemoteTaskStatus(ctx context.Context, ref service.RemoteTaskRef) (service.Task, error) {
	var raw json.RawMessage
	if err := a.callPeer(ctx, ref.Peer, wire.MethodTaskStatus, wire.TaskRef{From: a.Self(), TaskID: ref.TaskID}, &raw); err != nil {
		return service.Task{}, err
	}
	var res wire.TaskExecuteResult
	if err := a.decodeAnswer(raw, &res); err != nil {
		return service.Task{}, err
	}
	return service.Task{ID: res.TaskID, Requester: a.Self(), Type: res.TaskType, State: res.Status, Output: res.Output,
		Error: res.Error, CreatedAt: res.CreatedAt, UpdatedAt: res.UpdatedAt}, nil
}

// CancelRemoteTask asks a peer to cancel a task it runs for us.
func (a *Asker) CancelRemoteTask(ctx context.Context, ref service.RemoteTaskRef) error {
	var res json.RawMessage
	return a.callPeer(ctx, ref.Peer, wire.MethodTaskCancel, wire.TaskRef{From: a.Self(), TaskID: ref.TaskID}, &res)
}

// callPeer makes one call to a peer with the configured timeout.
func (a *Asker) callPeer(ctx context.Context, peer, method string, params, result any) error {
	client, err := a.Peers.Client(ctx, peer)
	if err != nil {
		return err
	}
	if err := client.Call(ctx, method, params, result); err != nil {
		return a.failed(ctx, peer, err)
	}
	return nil
}
