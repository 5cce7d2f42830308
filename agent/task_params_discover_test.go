package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/config"
)

// TestPeersLearnTaskParameters: the walk's PM could not find out what
// parameters eng's run_tests takes. What eng announces now carries each
// task type's parameters (names, allowed values, required), for the task
// types the peer may ask for only, and pm's registry keeps them for the
// interface and `aoi peers --json`.
func TestPeersLearnTaskParameters(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}, {Type: "repository", Identifier: "acme/payroll"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{
			"run_tests": {Command: []string{"make", "test", "SUITE={{suite}}", "V={{verbose}}", "MODE={{mode}}"}, Context: "acme/webapp", TimeoutSec: 30, Isolation: "none",
				Params: map[string]config.Param{
					"mode":    {Enum: []string{"fast", "full"}},
					"suite":   {Description: "which suite", Enum: []string{"auth", "billing"}, Required: true},
					"verbose": {Default: "0", Pattern: "^[01]$"}}},
			"payrun": {Command: []string{"make", "pay", "{{month}}"}, Context: "acme/payroll", TimeoutSec: 30, Isolation: "none",
				Params: map[string]config.Param{"month": {Required: true}}}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	if _, err := eng.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	peers, err := pm.Peers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(peers, func(p agent.Peer) bool { return p.AgentID == "eng-suzuki" })
	if i < 0 {
		t.Fatal("pm does not list eng-suzuki")
	}
	raw, _ := json.Marshal(peers[i].TaskParams)
	ps := peers[i].TaskParams["run_tests"]
	// The required one first (the third walk read the optional mode
	// before the suite it must give), then the rest by name.
	if len(ps) != 3 || ps[0].Name != "suite" || !ps[0].Required || !slices.Equal(ps[0].Enum, []string{"auth", "billing"}) ||
		ps[1].Name != "mode" || ps[2].Name != "verbose" || ps[2].Default != "0" {
		t.Errorf("pm learns run_tests' parameters as %s; want suite (required, auth|billing), then mode and verbose (default 0)", raw)
	}
	if _, ok := peers[i].TaskParams["payrun"]; ok {
		t.Errorf("pm learns of payrun's parameters (%s), a task type it may not ask for", raw)
	}
}
