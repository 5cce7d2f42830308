package tui

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// realAgent is a real core for the integration flows (agent/agenttest): a
// real SQLite file, mutual TLS on 127.0.0.1 and a control socket, serving
// until the test ends.
type realAgent = agenttest.Agent

// startAgent serves a real core for id on a free loopback port, edit
// adjusting its config first.
func startAgent(t *testing.T, id, role string, edit func(*config.Config)) *realAgent {
	t.Helper()
	return agenttest.New(t, id, role, edit)
}

// pairAgents pins a and b to each other and announces both.
func pairAgents(t *testing.T, a, b *realAgent) {
	t.Helper()
	agenttest.Pair(a, b)
	for _, x := range []*realAgent{a, b} {
		if _, err := x.Discover(context.Background()); err != nil {
			t.Fatalf("%s discover: %v", x.ID, err)
		}
	}
}

// until polls cond every 20 ms for up to 10 seconds.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	agenttest.Eventually(t, 10*time.Second, what, cond)
}

// waitPeerMessage returns a's first message of kind event whose data contains want.
func waitPeerMessage(t *testing.T, a *realAgent, event, want string) agent.Message {
	t.Helper()
	var got agent.Message
	until(t, a.ID+" receiving "+event+" with "+want, func() bool {
		msgs, err := a.Messages(context.Background(), agent.MessagesRequest{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Event == event && strings.Contains(string(m.Data), want) {
				got = m
				return true
			}
		}
		return false
	})
	return got
}

// startReal runs the real Bubble Tea program on svc at 100×30 with the
// frame probe the other flow tests use.
func startReal(t *testing.T, svc Service, ready string) *flow {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m := New(svc, Options{Location: time.UTC, DarkBackground: true}).WithContext(ctx)
	f, filter := newFlow()
	f.TestModel = teatest.NewTestModel(t, m, teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithFilter(filter)))
	t.Cleanup(func() { _ = f.Quit() })
	waitScreen(t, f, ready)
	return f
}

// integrationRepo makes a git repository with one commit on main.
func integrationRepo(t *testing.T) string {
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

// engWithTask configures eng-suzuki with acme/webapp (a real repository) and
// a "branch" task that needs the owner's approval; PMs may run it.
func engWithTask(repo string) func(*config.Config) {
	return func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{"branch": {
			Command: []string{"git", "rev-parse", "--abbrev-ref", "HEAD"}, Context: "acme/webapp",
			Isolation: "worktree", TimeoutSec: 30, Approval: config.Approval{Required: true},
		}}
	}
}

