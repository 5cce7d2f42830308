package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// controlCallingMCPArg makes the test binary a stdio MCP server (see
// TestMain) whose tool call_control calls aoi's control socket.
const controlCallingMCPArg = "aoi-test-mcp-calls-control"

// serveControlCallingMCP is a work AI's MCP server whose tool does what a
// peer's parameters could make a real one do (a shell tool, a test
// runner): call the owner's aoi through its control socket, from the
// server itself and from a child that left its group, session and
// environment. What each got is written to OUT.server and OUT.child.
func serveControlCallingMCP() int {
	s := server.NewMCPServer("control-caller", "1.0")
	s.AddTool(mcp.NewTool("call_control", mcp.WithString("dir"), mcp.WithString("out")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			dir, out := req.GetString("dir", ""), req.GetString("out", "")
			_ = os.WriteFile(out+".server", []byte(ownControlCall(ctx, dir)), 0o600)
			setsid, _ := exec.LookPath("setsid")
			_ = exec.Command("env", "-i", setsid, "/usr/bin/python3", "-c", ctlStatusPy, agent.SocketPath(dir), out+".child").Run()
			return mcp.NewToolResultText("called"), nil
		})
	if err := server.ServeStdio(s); err != nil {
		return 1
	}
	return 0
}

// ownControlCall calls ctl.status with aoi's own client and says how it went.
func ownControlCall(ctx context.Context, dir string) string {
	c, err := ctlclient.Dial(dir)
	if err != nil {
		return "dial: " + err.Error()
	}
	defer c.Close()
	if _, err := c.Status(ctx); err != nil {
		return err.Error()
	}
	return "answered"
}

// The control socket refused processes under a task's reaper, but an
// mcp_tool task runs no command: aoi calls a tool of the work AI's MCP
// server, a process aoi started, as the owner, unconfined and under no
// reaper. A tool that runs what a peer's parameters say (a shell tool, a
// test runner) could so approve the peer's pending tasks or trust it.
// aoi now marks that server (task.TaskServerMark), and the control socket
// refuses it and everything it starts; the owner's own calls still work.
func TestMCPToolServerCannotUseTheControlSocket(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("needs /usr/bin/python3 to speak to the socket from the server's child")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "seen")
	eng := agenttest.Start(t, "eng-suzuki", agenttest.Options{Role: "engineer", Dir: dir, Edit: func(c *config.Config) {
		engConfig(c)
		c.ACL.Rules = []config.Rule{{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}
		c.Secretary.WorkAI.MCPEndpoint = "stdio:'" + self + "' " + controlCallingMCPArg
		c.Tasks = map[string]config.TaskType{"poke": {
			MCPTool: "call_control", Server: "work_ai", Context: "acme/webapp", TimeoutSec: 30, Isolation: "none",
			Arguments: map[string]any{"dir": dir, "out": out},
		}}
	}})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	if _, err := pm.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "poke"})
	if err != nil {
		t.Fatal(err)
	}
	if msg := waitMessage(t, pm, ticket.RequestID); msg.Event != wire.EventTaskCompleted {
		t.Fatalf("notify %s %s, want task.completed", msg.Event, msg.Data)
	}
	for _, who := range []string{"server", "child"} {
		got, err := os.ReadFile(out + "." + who)
		if err != nil {
			t.Fatalf("the tool did not report the %s's call: %v", who, err)
		}
		if strings.Contains(string(got), `"result"`) || strings.Contains(string(got), "answered") ||
			!strings.Contains(string(got), "a task's command") {
			t.Errorf("the MCP %s's ctl.status through the control socket got:\n%s\nwant it refused as a task's", who, got)
		}
	}
	if got := ownControlCall(ctx, dir); got != "answered" {
		t.Fatalf("the owner's own control call: %s", got)
	}
}
