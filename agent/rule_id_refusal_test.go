package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// TestRefusalsDoNotNameTheOwnersRule: a peer refused by an ACL rule is
// told what it may not do and whom to ask, never the rule's id, which can
// say more than the owner means to tell (no-msgs-layoffs-team). The query
// path had been fixed; the attack pass found the id in the refusal of a
// task path holding a denied folder, of aoi.message and of aoi.notify.
// The owner's audit rows keep it.
func TestRefusalsDoNotNameTheOwnersRule(t *testing.T) {
	const secretsRule, msgsRule = "no-secrets-layoffs", "no-msgs-layoffs-team"
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"},
			{ID: secretsRule, AgentID: "*", ScopeType: "folder", ScopePattern: "acme/webapp/secrets/**", Permission: "none"},
			{ID: msgsRule, AgentID: "pm-tanaka", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "none"}}}
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

	_, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "catfile", Params: map[string]string{"pkg": "."}})
	if err == nil || !strings.Contains(err.Error(), "reaches acme/webapp/secrets") || strings.Contains(err.Error(), secretsRule) {
		t.Errorf("a task path holding secrets/: %v; want a denial naming the folder, not the rule", err)
	}
	client := rawClient(t, pm, eng)
	err = client.Call(ctx, wire.MethodMessage, wire.MessageParams{ID: "m-1", From: "pm-tanaka", To: "eng-suzuki", Type: wire.MsgNote,
		Payload: json.RawMessage(`{"text":"hi"}`), Timestamp: time.Now()}, nil)
	if err == nil || !strings.Contains(err.Error(), "messages") || strings.Contains(err.Error(), msgsRule) {
		t.Errorf("aoi.message: %v; want a denial naming the inbox, not the rule", err)
	}
	err = client.Call(ctx, wire.MethodNotify, wire.NotifyParams{From: "pm-tanaka", To: "eng-suzuki", Event: "note",
		Data: json.RawMessage(`{"text":"hi"}`), Timestamp: time.Now()}, nil)
	if err == nil || !strings.Contains(err.Error(), "messages") || strings.Contains(err.Error(), msgsRule) {
		t.Errorf("aoi.notify: %v; want a denial naming the inbox, not the rule", err)
	}
	for _, m := range []string{wire.MethodTaskExecute, wire.MethodMessage, wire.MethodNotify} {
		rows, err := eng.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka", Method: m})
		if err != nil || len(rows) == 0 || !strings.Contains(string(rows[0].Detail), "layoffs") {
			t.Errorf("the owner's audit row for %s does not name the rule: %+v (%v)", m, rows, err)
		}
	}
}
