package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/rpc"
)

// serveControl serves svc's ctl.* methods on the real control socket of
// dataDir until the returned stop function is called.
func serveControl(t *testing.T, dataDir string, svc agent.Service) (stop func()) {
	t.Helper()
	srv := rpc.NewServer(rpc.Options{Identify: rpc.UnixIdentify})
	agent.RegisterControl(srv, svc)
	return serveSocket(t, dataDir, srv)
}

// serveSocket serves srv on the real control socket of dataDir until
// the returned stop function is called.
func serveSocket(t *testing.T, dataDir string, srv *rpc.Server) (stop func()) {
	t.Helper()
	ln, err := rpc.ListenUnix(agent.SocketPath(dataDir))
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ConnContext: rpc.UnixConnContext, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); hs.Serve(ln) }()
	var once sync.Once
	// stop ends the server the way a daemon's exit does: every
	// connection closes, including a long poll in flight (a graceful
	// Shutdown would leave that poll waiting out its 20 s on the old
	// server).
	stop = func() {
		once.Do(func() {
			hs.Close()
			<-done
		})
	}
	t.Cleanup(stop)
	return stop
}

func dial(t *testing.T, dataDir string) *ctlclient.Client {
	t.Helper()
	c, err := ctlclient.Dial(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestControlMethodsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	d := newServiceDouble()
	serveControl(t, dir, d)
	c := dial(t, dir)
	ctx := context.Background()

	for _, tc := range roundTripCases() {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.call(ctx, c)
			if err != nil {
				t.Fatalf("call: %v", err)
			}
			if tc.want != nil && !reflect.DeepEqual(got, tc.want) {
				t.Errorf("result:\n got %#v\nwant %#v", got, tc.want)
			}
			if rec := d.lastCall(); rec != tc.recorded {
				t.Errorf("the service saw %q, want %q", rec, tc.recorded)
			}
		})
	}
}

type roundTripCase struct {
	name     string
	call     func(context.Context, agent.Service) (any, error)
	want     any    // nil: only the recorded call is checked
	recorded string // what the double saw, as "Method args"
}

