package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// gitRepo makes a repository with one commit on main.
func gitRepo(t *testing.T) string {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"}, {"config", "user.email", "t@example.invalid"}, {"config", "user.name", "t"},
		{"commit", "-q", "--allow-empty", "-m", "start"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// taskAgents: eng holds acme/webapp (a real git repo) with a task that
// prints the branch it runs on; PMs may execute there.
func taskAgents(t *testing.T) (eng, pm *testAgent) {
	repo := gitRepo(t)
	eng = newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{"branch": {
			Command: []string{"git", "rev-parse", "--abbrev-ref", "{{what}}"}, Context: "acme/webapp",
			Params:    map[string]config.Param{"what": {Default: "HEAD", Pattern: "^[A-Z]+$"}},
			Isolation: "worktree", TimeoutSec: 30, Approval: config.Approval{Required: true},
		}}
	})
	pm = newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	if _, err := pm.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	return eng, pm
}

func TestTaskApprovedRunsInWorktreeAndNotifies(t *testing.T) {
	if task.StatePending != agent.TaskPending || task.StateCompleted != agent.TaskCompleted || task.EventApprovalRequested != agent.EventApprovalRequested {
		t.Fatal("task engine and agent disagree on state or event names")
	}
	eng, pm := taskAgents(t)
	ctx := context.Background()
	events, _ := eng.Events(ctx, agent.EventsRequest{})
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"})
	if err != nil {
		t.Fatal(err)
	}
	if ticket.Status != agent.TaskPending {
		t.Fatalf("ticket = %+v, want pending approval", ticket)
	}
	ev := <-events
	if ev.Kind != agent.EventApprovalRequested || ev.Agent != "pm-tanaka" {
		t.Fatalf("first event = %+v, want approval.requested from pm-tanaka", ev)
	}
	if err := eng.Approve(ctx, agent.ApproveRequest{ID: ev.ID}); err != nil {
		t.Fatal(err)
	}
	msg := waitMessage(t, pm, ticket.RequestID)
	var out struct {
		Status     string `json:"status"`
		ExitCode   int    `json:"exit_code"`
		OutputTail string `json:"output_tail"`
		Summary    string `json:"summary"`
	}
	if err := json.Unmarshal(msg.Data, &out); err != nil {
		t.Fatal(err)
	}
	if msg.Event != wire.EventTaskCompleted || out.ExitCode != 0 || !strings.Contains(out.OutputTail, "aoi/task-"+ticket.TaskID) {
		t.Fatalf("notify %s %s, want task.completed run on branch aoi/task-%s", msg.Event, msg.Data, ticket.TaskID)
	}
	// The requester's lists show one line that says which task it was.
	if out.Summary != "branch completed" {
		t.Fatalf("notify summary %q, want %q", out.Summary, "branch completed")
	}
	st, err := pm.RemoteTaskStatus(ctx, agent.RemoteTaskRef{Peer: "eng-suzuki", TaskID: ticket.TaskID})
	if err != nil || st.State != agent.TaskCompleted {
		t.Fatalf("remote status = %+v, %v", st, err)
	}
	if st.Type != "branch" || st.CreatedAt.IsZero() || st.UpdatedAt.Before(st.CreatedAt) {
		t.Fatalf("remote status = %+v, want task_type branch and its created/updated times", st)
	}
}

