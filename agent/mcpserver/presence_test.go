package mcpserver_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/config"
)

// TestCheckMessagesIsTheHeartbeat: the worker's assistant polling
// aoi_check_messages (the official SDK client through `aoi mcp`) keeps its
// agent online; when it stops for network.assistant_away_after_sec the
// lead's assistant sees the worker away in aoi_discover, and online again
// after its next poll.
func TestCheckMessagesIsTheHeartbeat(t *testing.T) {
	t.Parallel()
	lead := startCore(t, "lead-hb", "lead")
	worker := agenttest.Start(t, "worker-hb", agenttest.Options{Role: "engineer", Dir: t.TempDir(), Edit: func(c *config.Config) {
		mcpConfig(c)
		c.Network.AssistantAwayAfterSec = 1
	}})
	trustBoth(t, lead, worker)
	d := startDriver(t, map[string]string{"lead": lead.Dir, "worker": worker.Dir})
	statusSeenByLead := func() string {
		t.Helper()
		var out struct {
			Agents []agent.Peer `json:"agents"`
		}
		d.ok("lead", "aoi_discover", map[string]any{"refresh": true}, &out)
		i := slices.IndexFunc(out.Agents, func(p agent.Peer) bool { return p.AgentID == worker.ID })
		if i < 0 {
			t.Fatalf("lead's aoi_discover lists %+v, without %s", out.Agents, worker.ID)
		}
		return out.Agents[i].Status
	}
	if s := statusSeenByLead(); s != agent.PeerOnline {
		t.Fatalf("worker before its assistant ever polled = %s, want online (no assistant is not away)", s)
	}
	d.ok("worker", "aoi_check_messages", map[string]any{}, nil)
	if s := statusSeenByLead(); s != agent.PeerOnline {
		t.Fatalf("worker right after a poll = %s, want online", s)
	}
	eventually(t, 10*time.Second, "the lead sees the silent worker away", func() bool { return statusSeenByLead() == agent.PeerAway })
	d.ok("worker", "aoi_check_messages", map[string]any{"last_id": 0}, nil)
	if s := statusSeenByLead(); s != agent.PeerOnline {
		t.Fatalf("worker after polling again = %s, want online", s)
	}
}

// TestRemoteTaskStatusHasTypeAndTimes: aoi_task_status with an agent (and
// `aoi task status AGENT ID`) reports a task the peer runs for us with its
// task_type and created_at/updated_at, not blanks and zero times.
func TestRemoteTaskStatusHasTypeAndTimes(t *testing.T) {
	t.Parallel()
	runner := agenttest.Start(t, "runner-ts", agenttest.Options{Role: "engineer", Dir: t.TempDir(), Edit: func(c *config.Config) {
		mcpConfig(c)
		c.ACL.Rules = append(c.ACL.Rules, config.Rule{ID: "team-exec", AgentID: "*", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"})
		c.Tasks = map[string]config.TaskType{"lint": {Command: []string{"true"}, Context: "acme/webapp", TimeoutSec: 10, Isolation: config.IsolationNone,
			Approval: config.Approval{Required: true}}} // waits for the owner: its state holds still
	}})
	asker := startCore(t, "asker-ts", "pm")
	trustBoth(t, runner, asker)
	ticket, err := asker.RequestTask(t.Context(), agent.TaskRequest{To: runner.ID, TaskType: "lint"})
	if err != nil {
		t.Fatal(err)
	}
	check := func(how string, st agent.Task) {
		t.Helper()
		if st.ID != ticket.TaskID || st.Type != "lint" || st.State != agent.TaskPending || st.CreatedAt.IsZero() ||
			st.UpdatedAt.Before(st.CreatedAt) || time.Since(st.CreatedAt) > time.Minute {
			t.Errorf("%s = %+v, want task %s of type lint, pending, with its created and updated times", how, st, ticket.TaskID)
		}
	}
	d := startDriver(t, map[string]string{"asker": asker.Dir})
	var st agent.Task
	d.ok("asker", "aoi_task_status", map[string]any{"agent": runner.ID, "task_id": ticket.TaskID}, &st)
	check("aoi_task_status", st)

	out, err := exec.Command(needBinary(t), "--data-dir", asker.Dir, "--json", "task", "status", runner.ID, ticket.TaskID).Output()
	if err != nil {
		t.Fatalf("aoi task status: %v", err)
	}
	st = agent.Task{}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("aoi task status --json printed %q: %v", out, err)
	}
	check("aoi task status --json", st)
	out, err = exec.Command(needBinary(t), "--data-dir", asker.Dir, "task", "status", runner.ID, ticket.TaskID).Output()
	if err != nil || !strings.Contains(string(out), "lint") {
		t.Errorf("aoi task status = %s (%v), want the task type named", out, err)
	}
}