func roundTripCases() []roundTripCase {
	d := newServiceDouble() // only for the canned values
	return []roundTripCase{
		{"status", func(ctx context.Context, s agent.Service) (any, error) { return s.Status(ctx) }, d.status, "Status"},
		{"peers", func(ctx context.Context, s agent.Service) (any, error) { return s.Peers(ctx) }, d.peers, "Peers"},
		{"discover", func(ctx context.Context, s agent.Service) (any, error) { return s.Discover(ctx) }, d.peers, "Discover"},
		{"trust", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.Trust(ctx, agent.TrustRequest{AgentID: "pm-tanaka", Fingerprint: "ab12", Endpoint: "127.0.0.1:8444"})
		}, nil, "Trust pm-tanaka ab12 127.0.0.1:8444"},
		{"refuse", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.Refuse(ctx, agent.RefuseRequest{Fingerprint: "cd34"})
		}, nil, "Refuse cd34"},
		{"ask", func(ctx context.Context, s agent.Service) (any, error) {
			return s.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "認証の進捗は？", ContextScope: []string{"acme/webapp", "acme/api"}, Priority: "high", Async: true})
		}, d.askResult, "Ask eng-suzuki 認証の進捗は？ [acme/webapp acme/api] high true"},
		{"queries", func(ctx context.Context, s agent.Service) (any, error) {
			return s.Queries(ctx, agent.QueryFilter{State: agent.QueryEscalated, Limit: 7})
		}, d.queries, "Queries escalated 7"},
		{"answer", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.Answer(ctx, agent.AnswerRequest{QueryID: "q1", Text: "JWT done"})
		}, nil, "Answer q1 JWT done"},
		{"decline", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.Decline(ctx, agent.DeclineRequest{QueryID: "q2", Reason: "not mine"})
		}, nil, "Decline q2 not mine"},
		{"release one", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.Release(ctx, agent.ReleaseRequest{QueryID: "q3"})
		}, nil, "Release q3"},
		{"release all", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.Release(ctx, agent.ReleaseRequest{})
		}, nil, "Release "},
		{"focus on", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.SetFocus(ctx, agent.FocusRequest{On: true})
		}, nil, "SetFocus true"},
		{"focus off", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.SetFocus(ctx, agent.FocusRequest{})
		}, nil, "SetFocus false"},
		{"messages", func(ctx context.Context, s agent.Service) (any, error) {
			return s.Messages(ctx, agent.MessagesRequest{AfterSeq: 41, Limit: 3})
		}, d.messages, "Messages 41 3"},
		{"mark read", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.MarkMessagesRead(ctx, agent.MarkReadRequest{UptoSeq: 44})
		}, nil, "MarkMessagesRead 44"},
		{"send message", func(ctx context.Context, s agent.Service) (any, error) {
			return s.SendMessage(ctx, agent.SendMessageRequest{To: "eng-suzuki", Type: "task_assign", TaskID: "T-1", Payload: json.RawMessage(`{"description":"auth"}`)})
		}, d.sent, `SendMessage eng-suzuki task_assign T-1 {"description":"auth"} 0`},
		{"inbox", func(ctx context.Context, s agent.Service) (any, error) {
			return s.Inbox(ctx, agent.InboxFilter{AfterSeq: 7, Type: "progress", TaskID: "T-1", Unread: true, Limit: 5, Assistant: true})
		}, d.inbox, "Inbox 7 progress T-1 true 5 true"},
		{"coord tasks", func(ctx context.Context, s agent.Service) (any, error) {
			return s.CoordTasks(ctx, agent.CoordTasksRequest{TaskID: "T-1"})
		}, d.coord, "CoordTasks T-1"},
		{"note", func(ctx context.Context, s agent.Service) (any, error) {
			return s.Note(ctx, agent.NoteRequest{Text: "refresh tokens 75%"})
		}, agent.NoteSaved{ID: 12}, "Note refresh tokens 75%"},
		{"notes", func(ctx context.Context, s agent.Service) (any, error) {
			return s.Notes(ctx, agent.NotesRequest{Limit: 5})
		}, []agent.Note{{ID: 7, Text: "spike on caching"}}, "Notes 5"},
		{"delete note", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.DeleteNote(ctx, agent.DeleteNoteRequest{ID: 7})
		}, nil, "DeleteNote 7"},
		{"prompt history", func(ctx context.Context, s agent.Service) (any, error) { return s.PromptHistory(ctx) },
			[]string{":focus on", "@pm-tanaka how is it going?"}, "PromptHistory"},
		{"remember prompt", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.RememberPrompt(ctx, agent.PromptLine{Line: ":release"})
		}, nil, "RememberPrompt :release"},
		{"outbox", func(ctx context.Context, s agent.Service) (any, error) { return s.Outbox(ctx) },
			[]agent.OutboxEntry{{ID: "m-1", To: "qa-ito", What: "message", Attempts: 3, Refused: true}}, "Outbox"},
		{"drop outbox", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.DropOutbox(ctx, agent.OutboxDropRequest{ID: "m-1"})
		}, nil, "DropOutbox m-1"},
		{"retry outbox", func(ctx context.Context, s agent.Service) (any, error) {
			return s.RetryOutbox(ctx, agent.OutboxRetryRequest{ID: "m-1"})
		}, agent.OutboxRetryResult{Entry: agent.OutboxEntry{ID: "m-1", To: "qa-ito", What: "message"}, Delivered: true}, "RetryOutbox m-1"},
		{"report event", func(ctx context.Context, s agent.Service) (any, error) {
			p := 40
			return nil, s.ReportEvent(ctx, agent.ReportedEvent{Type: "test.run", File: "auth.go", Content: "3 failed", Progress: &p})
		}, nil, "ReportEvent test.run auth.go 3 failed 40"},
		{"snapshot", func(ctx context.Context, s agent.Service) (any, error) {
			raw, err := s.Snapshot(ctx)
			return string(raw), err
		}, string(d.snapshot), "Snapshot"},
		{"task request", func(ctx context.Context, s agent.Service) (any, error) {
			return s.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "run_tests", Params: map[string]string{"suite": "./auth/..."}, Sync: true, TimeoutSec: 1})
		}, d.ticket, "RequestTask eng-suzuki run_tests map[suite:./auth/...] true 1"},
		{"task status", func(ctx context.Context, s agent.Service) (any, error) {
			return s.RemoteTaskStatus(ctx, agent.RemoteTaskRef{Peer: "eng-suzuki", TaskID: "t1"})
		}, d.task, "RemoteTaskStatus eng-suzuki t1"},
		{"task cancel", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.CancelRemoteTask(ctx, agent.RemoteTaskRef{Peer: "eng-suzuki", TaskID: "t1"})
		}, nil, "CancelRemoteTask eng-suzuki t1"},
		{"approvals", func(ctx context.Context, s agent.Service) (any, error) {
			return s.Approvals(ctx, agent.ApprovalFilter{State: "pending", Limit: 5})
		}, d.approvals, "Approvals pending 5"},
		{"approve", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.Approve(ctx, agent.ApproveRequest{ID: "a1"})
		}, nil, "Approve a1"},
		{"reject", func(ctx context.Context, s agent.Service) (any, error) {
			return nil, s.Reject(ctx, agent.RejectRequest{ID: "a2", Reason: "not now"})
		}, nil, "Reject a2 not now"},
		{"tasks", func(ctx context.Context, s agent.Service) (any, error) {
			return s.Tasks(ctx, agent.TaskFilter{State: agent.TaskCompleted, Limit: 2})
		}, []agent.Task{d.task}, "Tasks completed 2"},
		{"audit", func(ctx context.Context, s agent.Service) (any, error) {
			return s.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka", Method: "aoi.query", Result: "ok", BeforeSeq: 99, Limit: 10})
		}, d.audit, "Audit pm-tanaka aoi.query ok 99 10"},
		{"audit verify", func(ctx context.Context, s agent.Service) (any, error) { return s.VerifyAudit(ctx) }, d.verification, "VerifyAudit"},
		{"reload", func(ctx context.Context, s agent.Service) (any, error) { return s.Reload(ctx) }, reloadReport, "Reload"},
	}
}

