package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// testService is an in-memory TEST DOUBLE of Service. It only holds
// data for rendering, key-routing and flow tests of this package and records
// the calls the interface makes; it does not model the core (the real core
// is exercised by the flows in the agent and cmd packages).
type testService struct {
	mu        sync.Mutex
	askQueued bool // Ask answers as for an offline peer
	status    agent.Status
	peers     []agent.Peer
	queries   []agent.Query
	approvals []agent.Approval
	tasks     []agent.Task
	messages  []agent.Message
	coord     []agent.CoordTask
	audit     []agent.AuditEntry // ascending seq
	prompts   []string           // the stored prompt history, oldest first
	outbox    []agent.OutboxEntry
	calls     []string
	subs      []chan agent.Event
	evSeq     int64
	asks      int
	failWith  error // when set, every mutating call fails with it
	loadErr   error // when set, Status fails with it (the core is gone)
	auditReqs int
	now       time.Time
	changed   chan struct{} // closed when calls or subscribers change
}

var _ Service = (*testService)(nil)

func (s *testService) record(format string, a ...any) error {
	s.calls = append(s.calls, fmt.Sprintf(format, a...))
	s.changedLocked()
	return s.failWith
}

// changedLocked wakes waitFor (s.mu held).
func (s *testService) changedLocked() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// waitFor waits until cond (which takes s.mu itself) holds, looking again
// whenever a call is recorded or a subscriber comes or goes.
func (s *testService) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("timed out after 5s waiting for %s; calls: %q", what, s.Calls())
		}
	}
}

// Calls returns the recorded mutating calls.
func (s *testService) Calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls...)
}

// publish sends an event to every subscriber without blocking.
func (s *testService) publish(kind, id, agentID, summary string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.publishLocked(kind, id, agentID, summary)
}

func (s *testService) publishLocked(kind, id, agentID, summary string) {
	s.evSeq++
	ev := agent.Event{Seq: s.evSeq, Kind: kind, Time: s.now, ID: id, Agent: agentID, Summary: summary}
	for _, ch := range s.subs {
		select {
		case ch <- ev:
		default:
		}
	}
}

func (s *testService) Status(context.Context) (agent.Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.PendingApprov, st.Buffered, st.PendingQuery = 0, 0, 0
	for _, a := range s.approvals {
		if a.State == agent.TaskPending {
			st.PendingApprov++
		}
	}
	for _, q := range s.queries {
		switch q.State {
		case agent.QueryBuffered:
			st.Buffered++
		case agent.QueryEscalated, agent.QueryAwaiting:
			st.PendingQuery++
		}
	}
	return st, s.loadErr
}

func (s *testService) Peers(context.Context) ([]agent.Peer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]agent.Peer(nil), s.peers...), nil
}

func (s *testService) Discover(ctx context.Context) ([]agent.Peer, error) { return s.Peers(ctx) }

func (s *testService) Trust(_ context.Context, r agent.TrustRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	call := "trust " + r.AgentID + " " + r.Fingerprint
	if r.Role != "" {
		call += " role=" + r.Role
	}
	if err := s.record("%s", call); err != nil {
		return err
	}
	for i := range s.peers {
		if s.peers[i].Fingerprint == r.Fingerprint {
			s.peers[i].Trust = agent.TrustPinned
		}
	}
	s.publishLocked(agent.EventPeerChanged, r.AgentID, r.AgentID, "")
	return nil
}

func (s *testService) Refuse(_ context.Context, req agent.RefuseRequest) error {
	fp := req.Fingerprint
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record("refuse %s", fp); err != nil {
		return err
	}
	out := s.peers[:0]
	for _, p := range s.peers {
		if p.Fingerprint != fp { // a pending request goes, and so does a pin (the core untrusts it)
			out = append(out, p)
		}
	}
	s.peers = out
	s.publishLocked(agent.EventPeerChanged, "", "", "")
	return nil
}

func (s *testService) Ask(_ context.Context, r agent.AskRequest) (agent.AskResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record("ask %s %s", r.To, r.Query); err != nil {
		return agent.AskResult{}, err
	}
	s.asks++
	res := json.RawMessage(`{"completed":false,"status":"pending"}`)
	if s.askQueued { // as the core answers for a peer it cannot reach
		res = json.RawMessage(`{"completed":false,"summary":"` + r.To + ` is offline: the question is queued","metadata":{"state":"queued"}}`)
	}
	return agent.AskResult{QueryID: fmt.Sprintf("ask-%d", s.asks), Result: res}, nil
}