// TestIntegrationApprovalFromRealPeer: a task request from a real PM shows
// in the engineer's Approvals pane; y runs it and the PM gets the result.
func TestIntegrationApprovalFromRealPeer(t *testing.T) {
	eng := startAgent(t, "eng-suzuki", "engineer", engWithTask(integrationRepo(t)))
	pm := startAgent(t, "pm-tanaka", "pm", nil)
	pairAgents(t, eng, pm)
	tm := startReal(t, eng.Core, "eng-suzuki")
	sendKeys(tm, "tab", "tab")
	waitScreen(t, tm, "Approvals · 0 pending")

	ticket, err := pm.RequestTask(context.Background(), agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"})
	if err != nil || ticket.Status != agent.TaskPending {
		t.Fatalf("ticket = %+v, %v; want pending approval", ticket, err)
	}
	waitScreen(t, tm, "Approvals · 1 pending")
	waitScreen(t, tm, "pm-tanaka")
	waitScreen(t, tm, "branch")
	sendKeys(tm, "home", "y")
	msg := waitPeerMessage(t, pm, wire.EventTaskCompleted, "aoi/task-"+ticket.TaskID)
	if msg.RelatedID != ticket.RequestID {
		t.Errorf("task.completed relates to %q; want request %q", msg.RelatedID, ticket.RequestID)
	}
	waitScreen(t, tm, "Approvals · 0 pending")
	waitScreen(t, tm, agent.TaskCompleted)
}

// answerFromTextArea asks eng from pm, answers in the interface on svc and
// checks pm receives the typed text.
func answerFromTextArea(t *testing.T, eng, pm *realAgent, svc Service) {
	t.Helper()
	tm := startReal(t, svc, "eng-suzuki")
	res, err := pm.Ask(context.Background(), agent.AskRequest{To: "eng-suzuki", Query: "how is auth going?"})
	if err != nil {
		t.Fatal(err)
	}
	// The ring quotes the question before the pane lists it: wait for the row.
	waitScreen(t, tm, "Queries · 1 need you")
	sendKeys(tm, "home", "enter")
	waitScreen(t, tm, "Answer query")
	tm.Type("JWT done, refresh tokens next")
	sendKeys(tm, "ctrl+s")
	msg := waitPeerMessage(t, pm, wire.EventQueryCompleted, "JWT done, refresh tokens next")
	if msg.RelatedID != res.QueryID || msg.From != "eng-suzuki" {
		t.Errorf("pm got %+v; want the answer to query %s from eng-suzuki", msg, res.QueryID)
	}
	waitScreen(t, tm, "answer sent")
	qs, err := eng.Queries(context.Background(), agent.QueryFilter{})
	if err != nil || len(qs) != 1 || qs[0].State != agent.QueryAnswered {
		t.Fatalf("eng queries = %+v, %v; want one answered", qs, err)
	}
}

// TestIntegrationQueryAnsweredInTextArea: a real PM's query reaches the
// engineer's Queries pane; the typed answer reaches the PM.
func TestIntegrationQueryAnsweredInTextArea(t *testing.T) {
	eng := startAgent(t, "eng-suzuki", "engineer", nil)
	pm := startAgent(t, "pm-tanaka", "pm", nil)
	pairAgents(t, eng, pm)
	answerFromTextArea(t, eng, pm, eng.Core)
}

// TestIntegrationAttachMode: the same flow through the control socket of a
// separately started core, as `aoi` does when `aoi serve` already runs.
func TestIntegrationAttachMode(t *testing.T) {
	eng := startAgent(t, "eng-suzuki", "engineer", nil)
	pm := startAgent(t, "pm-tanaka", "pm", nil)
	pairAgents(t, eng, pm)
	c, err := ctlclient.Dial(eng.Dir)
	if err != nil {
		t.Fatalf("dial the control socket: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	answerFromTextArea(t, eng, pm, c)
}

// TestIntegrationPromptBarRoundTrip: the PM asks from the prompt bar; the
// engineer's answer shows in the PM's interface when it arrives.
func TestIntegrationPromptBarRoundTrip(t *testing.T) {
	eng := startAgent(t, "eng-suzuki", "engineer", nil)
	pm := startAgent(t, "pm-tanaka", "pm", nil)
	pairAgents(t, eng, pm)
	tm := startReal(t, pm.Core, "pm-tanaka")
	sendKeys(tm, "@")
	tm.Type("eng-suzuki how is auth going?")
	sendKeys(tm, "enter")
	waitScreen(t, tm, "the answer will show in Messages")

	var qs []agent.Query
	until(t, "the query reaching eng", func() bool {
		qs, _ = eng.Queries(context.Background(), agent.QueryFilter{})
		return len(qs) == 1
	})
	if qs[0].Text != "how is auth going?" || qs[0].From != "pm-tanaka" {
		t.Fatalf("eng got %+v", qs[0])
	}
	if err := eng.Answer(context.Background(), agent.AnswerRequest{QueryID: qs[0].ID, Text: "70% done, blocked on Redis"}); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, tm, "eng-suzuki re “how is auth going?”")
	waitScreen(t, tm, "70% done, blocked on Redis")
}

// TestIntegrationTypedMessageWithTaskState: a colleague's task assignment
// (aoi.message from a real core) shows in the Messages pane with its type
// and text; opened, it shows the task's state, which follows the worker's
// progress report.
func TestIntegrationTypedMessageWithTaskState(t *testing.T) {
	grant := func(c *config.Config) {
		c.ACL.Rules = append(c.ACL.Rules, config.Rule{ID: "team-msg", AgentID: "*", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "write"})
	}
	eng := startAgent(t, "eng-suzuki", "engineer", grant)
	lead := startAgent(t, "lead-sato", "lead", grant)
	pairAgents(t, eng, lead)
	tm := startReal(t, eng.Core, "eng-suzuki")
	ctx := context.Background()
	sent, err := lead.SendMessage(ctx, agent.SendMessageRequest{To: "eng-suzuki", Type: wire.MsgTaskAssign, TaskID: "T-7",
		Payload: []byte(`{"description":"add logout tests"}`)})
	if err != nil || sent.Queued {
		t.Fatalf("assign = %+v, %v; want it delivered", sent, err)
	}
	waitScreen(t, tm, "Messages · 1 unread")
	// Read in the pane, not in a notice: a message that arrives before the
	// interface's first load of the list is listed without one.
	sendKeys(tm, "tab", "tab", "tab", "tab") // interrupts, approvals, audit, messages
	waitScreen(t, tm, "add logout tests")
	sendKeys(tm, "enter")
	waitScreen(t, tm, "task state: assigned (with lead-sato")
	if _, err := eng.SendMessage(ctx, agent.SendMessageRequest{Type: wire.MsgProgress, TaskID: "T-7", Payload: []byte(`{"percent":20}`)}); err != nil {
		t.Fatal(err)
	}
	sendKeys(tm, "esc", "enter")
	waitScreen(t, tm, "task state: in_progress (with lead-sato")
}