func TestControlErrorsReachTheFrontEnd(t *testing.T) {
	dir := t.TempDir()
	d := newServiceDouble()
	serveControl(t, dir, d)
	c := dial(t, dir)
	ctx := context.Background()

	d.fail(errors.New("query q9 not found; list received queries with `aoi inbox`"))
	err := c.Answer(ctx, agent.AnswerRequest{QueryID: "q9", Text: "x"})
	var re *rpc.Error
	if !errors.As(err, &re) || re.Code != agent.CodeControlFailed {
		t.Fatalf("plain error: got %v, want *rpc.Error code %d", err, agent.CodeControlFailed)
	}
	if !strings.Contains(re.Reason(), "query q9 not found") {
		t.Errorf("the reason lost the service's words: %q", re.Reason())
	}

	d.fail(rpc.AgentNotFound("eng-nobody"))
	_, err = c.Ask(ctx, agent.AskRequest{To: "eng-nobody", Query: "hi"})
	if !errors.As(err, &re) || re.Code != rpc.CodeAgentNotFound {
		t.Fatalf("AOI error: got %v, want code %d", err, rpc.CodeAgentNotFound)
	}
}

func TestControlBadParamsNameTheField(t *testing.T) {
	dir := t.TempDir()
	serveControl(t, dir, newServiceDouble())
	hc := rpc.UnixHTTPClient(agent.SocketPath(dir))
	cl := rpc.NewClient(rpc.ControlURL, hc, rpc.ClientOptions{MaxAttempts: 1})
	err := cl.Call(context.Background(), agent.CtlFocus, map[string]any{"on": "yes"}, nil)
	var re *rpc.Error
	if !errors.As(err, &re) || re.Code != rpc.CodeInvalidParams || !strings.Contains(re.Reason(), "params.on") {
		t.Fatalf("got %v, want invalid params naming params.on", err)
	}
}

// TestControlParamNamesAreStable sends each ctl.* method the params the
// CLI, attach mode and `aoi mcp` of earlier versions send, as raw JSON,
// and checks the service receives every field: the request types'
// JSON names are the wire contract.
func TestControlParamNamesAreStable(t *testing.T) {
	dir := t.TempDir()
	d := newServiceDouble()
	serveControl(t, dir, d)
	hc := rpc.UnixHTTPClient(agent.SocketPath(dir))
	cl := rpc.NewClient(rpc.ControlURL, hc, rpc.ClientOptions{MaxAttempts: 1})
	for _, tc := range []struct{ method, params, recorded string }{
		{agent.CtlStatus, `{}`, "Status"},
		{agent.CtlTrust, `{"agent_id":"pm-tanaka","fingerprint":"ab12","endpoint":"127.0.0.1:8444"}`, "Trust pm-tanaka ab12 127.0.0.1:8444"},
		{agent.CtlRefuse, `{"fingerprint":"cd34"}`, "Refuse cd34"},
		{agent.CtlAsk, `{"to":"eng-suzuki","query":"q?","context_scope":["acme/api"],"priority":"high","async":true}`, "Ask eng-suzuki q? [acme/api] high true"},
		{agent.CtlQueries, `{"state":"escalated","limit":7}`, "Queries escalated 7"},
		{agent.CtlAnswer, `{"query_id":"q1","text":"JWT done"}`, "Answer q1 JWT done"},
		{agent.CtlDecline, `{"query_id":"q2","reason":"not mine"}`, "Decline q2 not mine"},
		{agent.CtlRelease, `{"query_id":""}`, "Release "},
		{agent.CtlFocus, `{"on":true}`, "SetFocus true"},
		{agent.CtlMessages, `{"after_seq":41,"limit":3}`, "Messages 41 3"},
		{agent.CtlMarkRead, `{"upto_seq":44}`, "MarkMessagesRead 44"},
		{agent.CtlSendMessage, `{"to":"eng-suzuki","type":"task_assign","task_id":"T-1","payload":{"a":1}}`, `SendMessage eng-suzuki task_assign T-1 {"a":1} 0`},
		{agent.CtlCoordTasks, `{"task_id":"T-1"}`, "CoordTasks T-1"},
		{agent.CtlNote, `{"text":"refresh tokens"}`, "Note refresh tokens"},
		{agent.CtlReportEvent, `{"type":"test.run","file_path":"auth.go","content":"3 failed","progress":40}`, "ReportEvent test.run auth.go 3 failed 40"},
		{agent.CtlTaskRequest, `{"to":"eng-suzuki","task_type":"run_tests","task_params":{"suite":"x"},"sync":true,"timeout":1}`, "RequestTask eng-suzuki run_tests map[suite:x] true 1"},
		{agent.CtlTaskStatus, `{"peer":"eng-suzuki","task_id":"t1"}`, "RemoteTaskStatus eng-suzuki t1"},
		{agent.CtlTaskCancel, `{"peer":"eng-suzuki","task_id":"t1"}`, "CancelRemoteTask eng-suzuki t1"},
		{agent.CtlApprovals, `{"state":"pending","limit":5}`, "Approvals pending 5"},
		{agent.CtlApprove, `{"id":"a1"}`, "Approve a1"},
		{agent.CtlReject, `{"id":"a2","reason":"not now"}`, "Reject a2 not now"},
		{agent.CtlTasks, `{"state":"completed","limit":2}`, "Tasks completed 2"},
		{agent.CtlAudit, `{"agent":"pm-tanaka","method":"aoi.query","result":"ok","before_seq":99,"limit":10}`, "Audit pm-tanaka aoi.query ok 99 10"},
	} {
		t.Run(tc.method, func(t *testing.T) {
			var res json.RawMessage
			if err := cl.Call(context.Background(), tc.method, json.RawMessage(tc.params), &res); err != nil {
				t.Fatalf("call: %v", err)
			}
			if rec := d.lastCall(); rec != tc.recorded {
				t.Errorf("the service saw %q, want %q", rec, tc.recorded)
			}
		})
	}
}

