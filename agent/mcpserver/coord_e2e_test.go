package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// sdkDriver is test/mcp/sdk_driver.mjs: the official TypeScript SDK
// client holding one `aoi mcp` session per agent.
type sdkDriver struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Scanner
}

// sdkAnswer is one tool call's result as the SDK client saw it.
type sdkAnswer struct {
	IsError       bool            `json:"isError"`
	Text          string          `json:"text"`
	Structured    json.RawMessage `json:"structured"`
	ProtocolError string          `json:"protocolError"`
}

func startDriver(t *testing.T, dirs map[string]string) *sdkDriver {
	t.Helper()
	node, bin := needNode(t), needBinary(t)
	argv := []string{"sdk_driver.mjs", bin}
	for name, dir := range dirs {
		argv = append(argv, name+"="+dir)
	}
	cmd := exec.Command(node, argv...)
	cmd.Dir = mcpTestDir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("sdk_driver.mjs stderr:\n%s", stderr.String())
		}
	})
	d := &sdkDriver{t: t, in: in, out: bufio.NewScanner(outPipe)}
	d.out.Buffer(make([]byte, 1<<20), 1<<22)
	if !d.out.Scan() || !strings.Contains(d.out.Text(), `"ready"`) {
		t.Fatalf("sdk_driver.mjs did not start: %q %v\nstderr:\n%s", d.out.Text(), d.out.Err(), stderr.String())
	}
	return d
}

// call runs one tool as client; a protocol error fails the test.
func (d *sdkDriver) call(client, tool string, args map[string]any) sdkAnswer {
	d.t.Helper()
	line, err := json.Marshal(map[string]any{"client": client, "name": tool, "arguments": args})
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(d.in, "%s\n", line); err != nil {
		d.t.Fatalf("write to sdk_driver.mjs: %v", err)
	}
	if !d.out.Scan() {
		d.t.Fatalf("sdk_driver.mjs ended: %v", d.out.Err())
	}
	var a sdkAnswer
	if err := json.Unmarshal(d.out.Bytes(), &a); err != nil {
		d.t.Fatalf("sdk_driver.mjs answered %q: %v", d.out.Text(), err)
	}
	if a.ProtocolError != "" {
		d.t.Fatalf("%s %s: protocol error %q; tools must answer with tool errors", client, tool, a.ProtocolError)
	}
	return a
}

// ok runs a tool that must succeed and decodes its structuredContent into
// v, checking the text carries the same JSON.
func (d *sdkDriver) ok(client, tool string, args map[string]any, v any) {
	d.t.Helper()
	a := d.call(client, tool, args)
	if a.IsError {
		d.t.Fatalf("%s %s(%v) failed: %s", client, tool, args, a.Text)
	}
	if len(a.Structured) == 0 || string(a.Structured) == "null" {
		d.t.Fatalf("%s %s: no structuredContent (text %s)", client, tool, a.Text)
	}
	if v != nil {
		if err := json.Unmarshal(a.Structured, v); err != nil {
			d.t.Fatalf("%s %s structuredContent %s: %v", client, tool, a.Structured, err)
		}
		var fromText any
		if err := json.Unmarshal([]byte(a.Text), &fromText); err != nil {
			d.t.Fatalf("%s %s text is not the JSON result: %q", client, tool, a.Text)
		}
	}
}

// inboxPage is aoi_check_messages' result.
type inboxPage struct {
	Messages      []agent.Message `json:"messages"`
	LastID        int64           `json:"last_id"`
	LastMessageID string          `json:"last_message_id"`
	More          bool            `json:"more"`
}