// deliver adds a peer message (an answer arriving later) and announces it.
func (s *testService) deliver(from, related, summary string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, _ := json.Marshal(map[string]any{"summary": summary, "completed": true})
	seq := int64(len(s.messages) + 1)
	s.messages = append(s.messages, agent.Message{Seq: seq, From: from, Event: "query.completed",
		RelatedID: related, Data: data, ReceivedAt: s.now})
	s.publishLocked(agent.EventMessageReceived, fmt.Sprint(seq), from, "answer from "+from)
}

func (s *testService) Queries(_ context.Context, f agent.QueryFilter) ([]agent.Query, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []agent.Query
	for _, q := range s.queries {
		if f.State == "" || q.State == f.State {
			out = append(out, q)
		}
	}
	return out, nil
}

func (s *testService) setQueryState(id, state string) error {
	for i := range s.queries {
		if s.queries[i].ID == id || id == "" && s.queries[i].State == agent.QueryBuffered {
			s.queries[i].State = state
			if id != "" {
				return nil
			}
		}
	}
	if id == "" {
		return nil
	}
	return fmt.Errorf("query %s not found; it may have been answered already", id)
}

func (s *testService) Answer(_ context.Context, req agent.AnswerRequest) error {
	id, text := req.QueryID, req.Text
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record("answer %s %s", id, text); err != nil {
		return err
	}
	s.publishLocked(agent.EventQueryUpdated, id, "", "")
	return s.setQueryState(id, agent.QueryAnswered)
}

func (s *testService) Decline(_ context.Context, req agent.DeclineRequest) error {
	id, reason := req.QueryID, req.Reason
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record("decline %s %s", id, reason); err != nil {
		return err
	}
	s.publishLocked(agent.EventQueryUpdated, id, "", "")
	return s.setQueryState(id, agent.QueryDeclined)
}

func (s *testService) Release(_ context.Context, req agent.ReleaseRequest) error {
	id := req.QueryID
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record("release %q", id); err != nil {
		return err
	}
	s.publishLocked(agent.EventQueryUpdated, id, "", "")
	return s.setQueryState(id, agent.QueryAnswered)
}

func (s *testService) SetFocus(_ context.Context, req agent.FocusRequest) error {
	on := req.On
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record("focus %v", on); err != nil {
		return err
	}
	s.status.Focus = on
	s.publishLocked(agent.EventFocusChanged, "", "", "")
	return nil
}

func (s *testService) CoordTasks(_ context.Context, req agent.CoordTasksRequest) ([]agent.CoordTask, error) {
	id := req.TaskID
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []agent.CoordTask
	for _, t := range s.coord {
		if id == "" || t.TaskID == id {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *testService) Messages(_ context.Context, req agent.MessagesRequest) ([]agent.Message, error) {
	after, limit := req.AfterSeq, req.Limit
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []agent.Message
	for _, m := range s.messages {
		if m.Seq > after && len(out) < limit {
			out = append(out, m)
		}
	}
	return out, nil
}

func (s *testService) MarkMessagesRead(_ context.Context, req agent.MarkReadRequest) error {
	upto := req.UptoSeq
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record("read %d", upto); err != nil {
		return err
	}
	for i := range s.messages {
		if s.messages[i].Seq <= upto && !s.messages[i].Read {
			s.messages[i].Read = true
			s.status.UnreadMsgs--
		}
	}
	return nil
}

func (s *testService) PromptHistory(context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts...), nil
}

func (s *testService) RememberPrompt(_ context.Context, req agent.PromptLine) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failWith != nil {
		return s.failWith
	}
	s.prompts = append(s.prompts, req.Line)
	return nil
}

func (s *testService) Note(_ context.Context, req agent.NoteRequest) (agent.NoteSaved, error) {
	text := req.Text
	s.mu.Lock()
	defer s.mu.Unlock()
	return agent.NoteSaved{ID: 1}, s.record("note %s", text)
}

func (s *testService) SendMessage(_ context.Context, req agent.SendMessageRequest) (agent.SentMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sent := agent.SentMessage{ID: "m-sent1", To: req.To, Type: req.Type, TaskID: req.TaskID, ThreadID: req.ReplyTo,
		Note: "delivered; " + req.To + "'s assistant sees it on its next aoi_check_messages"}
	return sent, s.record("send %s %s task=%s reply_to=%s %s", req.To, req.Type, req.TaskID, req.ReplyTo, req.Payload)
}