func TestDialWithoutDaemonSaysHowToStartOne(t *testing.T) {
	dir := t.TempDir()
	_, err := ctlclient.Dial(dir)
	if err == nil || !strings.Contains(err.Error(), "no agent is set up in "+dir) || !strings.Contains(err.Error(), "aoi init --data-dir "+dir) {
		t.Errorf("a data dir nobody set up: %v; want the aoi init advice", err)
	}
	if _, err := agent.Init(agent.InitOptions{DataDir: dir, AgentID: "eng-a", Role: "engineer"}); err != nil {
		t.Fatal(err)
	}
	_, err = ctlclient.Dial(dir)
	var nd *ctlclient.NoDaemonError
	if !errors.As(err, &nd) {
		t.Fatalf("got %v, want *NoDaemonError", err)
	}
	for _, want := range []string{"no aoi is running", dir, "aoi serve --data-dir " + dir, "run `aoi --data-dir " + dir + "` for the interface"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}

	// A stale socket file with nobody listening reads the same.
	ln, err := net.Listen("unix", agent.SocketPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := ctlclient.Dial(dir); !errors.As(err, &nd) {
		t.Fatalf("stale socket: got %v, want *NoDaemonError", err)
	}
}

// recv waits for the next event or fails the test.
func recv(t *testing.T, ch <-chan agent.Event) agent.Event {
	t.Helper()
	select {
	case ev, ok := <-ch:
		if !ok {
			t.Fatal("event channel closed early")
		}
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
	}
	return agent.Event{}
}

func TestEventsResumeBySeqAndSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	d := newServiceDouble()
	stop := serveControl(t, dir, d)
	c := dial(t, dir)
	for _, id := range []string{"q1", "q2", "q3"} {
		d.publish(agent.EventQueryReceived, id)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := c.Events(ctx, agent.EventsRequest{AfterSeq: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []int64{2, 3} {
		if ev := recv(t, events); ev.Seq != want {
			t.Fatalf("got seq %d (%s), want %d", ev.Seq, ev.ID, want)
		}
	}
	d.publish(agent.EventApprovalRequested, "a1")
	if ev := recv(t, events); ev.Seq != 4 || ev.ID != "a1" || ev.Kind != agent.EventApprovalRequested {
		t.Fatalf("live event: got %+v", ev)
	}

	// The daemon restarts: a new core numbers its events from 1 again.
	stop()
	d2 := newServiceDouble()
	serveControl(t, dir, d2)
	waitFor(t, func() bool { return d2.subscribers() > 0 })
	d2.publish(agent.EventTaskState, "t1")
	// The client may have seen the daemon gone (a poll failed) before it
	// came back; if so it says so, and says it is back before new events.
	ev := recv(t, events)
	if ev.Kind == agent.EventCoreDisconnected {
		if ev = recv(t, events); ev.Kind != agent.EventCoreReconnected {
			t.Fatalf("after core.disconnected: got %+v, want core.reconnected", ev)
		}
		ev = recv(t, events)
	}
	if ev.Seq != 1 || ev.ID != "t1" {
		t.Fatalf("after restart: got %+v, want seq 1 t1", ev)
	}

	cancel()
	for range events {
	}
}

// TestNewEventsStartWhenEventsReturns: asked for only new events, the
// control client's stream starts when Events returns, so events published
// right after (while a front end loads its data) are not lost to the
// daemon's later idea of "new" — also when the daemon had published
// nothing yet and reported 0 as its newest event (the client then resumes
// after 0 exactly).
func TestNewEventsStartWhenEventsReturns(t *testing.T) {
	for name, before := range map[string][]string{"older": {"old"}, "quiet": nil} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			d := newServiceDouble()
			serveControl(t, dir, d)
			c := dial(t, dir)
			for _, id := range before {
				d.publish(agent.EventQueryReceived, id)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			events, err := c.Events(ctx, agent.EventsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			d.publish(agent.EventQueryReceived, "q-first")
			d.publish(agent.EventQueryReceived, "q-second")
			for _, want := range []string{"q-first", "q-second"} {
				if ev := recv(t, events); ev.ID != want {
					t.Fatalf("got %+v, want %s, published right after Events returned", ev, want)
				}
			}
			cancel()
			for range events {
			}
		})
	}
}

// TestReconnectIsReportedAtOnce: a daemon that comes back having numbered
// its events up to exactly the client's cursor, with nothing more to say,
// is reported as reconnected as soon as it answers, not after a whole long
// poll (20 s) on the new core.
func TestReconnectIsReportedAtOnce(t *testing.T) {
	dir := t.TempDir()
	d := newServiceDouble()
	stop := serveControl(t, dir, d)
	c := dial(t, dir)
	d.publish(agent.EventQueryReceived, "q1")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events, err := c.Events(ctx, agent.EventsRequest{AfterSeq: 0})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return d.subscribers() > 0 })
	d.publish(agent.EventQueryReceived, "q2")
	if ev := recv(t, events); ev.ID != "q2" {
		t.Fatalf("got %+v, want q2", ev)
	}
	stop()
	if ev := recv(t, events); ev.Kind != agent.EventCoreDisconnected {
		t.Fatalf("after the daemon stopped: got %+v, want core.disconnected", ev)
	}
	d2 := newServiceDouble()
	for i := 0; i < 2; i++ { // numbered up to the client's cursor (2)
		d2.publish(agent.EventAudit, "a")
	}
	serveControl(t, dir, d2)
	start := time.Now()
	for {
		ev := recv(t, events)
		if ev.Kind == agent.EventCoreReconnected {
			break
		}
	}
	// The client's back-off between attempts is at most 5 s.
	if took := time.Since(start); took > 7*time.Second {
		t.Fatalf("core.reconnected came %v after the daemon was back", took)
	}
	cancel()
	for range events {
	}
}

