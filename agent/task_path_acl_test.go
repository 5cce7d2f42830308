package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
)

// TestTaskPathParamMeetsFolderRules: a task's path parameter is checked
// against folder rules like a query's scope: the attack run had
// `catfile pkg=secrets/plan.txt` accepted although no-secrets gives every
// peer nothing under secrets/. A path outside the folder still goes
// through to approval.
func TestTaskPathParamMeetsFolderRules(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		engConfig(c)
		c.ACL.Rules = append(c.ACL.Rules, config.Rule{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"})
		c.Tasks = map[string]config.TaskType{"catfile": {
			Command: []string{"cat", "{{pkg}}"}, Context: "acme/webapp", TimeoutSec: 30, Isolation: "none",
			Params:   map[string]config.Param{"pkg": {Type: config.ParamTypePath}},
			Approval: config.Approval{Required: true},
		}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	pm.Discover(ctx)
	_, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "catfile", Params: map[string]string{"pkg": "secrets/plan.txt"}})
	if err == nil || !strings.Contains(err.Error(), "no execute access to acme/webapp/secrets/plan.txt: rule no-secrets grants none") {
		t.Fatalf("a path under secrets/: %v, want a denial", err)
	}
	if aps, _ := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending}); len(aps) != 0 {
		t.Fatalf("the denied request still waits for approval: %+v", aps)
	}
	if _, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "catfile", Params: map[string]string{"pkg": "README.md"}}); err != nil {
		t.Fatalf("a path outside the folder rule: %v", err)
	}
}