func TestTaskRejectedAndInjectionRefused(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"})
	if err != nil {
		t.Fatal(err)
	}
	aps, err := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending})
	if err != nil || len(aps) != 1 || aps[0].TaskID != ticket.TaskID || aps[0].MatchedRule != "pm-exec" {
		t.Fatalf("approvals = %+v, %v", aps, err)
	}
	if err := eng.Reject(ctx, agent.RejectRequest{ID: aps[0].ID, Reason: "not now"}); err != nil {
		t.Fatal(err)
	}
	msg := waitMessage(t, pm, ticket.RequestID)
	if !strings.Contains(string(msg.Data), "not now") || !strings.Contains(string(msg.Data), "-32007") ||
		!strings.Contains(string(msg.Data), `"summary":"branch rejected: `) {
		t.Fatalf("rejection notify = %s %s, want the reason, APPROVAL_DENIED and a summary naming the task", msg.Event, msg.Data)
	}
	// Cancelling what is over says so (the walk got "internal error").
	err = pm.CancelRemoteTask(ctx, agent.RemoteTaskRef{Peer: "eng-suzuki", TaskID: ticket.TaskID})
	if err == nil || !strings.Contains(err.Error(), "is already rejected; nothing to cancel") || strings.Contains(err.Error(), "internal") {
		t.Fatalf("cancelling a rejected task: %v", err)
	}
	for name, params := range map[string]map[string]string{
		"shell": {"what": "HEAD; touch /tmp/pwned"},
		"subst": {"what": "$(id)"},
	} {
		_, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch", Params: params})
		if e := asRPC(t, err, rpc.CodeInvalidParams); !strings.Contains(e.Error(), "task_params") {
			t.Fatalf("%s: %v should name the param", name, e)
		}
	}
	// The owner's audit row says what the requester was told, not only
	// "Invalid params".
	_, err = pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch", Params: map[string]string{"what": "main.."}})
	told := asRPC(t, err, rpc.CodeInvalidParams).Reason()
	rows, err := eng.Audit(ctx, agent.AuditFilter{Method: "aoi.task.execute", Result: "INVALID_PARAMS"})
	if err != nil || len(rows) == 0 || !strings.Contains(string(rows[0].Detail), "task_params.what") || told == "" || !strings.Contains(string(rows[0].Detail), `"reason"`) {
		t.Errorf("eng's audit of the refused request = %+v (%v); want the reason the requester got (%q)", rows, err, told)
	}
	// A task type it did not offer, or a parameter the task type does not
	// take, is refused before it is sent, by what eng-suzuki told at
	// discovery (the peer's own refusal is agent/task's).
	before, _ := eng.Audit(ctx, agent.AuditFilter{Method: "aoi.task.execute"})
	for _, c := range []struct {
		req  agent.TaskRequest
		want string
	}{
		{agent.TaskRequest{TaskType: "rm_rf"}, "eng-suzuki offers you no task type rm_rf; it offers branch"},
		{agent.TaskRequest{TaskType: "branch", Params: map[string]string{"cwd": "/"}}, "eng-suzuki's branch has no parameter cwd; it takes what"},
	} {
		c.req.To = "eng-suzuki"
		if _, err := pm.RequestTask(ctx, c.req); !errors.Is(err, agent.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v; want %q", c.req, err, c.want)
		}
	}
	if after, _ := eng.Audit(ctx, agent.AuditFilter{Method: "aoi.task.execute"}); len(after) != len(before) {
		t.Errorf("eng audited %d task requests, then %d: the refused ones were sent", len(before), len(after))
	}
}