func TestEventsLongPollWaitsAndCapsTheWait(t *testing.T) {
	dir := t.TempDir()
	d := newServiceDouble()
	serveControl(t, dir, d)
	cl := rpc.NewClient(rpc.ControlURL, rpc.UnixHTTPClient(agent.SocketPath(dir)), rpc.ClientOptions{MaxAttempts: 1})
	ctx := context.Background()

	start := time.Now()
	var res agent.CtlEventsResult
	if err := cl.Call(ctx, agent.CtlEvents, agent.CtlEventsParams{WaitMS: 200}, &res); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 190*time.Millisecond || len(res.Events) != 0 {
		t.Fatalf("empty poll returned after %v with %d events; want ~200ms and none", took, len(res.Events))
	}
	if res.LastSeq == nil || *res.LastSeq != 0 {
		t.Fatalf("last_seq = %v, want 0", res.LastSeq)
	}

	// An event published while the poll waits (subscribed) ends it.
	waitFor(t, func() bool { return d.subscribers() == 0 }) // the first poll has let go
	start = time.Now()
	errc := make(chan error, 1)
	go func() {
		errc <- cl.Call(ctx, agent.CtlEvents, agent.CtlEventsParams{AfterSeq: 0, WaitMS: 60_000}, &res)
	}()
	waitFor(t, func() bool { return d.subscribers() > 0 })
	d.publish(agent.EventMessageReceived, "m1")
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second || len(res.Events) != 1 || res.Events[0].ID != "m1" {
		t.Fatalf("poll returned %+v after %v; want m1 soon after it was published", res.Events, took)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// serviceDouble is a test double of agent.Service: it records each call as
// a line, returns canned values (in UTC, so they survive a JSON round trip
// unchanged) and keeps an in-memory event log numbered from 1.
type serviceDouble struct {
	status       agent.Status
	peers        []agent.Peer
	askResult    agent.AskResult
	queries      []agent.Query
	messages     []agent.Message
	snapshot     json.RawMessage
	ticket       agent.TaskTicket
	task         agent.Task
	approvals    []agent.Approval
	audit        []agent.AuditEntry
	verification agent.AuditVerification
	sent         agent.SentMessage
	inbox        agent.InboxPage
	coord        []agent.CoordTask

	mu      sync.Mutex
	calls   []string
	err     error // returned (once) by the next call
	events  []agent.Event
	changed chan struct{}
	subs    int
}

func newServiceDouble() *serviceDouble {
	at := time.Date(2026, 5, 1, 9, 30, 0, 0, time.UTC)
	exit := 0
	return &serviceDouble{
		status: agent.Status{AgentID: "eng-suzuki", Role: "engineer", Version: "1.0", Transport: "direct",
			ListenAddr: "127.0.0.1:8443", Fingerprint: "ab12", Focus: true, PeersOnline: 2, StartedAt: at, DataDir: "/d"},
		peers: []agent.Peer{{AgentID: "pm-tanaka", Role: "pm", Status: agent.PeerOnline, Trust: agent.TrustPinned,
			Contexts: []string{"acme/webapp"}, LastSeen: at}},
		askResult: agent.AskResult{QueryID: "q-1", Result: json.RawMessage(`{"summary":"JWT done","completed":false}`)},
		queries: []agent.Query{{ID: "q1", From: "pm-tanaka", Text: "進捗は？", Priority: "normal",
			State: agent.QueryEscalated, Confidence: 0.5, ReceivedAt: at}},
		sent: agent.SentMessage{ID: "m-1", To: "eng-suzuki", Type: "task_assign", TaskID: "T-1", ThreadID: "m-1", TaskState: "assigned", Note: "sent"},
		inbox: agent.InboxPage{LastID: 8, More: true, Messages: []agent.Message{{Seq: 8, MessageID: "m-2", From: "eng-suzuki", Event: "progress",
			Type: "progress", TaskID: "T-1", ThreadID: "m-1", Priority: "normal", Data: json.RawMessage(`{"status":"half"}`), ReceivedAt: at}}},
		coord: []agent.CoordTask{{TaskID: "T-1", Peer: "eng-suzuki", Side: "requester", State: "in_progress", CreatedAt: at, UpdatedAt: at}},
		messages: []agent.Message{{Seq: 42, From: "eng-suzuki", Event: "query.completed", RelatedID: "q-1",
			Data: json.RawMessage(`{"summary":"75%"}`), ReceivedAt: at}},
		snapshot: json.RawMessage(`{"focus_summary":"auth refresh tokens"}`),
		ticket:   agent.TaskTicket{RequestID: "r1", TaskID: "t1", Status: agent.TaskPending},
		task: agent.Task{ID: "t1", Requester: "pm-tanaka", Type: "run_tests", State: agent.TaskCompleted,
			ExitCode: &exit, CreatedAt: at, UpdatedAt: at},
		approvals: []agent.Approval{{ID: "a1", TaskID: "t1", Requester: "pm-tanaka", TaskType: "run_tests",
			State: "pending", CreatedAt: at, ExpiresAt: at.Add(time.Hour)}},
		audit: []agent.AuditEntry{{Seq: 98, Time: at, Agent: "pm-tanaka", Method: "aoi.query", Result: "ok",
			Detail: json.RawMessage(`{"id":"1"}`), PrevHash: "00", Hash: "11"}},
		verification: agent.AuditVerification{OK: false, Entries: 98, FirstBad: 17, Problem: "hash mismatch"},
		changed:      make(chan struct{}),
	}
}

// record notes a call and returns the pending injected error, if any.
func (d *serviceDouble) record(format string, args ...any) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	line := format
	for _, a := range args {
		line += " " + strings.TrimSpace(strings.Trim(fmtValue(a), " "))
	}
	d.calls = append(d.calls, line)
	err := d.err
	d.err = nil
	return err
}

func fmtValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case *int:
		if x == nil {
			return "<nil>"
		}
		return fmtValue(*x)
	default:
		b, _ := json.Marshal(x)
		if s := string(b); strings.HasPrefix(s, "[") {
			return strings.NewReplacer(`"`, "", ",", " ").Replace(s)
		}
		return strings.Trim(string(b), `"`)
	}
}

