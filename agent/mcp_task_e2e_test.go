package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// everythingEndpoint is the stdio endpoint of the reference MCP server
// (@modelcontextprotocol/server-everything, installed by make mcp-deps).
func everythingEndpoint(t *testing.T) string {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed; install Node.js 18+ and run make mcp-deps")
	}
	js, _ := filepath.Abs(filepath.Join("..", "test", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if _, err := os.Stat(js); err != nil {
		t.Fatal("test/mcp/node_modules is missing: run make mcp-deps")
	}
	return "stdio:'" + node + "' '" + js + "' stdio"
}

// TestMCPToolTaskRunsThroughTheWorkAI: a task type mapped to the reference
// server's echo tool is requested by a peer, approved by the owner, run
// through the MCP bridge, and its result reaches the requester.
func TestMCPToolTaskRunsThroughTheWorkAI(t *testing.T) {
	endpoint := everythingEndpoint(t)
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		engConfig(c)
		// No folder rule here: a peer kept from part of the checkout
		// gets no MCP tool task (TestWholeTreeTaskLeavesDeniedFoldersOut).
		c.ACL.Rules = []config.Rule{{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}
		c.Secretary.WorkAI.MCPEndpoint = endpoint
		c.Tasks = map[string]config.TaskType{"echo": {
			MCPTool: "echo", Server: "work_ai", Context: "acme/webapp", TimeoutSec: 30, Isolation: "none",
			Arguments: map[string]any{"message": "suite={{suite}}"},
			Params:    map[string]config.Param{"suite": {Default: "./...", Pattern: `^\./[A-Za-z0-9_./-]*$`}},
			Approval:  config.Approval{Required: true},
		}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	pm.Discover(context.Background())
	ctx := context.Background()
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "echo", Params: map[string]string{"suite": "./auth/..."}})
	if err != nil {
		t.Fatal(err)
	}
	pending := onePending(t, eng)
	if err := eng.Approve(ctx, agent.ApproveRequest{ID: pending.ID}); err != nil {
		t.Fatal(err)
	}
	msg := waitMessage(t, pm, ticket.RequestID)
	if msg.Event != wire.EventTaskCompleted || !strings.Contains(string(msg.Data), "suite=./auth/...") {
		t.Fatalf("notify %s %s, want task.completed echoing the filled argument", msg.Event, msg.Data)
	}
}