// Deciding an approval that does not exist or is already decided fails
// with ErrNotFound / ErrConflict, in process and over the control socket
// alike, with the text the CLI and the interface show (over the socket it
// follows the *rpc.Error's code).
func TestApproveUnknownOrDecidedErrorKinds(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	if _, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"}); err != nil {
		t.Fatal(err)
	}
	pending := onePending(t, eng)
	id := pending.ID
	if err := eng.Approve(ctx, agent.ApproveRequest{ID: id}); err != nil {
		t.Fatal(err)
	}
	cl, err := ctlclient.Dial(eng.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	decided := "approval " + id + " is already approved; nothing to decide"
	for _, svc := range []struct {
		name string
		s    agent.Service
	}{{"in process", eng.Core}, {"over the socket", cl}} {
		err := svc.s.Approve(ctx, agent.ApproveRequest{ID: "a-missing"})
		if !errors.Is(err, agent.ErrNotFound) || !strings.HasSuffix(err.Error(), "approval a-missing not found; list them with `aoi approvals`") {
			t.Errorf("%s: approving an unknown approval = %v, want ErrNotFound", svc.name, err)
		}
		err = svc.s.Approve(ctx, agent.ApproveRequest{ID: id})
		if !errors.Is(err, agent.ErrConflict) || errors.Is(err, agent.ErrNotFound) || !strings.HasSuffix(err.Error(), decided) {
			t.Errorf("%s: approving twice = %v, want ErrConflict %q", svc.name, err, decided)
		}
		err = svc.s.Reject(ctx, agent.RejectRequest{ID: id, Reason: "too late"})
		if !errors.Is(err, agent.ErrConflict) || !strings.HasSuffix(err.Error(), decided) {
			t.Errorf("%s: rejecting an approved approval = %v, want ErrConflict %q", svc.name, err, decided)
		}
	}
	// The control socket's code is unchanged; the kind rides in data.kind.
	var re *rpc.Error
	err = cl.Reject(ctx, agent.RejectRequest{ID: "a-missing"})
	if !errors.As(err, &re) || re.Code != agent.CodeControlFailed {
		t.Fatalf("over the socket: %v, want *rpc.Error code %d", err, agent.CodeControlFailed)
	}
	if d, _ := re.Data.(map[string]any); d["kind"] != "not_found" {
		t.Fatalf("error data = %v, want kind not_found", re.Data)
	}
}

// TestStatusListsWhatWaitsForAnAnswer: what this agent asked that has no
// answer yet is in its status (the walk's PM had no way to see it): a
// question until the owner answers it, a task request until it ends.
func TestStatusListsWhatWaitsForAnAnswer(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	waiting := func() []string {
		st, err := pm.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range st.Waiting {
			out = append(out, w.To+" "+w.Text)
		}
		return out
	}
	evs, _ := pm.Events(ctx, agent.EventsRequest{})
	res, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "is the release branch green?"})
	if err != nil {
		t.Fatal(err)
	}
	// An open interface hears of it, however it was asked (the walk's
	// waiting line lagged for a question asked from the CLI).
	for heard := false; !heard; {
		select {
		case ev := <-evs:
			heard = ev.Kind == agent.EventAskSent && ev.ID == res.QueryID
		case <-time.After(10 * time.Second):
			t.Fatal("no ask.sent event for the question")
		}
	}
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch", Params: map[string]string{"what": "HEAD"}})
	if err != nil {
		t.Fatal(err)
	}
	// The request reads back with its params (the walk could not tell
	// three run_tests apart).
	if got := waiting(); len(got) != 2 || got[0] != "eng-suzuki task branch what=HEAD" || got[1] != "eng-suzuki is the release branch green?" {
		t.Fatalf("waiting = %q; want the task request and the question, newest first", got)
	}
	if st, _ := pm.Status(ctx); st.Waiting[0].TaskID != ticket.TaskID {
		t.Errorf("the waiting task request carries task id %q, want %s (for aoi task status)", st.Waiting[0].TaskID, ticket.TaskID)
	}
	qs, _ := eng.Queries(ctx, agent.QueryFilter{})
	if err := eng.Answer(ctx, agent.AnswerRequest{QueryID: qs[0].ID, Text: "yes, green"}); err != nil {
		t.Fatal(err)
	}
	waitMessage(t, pm, res.QueryID)
	aps, _ := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending})
	if err := eng.Reject(ctx, agent.RejectRequest{ID: aps[0].ID, Reason: "not today"}); err != nil {
		t.Fatal(err)
	}
	waitMessage(t, pm, ticket.RequestID)
	if got := waiting(); len(got) != 0 {
		t.Fatalf("waiting after both were answered: %q", got)
	}
}

// onePending is the one request waiting for eng's owner (the test fails
// when there is not exactly one).
func onePending(t *testing.T, eng *testAgent) agent.Approval {
	t.Helper()
	aps, err := eng.Approvals(context.Background(), agent.ApprovalFilter{State: agent.TaskPending})
	if err != nil || len(aps) != 1 {
		t.Fatalf("approvals = %+v, %v", aps, err)
	}
	return aps[0]
}