func (s *testService) Outbox(context.Context) ([]agent.OutboxEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]agent.OutboxEntry(nil), s.outbox...), s.loadErr
}

func (s *testService) RequestTask(_ context.Context, r agent.TaskRequest) (agent.TaskTicket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(r.Params))
	for k := range r.Params {
		keys = append(keys, k+"="+r.Params[k])
	}
	sort.Strings(keys)
	if err := s.record("task %s %s %v", r.To, r.TaskType, keys); err != nil {
		return agent.TaskTicket{}, err
	}
	return agent.TaskTicket{RequestID: "req-1", TaskID: "t-remote-1", Status: "pending"}, nil
}

func (s *testService) Approvals(_ context.Context, f agent.ApprovalFilter) ([]agent.Approval, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []agent.Approval
	for _, a := range s.approvals {
		if (f.State == "" || a.State == f.State) && (f.Limit == 0 || len(out) < f.Limit) {
			out = append(out, a)
		}
	}
	return out, nil
}

func (s *testService) decide(id, state, reason string) error {
	for i := range s.approvals {
		a := &s.approvals[i]
		if a.ID != id {
			continue
		}
		if a.State != agent.TaskPending {
			return fmt.Errorf("approval %s is already %s", id, a.State)
		}
		a.State, a.Reason = state, reason
		taskState := agent.TaskInProgress
		if state == agent.TaskRejected {
			taskState = agent.TaskRejected
		}
		s.tasks = append([]agent.Task{{ID: a.TaskID, Requester: a.Requester, Type: a.TaskType,
			Params: a.Params, State: taskState, CreatedAt: s.now, UpdatedAt: s.now}}, s.tasks...)
		s.publishLocked(agent.EventApprovalDecided, id, a.Requester, "")
		return nil
	}
	return fmt.Errorf("approval %s not found", id)
}

func (s *testService) Approve(_ context.Context, req agent.ApproveRequest) error {
	id := req.ID
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record("approve %s", id); err != nil {
		return err
	}
	return s.decide(id, agent.TaskApproved, "")
}

func (s *testService) Reject(_ context.Context, req agent.RejectRequest) error {
	id, reason := req.ID, req.Reason
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record("reject %s %s", id, reason); err != nil {
		return err
	}
	return s.decide(id, agent.TaskRejected, reason)
}

func (s *testService) Tasks(_ context.Context, f agent.TaskFilter) ([]agent.Task, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []agent.Task
	for _, t := range s.tasks {
		if (f.State == "" || t.State == f.State) && (f.Limit == 0 || len(out) < f.Limit) {
			out = append(out, t)
		}
	}
	return out, nil
}

func (s *testService) Audit(_ context.Context, f agent.AuditFilter) ([]agent.AuditEntry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.auditReqs++
	limit := f.Limit
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	var out []agent.AuditEntry
	for i := len(s.audit) - 1; i >= 0 && len(out) < limit; i-- {
		e := s.audit[i]
		if (f.BeforeSeq > 0 && e.Seq >= f.BeforeSeq) || (f.Agent != "" && e.Agent != f.Agent) ||
			(f.Method != "" && e.Method != f.Method) || (f.Result != "" && e.Result != f.Result) ||
			!containsWords(e.Agent+" "+e.Method+" "+e.Result+" "+string(e.Detail), f.Text) {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

func (s *testService) Events(ctx context.Context, _ agent.EventsRequest) (<-chan agent.Event, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan agent.Event, 256)
	s.subs = append(s.subs, ch)
	s.changedLocked()
	go func() {
		<-ctx.Done()
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, c := range s.subs {
			if c == ch {
				s.subs = append(s.subs[:i], s.subs[i+1:]...)
				close(ch)
				s.changedLocked()
				return
			}
		}
	}()
	return ch, nil
}

func (s *testService) Reload(context.Context) (agent.ReloadReport, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.record("reload"); err != nil {
		return agent.ReloadReport{}, err
	}
	return agent.ReloadReport{Changes: []string{"acl: 1 rule → 2 (+pm-read)"}}, nil
}

// containsWords mirrors the store's text search: every word is a
// case-insensitive substring of the row.
func containsWords(row, text string) bool {
	row = strings.ToLower(row)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		if !strings.Contains(row, w) {
			return false
		}
	}
	return true
}