// awaitMessage polls client's aoi_check_messages (filtered by task and
// type) until a message of typ arrives, and returns it.
func (d *sdkDriver) awaitMessage(client, taskID, typ string, after int64) agent.Message {
	d.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var page inboxPage
		d.ok(client, "aoi_check_messages", map[string]any{"task_id": taskID, "type": typ, "last_id": after}, &page)
		if len(page.Messages) > 0 {
			return page.Messages[0]
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("%s: no %s message for %s within 20s", client, typ, taskID)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sentResult is aoi_send_message's result.
type sentResult struct {
	ID        string `json:"message_id"`
	To        string `json:"to"`
	ThreadID  string `json:"thread_id"`
	Queued    bool   `json:"queued"`
	TaskState string `json:"task_state"`
}

// coordStatus is aoi_task_status' result for a coordination task.
type coordStatus struct {
	State        string            `json:"state"`
	Counterparts []agent.CoordTask `json:"counterparts"`
}

func (d *sdkDriver) taskState(client, taskID string) coordStatus {
	d.t.Helper()
	var st coordStatus
	d.ok(client, "aoi_task_status", map[string]any{"task_id": taskID}, &st)
	return st
}

// TestCoordinationWorkflowOverMCP plays seed 004 with three coding
// assistants (the official SDK client, one `aoi mcp` each) on three real
// cores: the planner assigns T-1 to the orchestrator, which relays it to
// the worker; the worker reports progress and asks for review; the review
// asks for changes while the worker's aoi is down (the message waits in
// the outbox and arrives when it is back); the second review approves and
// the task completes on every side.
func TestCoordinationWorkflowOverMCP(t *testing.T) {
	t.Parallel()
	planner, orche := startCore(t, "planner", "pm"), startCore(t, "orche", "lead")
	worker := startCore(t, "worker", "engineer")
	wDir := worker.Dir
	trustBoth(t, planner, orche)
	trustBoth(t, orche, worker)
	d := startDriver(t, map[string]string{"planner": planner.Dir, "orche": orche.Dir, "worker": worker.Dir})
	const task = "T-1"

	// The planner assigns the task to the orchestrator, which relays it.
	var sent sentResult
	d.ok("planner", "aoi_send_message", map[string]any{"to": "orche", "type": "task_assign", "task_id": task,
		"payload": map[string]any{"description": "add tests for logout"}}, &sent)
	if sent.TaskState != agent.CoordAssigned || sent.Queued {
		t.Fatalf("assign = %+v, want task assigned and delivered now", sent)
	}
	thread := sent.ThreadID
	assign := d.awaitMessage("orche", task, "task_assign", 0)
	d.ok("orche", "aoi_send_message", map[string]any{"to": "worker", "forward_id": assign.Seq}, &sent)
	got := d.awaitMessage("worker", task, "task_assign", 0)
	if got.From != "orche" || got.Origin != "planner" || got.ThreadID != thread || !strings.Contains(string(got.Data), "logout") {
		t.Fatalf("worker got %+v, want the planner's assignment relayed by orche in thread %s", got, thread)
	}

	// Progress with a task id reaches whoever assigned it.
	var prog map[string]any
	d.ok("worker", "aoi_update_progress", map[string]any{"percent": 30, "summary": "writing the tests", "task_id": task}, &prog)
	if prog["sent_to"] != "orche" || prog["task_state"] != agent.CoordInProgress {
		t.Fatalf("progress = %v, want it sent to orche and the task in progress", prog)
	}
	d.awaitMessage("orche", task, "progress", 0)
	if st := d.taskState("orche", task); !hasState(st, "worker", agent.CoordInProgress) || !hasState(st, "planner", agent.CoordAssigned) {
		t.Fatalf("orche's view = %+v", st)
	}

	// Review request, relayed to the planner, who asks for changes.
	d.ok("worker", "aoi_send_message", map[string]any{"type": "review_request", "task_id": task,
		"payload": map[string]any{"summary": "tests added", "pr_url": "https://example.invalid/pr/7"}}, &sent)
	if sent.To != "orche" || sent.TaskState != agent.CoordReview {
		t.Fatalf("review request = %+v, want it sent to orche with the task in review", sent)
	}
	rr := d.awaitMessage("orche", task, "review_request", 0)
	d.ok("orche", "aoi_send_message", map[string]any{"to": "planner", "forward_id": rr.Seq}, &sent)
	prr := d.awaitMessage("planner", task, "review_request", 0)
	if prr.Origin != "worker" {
		t.Fatalf("planner got %+v, want the worker's review request", prr)
	}
	d.ok("planner", "aoi_send_message", map[string]any{"to": "orche", "type": "review_result", "task_id": task,
		"payload": map[string]any{"approved": false, "feedback": "cover token expiry"}}, &sent)
	if sent.TaskState != agent.CoordInProgress {
		t.Fatalf("changes requested: planner's task state %q, want in_progress", sent.TaskState)
	}
	changes := d.awaitMessage("orche", task, "review_result", 0)

	// The worker's aoi goes away: its assistant hears how to start it, and
	// what orche sends meanwhile waits in orche's outbox.
	worker.Stop()
	if a := d.call("worker", "aoi_check_messages", map[string]any{}); !a.IsError || !strings.Contains(a.Text, "aoi serve --data-dir "+wDir) {
		t.Fatalf("worker's check with its aoi down = %+v, want an error naming aoi serve --data-dir", a)
	}
	var relay sentResult
	d.ok("orche", "aoi_send_message", map[string]any{"to": "worker", "forward_id": changes.Seq}, &relay)
	eventually(t, 15*time.Second, "orche sees the worker offline", func() bool {
		ps, err := orche.Peers(t.Context())
		return err == nil && slices.ContainsFunc(ps, func(p agent.Peer) bool { return p.AgentID == "worker" && p.Status == agent.PeerOffline })
	})
	var note sentResult
	d.ok("orche", "aoi_send_message", map[string]any{"to": "worker", "type": "note", "task_id": task, "thread_id": thread,
		"payload": map[string]any{"message": "planner wants expiry covered"}}, &note)
	if !note.Queued {
		t.Fatalf("note to the offline worker = %+v, want queued", note)
	}

	worker.Restart(nil) // on the same port, which orche's outbox retries
	back := d.awaitMessage("worker", task, "review_result", got.Seq)
	if back.Origin != "planner" || !strings.Contains(string(back.Data), "expiry") {
		t.Fatalf("worker got %+v after restart, want the planner's changes request", back)
	}
	d.awaitMessage("worker", task, "note", got.Seq)
	if st := d.taskState("worker", task); st.State != agent.CoordInProgress {
		t.Fatalf("worker's task after changes requested = %+v, want in_progress", st)
	}
	assertOnce(t, worker, relay.ID, note.ID)
	checkInboxFilters(t, d, orche, worker, task, thread)

	// Second round: approved, then completed on every side.
	d.ok("worker", "aoi_send_message", map[string]any{"type": "review_request", "task_id": task, "payload": map[string]any{"summary": "expiry covered"}}, &sent)
	rr2 := d.awaitMessage("orche", task, "review_request", rr.Seq)
	d.ok("orche", "aoi_send_message", map[string]any{"to": "planner", "forward_id": rr2.Seq}, &sent)
	d.awaitMessage("planner", task, "review_request", prr.Seq)
	d.ok("planner", "aoi_send_message", map[string]any{"to": "orche", "type": "review_result", "task_id": task, "payload": map[string]any{"approved": true}}, &sent)
	d.awaitMessage("orche", task, "review_result", changes.Seq)
	for _, to := range []string{"worker", "planner"} {
		d.ok("orche", "aoi_send_message", map[string]any{"to": to, "type": "task_complete", "task_id": task, "thread_id": thread, "payload": map[string]any{}}, &sent)
	}
	d.awaitMessage("worker", task, "task_complete", 0)
	d.awaitMessage("planner", task, "task_complete", 0)
	for _, who := range []string{"planner", "orche", "worker"} {
		st := d.taskState(who, task)
		for _, c := range st.Counterparts {
			if c.State != agent.CoordDone || c.CreatedAt.IsZero() {
				t.Errorf("%s's view of %s with %s = %+v, want done", who, task, c.Peer, c)
			}
		}
	}
	checkCLI(t, orche.Dir, task)
}

func trustBoth(t *testing.T, a, b *testCore) {
	t.Helper()
	ctx := t.Context()
	if err := a.Trust(ctx, agent.TrustRequest{AgentID: b.ID, Fingerprint: b.Fingerprint(), Endpoint: b.Addr()}); err != nil {
		t.Fatal(err)
	}
	if err := b.Trust(ctx, agent.TrustRequest{AgentID: a.ID, Fingerprint: a.Fingerprint(), Endpoint: a.Addr()}); err != nil {
		t.Fatal(err)
	}
}

func hasState(st coordStatus, peer, state string) bool {
	return slices.ContainsFunc(st.Counterparts, func(c agent.CoordTask) bool { return c.Peer == peer && c.State == state })
}

// assertOnce: each message id was stored exactly once however often the
// outbox tried it.
func assertOnce(t *testing.T, c *testCore, ids ...string) {
	t.Helper()
	msgs, err := c.Messages(t.Context(), agent.MessagesRequest{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		n := 0
		for _, m := range msgs {
			if m.MessageID == id {
				n++
			}
		}
		if n != 1 {
			t.Errorf("message %s stored %d times, want once", id, n)
		}
	}
}

// checkCLI reads the same task and messages with `aoi task status` and
// `aoi messages`.
func checkCLI(t *testing.T, dir, task string) {
	t.Helper()
	out, err := exec.Command(needBinary(t), "--data-dir", dir, "task", "status", task).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "done") || !strings.Contains(string(out), "worker") {
		t.Errorf("aoi task status %s = %s (%v), want both counterparts done", task, out, err)
	}
	// The task's whole conversation: the two review requests the worker
	// sent, and the two this agent forwarded to the planner.
	out, err = exec.Command(needBinary(t), "--data-dir", dir, "messages", "--task", task, "--type", "review_request").CombinedOutput()
	if err != nil || strings.Count(string(out), "review_request") != 4 ||
		strings.Count(string(out), "from worker") != 2 || strings.Count(string(out), "sent to planner") != 2 {
		t.Errorf("aoi messages --task %s --type review_request = %s (%v), want the two review requests received and the two forwarded", task, out, err)
	}
	out, err = exec.Command(needBinary(t), "--data-dir", dir, "send", "planner", "note", "all", "done", "--task", task).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "delivered") || !strings.Contains(string(out), "is done") {
		t.Errorf("aoi send planner note = %s (%v), want it delivered with the task still done", out, err)
	}
}

// checkInboxFilters reads the worker's inbox the ways an assistant would:
// by thread (the relayed changes request kept the thread it joined),
// a page at a time with more and last_id, and only what it has not been
// shown. The messages went to the assistant, not the secretary, and each
// arrival was audited.
func checkInboxFilters(t *testing.T, d *sdkDriver, from, to *testCore, task, thread string) {
	t.Helper()
	client := to.ID
	var page inboxPage
	d.ok(client, "aoi_check_messages", map[string]any{"thread_id": thread}, &page)
	var types []string
	for _, m := range page.Messages {
		if m.ThreadID != thread {
			t.Errorf("thread filter returned %+v from thread %s", m, m.ThreadID)
		}
		types = append(types, m.Type)
	}
	// The planner's changes request named no thread: it joined the one
	// about the task, the assignment's, and its relay kept it.
	if !slices.Equal(types, []string{"task_assign", "review_result", "note"}) {
		t.Errorf("thread %s holds %v, want the assignment, the changes request and the note", thread, types)
	}

	// One at a time: more says another is waiting, last_id resumes.
	var all []agent.Message
	last := int64(0)
	for i := 0; ; i++ {
		if i > 10 {
			t.Fatal("paging with limit 1 did not end after 10 pages")
		}
		var p inboxPage
		d.ok(client, "aoi_check_messages", map[string]any{"task_id": task, "limit": 1, "last_id": last}, &p)
		if len(p.Messages) > 1 || (len(p.Messages) == 1 && p.LastID != p.Messages[0].Seq) {
			t.Fatalf("page after %d = %+v, want one message and its id as last_id", last, p)
		}
		all = append(all, p.Messages...)
		last = p.LastID
		if !p.More {
			break
		}
	}
	if len(all) != 3 || !slices.IsSortedFunc(all, func(a, b agent.Message) int { return int(a.Seq - b.Seq) }) {
		t.Errorf("paged task messages = %+v, want the assignment, the changes request and the note in order", all)
	}

	checkConversation(t, d, client, task)

	// Everything was shown already; a new message is the only unread one.
	d.ok(client, "aoi_check_messages", map[string]any{"unread": true}, &page)
	if len(page.Messages) != 0 {
		t.Errorf("unread after reading everything = %+v, want none", page.Messages)
	}
	var sent sentResult
	d.ok(from.ID, "aoi_send_message", map[string]any{"to": client, "type": "question", "task_id": task, "thread_id": thread,
		"payload": map[string]any{"text": "does expiry need a migration?"}}, &sent)
	if sent.Queued {
		t.Fatalf("question = %+v, want it delivered", sent)
	}
	for i, want := range []int{1, 0} {
		d.ok(client, "aoi_check_messages", map[string]any{"unread": true}, &page)
		if len(page.Messages) != want || (want == 1 && (page.Messages[0].From != from.ID || !strings.Contains(string(page.Messages[0].Data), "migration"))) {
			t.Errorf("unread check %d = %+v, want %d (the new question, then nothing)", i+1, page.Messages, want)
		}
	}

	qs, err := to.Queries(t.Context(), agent.QueryFilter{})
	if err != nil || len(qs) != 0 {
		t.Errorf("%s's secretary got queries %+v (%v); messages are for the assistant only", client, qs, err)
	}
	rows, err := to.Audit(t.Context(), agent.AuditFilter{Method: "aoi.message"})
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for _, r := range rows {
		if r.Result == "ok" {
			ok++
		}
	}
	if ok < 4 {
		t.Errorf("%s audited %d accepted aoi.message calls (%+v), want one per message received", client, ok, rows)
	}
}

// checkConversation reads the worker's task as a conversation
// (include_sent), as `aoi messages --task` shows it: the progress and the
// review request it sent between the assignment and the changes request
// it received, in time order. A page of one at a time counts the sent
// messages too and resumes after the last one shown (last_message_id when
// it was sent), each message once, even across two sent in a row.
func checkConversation(t *testing.T, d *sdkDriver, client, task string) {
	t.Helper()
	var whole inboxPage
	d.ok(client, "aoi_check_messages", map[string]any{"task_id": task, "include_sent": true}, &whole)
	var said []string
	for _, m := range whole.Messages {
		said = append(said, fmt.Sprintf("%s %v", m.Type, m.Sent))
	}
	want := []string{"task_assign false", "progress true", "review_request true", "review_result false", "note false"}
	if !slices.Equal(said, want) {
		t.Fatalf("the worker's task as a conversation = %q, want %q", said, want)
	}
	var paged []string
	var last int64
	lastSent := ""
	for i := 0; ; i++ {
		if i > len(want) {
			t.Fatalf("paging the conversation one at a time did not end after %d pages: %q", i, paged)
		}
		var p inboxPage
		d.ok(client, "aoi_check_messages", map[string]any{"task_id": task, "include_sent": true, "limit": 1,
			"last_id": last, "last_message_id": lastSent}, &p)
		if len(p.Messages) != 1 {
			t.Fatalf("conversation page %d = %+v, want one message (limit counts sent ones too)", i, p)
		}
		m := p.Messages[0]
		paged = append(paged, fmt.Sprintf("%s %v", m.Type, m.Sent))
		if m.Sent != (p.LastMessageID == m.MessageID) {
			t.Errorf("page %d ends with %+v but last_message_id is %q", i, m, p.LastMessageID)
		}
		last, lastSent = p.LastID, p.LastMessageID
		if !p.More {
			break
		}
	}
	if !slices.Equal(paged, want) {
		t.Errorf("the conversation one at a time = %q, want %q", paged, want)
	}
	if a := d.call(client, "aoi_check_messages", map[string]any{"include_sent": true}); !a.IsError || !strings.Contains(a.Text, "give thread_id or task_id") {
		t.Errorf("include_sent without a thread or task = %+v, want it refused saying what to add", a)
	}
}