func (d *serviceDouble) lastCall() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.calls) == 0 {
		return ""
	}
	return d.calls[len(d.calls)-1]
}

func (d *serviceDouble) fail(err error) {
	d.mu.Lock()
	d.err = err
	d.mu.Unlock()
}

func (d *serviceDouble) publish(kind, id string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.events = append(d.events, agent.Event{Seq: int64(len(d.events) + 1), Kind: kind, ID: id,
		Time: time.Date(2026, 5, 1, 10, 0, len(d.events), 0, time.UTC)})
	close(d.changed)
	d.changed = make(chan struct{})
}

func (d *serviceDouble) subscribers() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.subs
}

// LastEventSeq implements agent.EventSequencer.
func (d *serviceDouble) LastEventSeq() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return int64(len(d.events))
}

func (d *serviceDouble) since(seq int64) ([]agent.Event, <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]agent.Event(nil), d.events[min(int(seq), len(d.events)):]...), d.changed
}

func (d *serviceDouble) Events(ctx context.Context, req agent.EventsRequest) (<-chan agent.Event, error) {
	afterSeq := req.AfterSeq
	if afterSeq <= 0 && !req.Exact {
		afterSeq = d.LastEventSeq()
	}
	d.mu.Lock()
	d.subs++
	d.mu.Unlock()
	out := make(chan agent.Event, 8)
	go func() {
		defer close(out)
		defer func() { d.mu.Lock(); d.subs--; d.mu.Unlock() }()
		cursor := afterSeq
		for {
			evs, changed := d.since(cursor)
			for _, ev := range evs {
				select {
				case out <- ev:
					cursor = ev.Seq
				case <-ctx.Done():
					return
				}
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

func (d *serviceDouble) Status(context.Context) (agent.Status, error) {
	return d.status, d.record("Status")
}
func (d *serviceDouble) Peers(context.Context) ([]agent.Peer, error) {
	return d.peers, d.record("Peers")
}
func (d *serviceDouble) Discover(context.Context) ([]agent.Peer, error) {
	return d.peers, d.record("Discover")
}
func (d *serviceDouble) Trust(_ context.Context, r agent.TrustRequest) error {
	return d.record("Trust", r.AgentID, r.Fingerprint, r.Endpoint)
}
func (d *serviceDouble) Refuse(_ context.Context, req agent.RefuseRequest) error {
	return d.record("Refuse", req.Fingerprint)
}
func (d *serviceDouble) Ask(_ context.Context, r agent.AskRequest) (agent.AskResult, error) {
	return d.askResult, d.record("Ask", r.To, r.Query, r.ContextScope, r.Priority, r.Async)
}
func (d *serviceDouble) Queries(_ context.Context, f agent.QueryFilter) ([]agent.Query, error) {
	return d.queries, d.record("Queries", f.State, f.Limit)
}
func (d *serviceDouble) Answer(_ context.Context, req agent.AnswerRequest) error {
	id, text := req.QueryID, req.Text
	return d.record("Answer", id, text)
}
func (d *serviceDouble) Decline(_ context.Context, req agent.DeclineRequest) error {
	id, reason := req.QueryID, req.Reason
	return d.record("Decline", id, reason)
}
func (d *serviceDouble) Release(_ context.Context, req agent.ReleaseRequest) error {
	return d.record("Release", req.QueryID)
}
func (d *serviceDouble) SetFocus(_ context.Context, req agent.FocusRequest) error {
	return d.record("SetFocus", req.On)
}
func (d *serviceDouble) Messages(_ context.Context, req agent.MessagesRequest) ([]agent.Message, error) {
	after, limit := req.AfterSeq, req.Limit
	return d.messages, d.record("Messages", after, limit)
}
func (d *serviceDouble) MarkMessagesRead(_ context.Context, req agent.MarkReadRequest) error {
	return d.record("MarkMessagesRead", req.UptoSeq)
}
func (d *serviceDouble) SendMessage(_ context.Context, r agent.SendMessageRequest) (agent.SentMessage, error) {
	return d.sent, d.record("SendMessage", r.To, r.Type, r.TaskID, string(r.Payload), r.Forward)
}
func (d *serviceDouble) Inbox(_ context.Context, f agent.InboxFilter) (agent.InboxPage, error) {
	return d.inbox, d.record("Inbox", f.AfterSeq, f.Type, f.TaskID, f.Unread, f.Limit, f.Assistant)
}
func (d *serviceDouble) CoordTasks(_ context.Context, req agent.CoordTasksRequest) ([]agent.CoordTask, error) {
	id := req.TaskID
	return d.coord, d.record("CoordTasks", id)
}
func (d *serviceDouble) Note(_ context.Context, req agent.NoteRequest) (agent.NoteSaved, error) {
	return agent.NoteSaved{ID: 12}, d.record("Note", req.Text)
}
func (d *serviceDouble) Notes(_ context.Context, req agent.NotesRequest) ([]agent.Note, error) {
	return []agent.Note{{ID: 7, Text: "spike on caching"}}, d.record("Notes", req.Limit)
}
func (d *serviceDouble) Outbox(context.Context) ([]agent.OutboxEntry, error) {
	return []agent.OutboxEntry{{ID: "m-1", To: "qa-ito", What: "message", Attempts: 3, Refused: true}}, d.record("Outbox")
}
func (d *serviceDouble) DropOutbox(_ context.Context, req agent.OutboxDropRequest) error {
	return d.record("DropOutbox", req.ID)
}
func (d *serviceDouble) RetryOutbox(_ context.Context, req agent.OutboxRetryRequest) (agent.OutboxRetryResult, error) {
	return agent.OutboxRetryResult{Entry: agent.OutboxEntry{ID: "m-1", To: "qa-ito", What: "message"}, Delivered: true}, d.record("RetryOutbox", req.ID)
}
func (d *serviceDouble) PromptHistory(context.Context) ([]string, error) {
	return []string{":focus on", "@pm-tanaka how is it going?"}, d.record("PromptHistory")
}
func (d *serviceDouble) RememberPrompt(_ context.Context, req agent.PromptLine) error {
	return d.record("RememberPrompt", req.Line)
}
func (d *serviceDouble) DeleteNote(_ context.Context, req agent.DeleteNoteRequest) error {
	return d.record("DeleteNote", req.ID)
}
func (d *serviceDouble) ReportEvent(_ context.Context, ev agent.ReportedEvent) error {
	return d.record("ReportEvent", ev.Type, ev.File, ev.Content, ev.Progress)
}
func (d *serviceDouble) Snapshot(context.Context) (json.RawMessage, error) {
	return d.snapshot, d.record("Snapshot")
}
func (d *serviceDouble) RequestTask(_ context.Context, r agent.TaskRequest) (agent.TaskTicket, error) {
	return d.ticket, d.record("RequestTask", r.To, r.TaskType, fmt.Sprint(r.Params), r.Sync, r.TimeoutSec)
}
func (d *serviceDouble) RemoteTaskStatus(_ context.Context, req agent.RemoteTaskRef) (agent.Task, error) {
	peer, id := req.Peer, req.TaskID
	return d.task, d.record("RemoteTaskStatus", peer, id)
}
func (d *serviceDouble) CancelRemoteTask(_ context.Context, req agent.RemoteTaskRef) error {
	peer, id := req.Peer, req.TaskID
	return d.record("CancelRemoteTask", peer, id)
}
func (d *serviceDouble) Approvals(_ context.Context, f agent.ApprovalFilter) ([]agent.Approval, error) {
	return d.approvals, d.record("Approvals", f.State, f.Limit)
}
func (d *serviceDouble) Approve(_ context.Context, req agent.ApproveRequest) error {
	return d.record("Approve", req.ID)
}
func (d *serviceDouble) Reject(_ context.Context, req agent.RejectRequest) error {
	id, reason := req.ID, req.Reason
	return d.record("Reject", id, reason)
}
func (d *serviceDouble) Tasks(_ context.Context, f agent.TaskFilter) ([]agent.Task, error) {
	return []agent.Task{d.task}, d.record("Tasks", f.State, f.Limit)
}
func (d *serviceDouble) Audit(_ context.Context, f agent.AuditFilter) ([]agent.AuditEntry, error) {
	return d.audit, d.record("Audit", f.Agent, f.Method, f.Result, f.BeforeSeq, f.Limit)
}
func (d *serviceDouble) VerifyAudit(context.Context) (agent.AuditVerification, error) {
	return d.verification, d.record("VerifyAudit")
}
func (d *serviceDouble) Reload(context.Context) (agent.ReloadReport, error) {
	return reloadReport, d.record("Reload")
}

// reloadReport is what the double's Reload returns.
var reloadReport = agent.ReloadReport{Path: "config.json", Changes: []string{"acl: 2 rules → 3 (+pm-read)"}, Restart: []string{"metrics.listen_addr \"\" → \"127.0.0.1:9464\""}}

// ctl.prune's params stay {"older_than_sec": N} while PruneRequest carries
// a duration.
func TestPruneRequestWire(t *testing.T) {
	b, err := json.Marshal(agent.PruneRequest{OlderThan: 90*time.Second + time.Millisecond})
	if err != nil || string(b) != `{"older_than_sec":90}` {
		t.Fatalf("marshal: %s, %v; want {\"older_than_sec\":90}", b, err)
	}
	var r agent.PruneRequest
	if err := json.Unmarshal([]byte(`{"older_than_sec":2592000}`), &r); err != nil || r.OlderThan != 30*24*time.Hour {
		t.Fatalf("unmarshal: %v, %v; want 720h", r.OlderThan, err)
	}
}
