package agent_test

import (
	"os"
	"testing"

	"github.com/aoi-protocol/aoi/agent/task"
)

// TestMain lets the test binary serve as a task's reaper, as aoi does,
// and as the work AI's MCP server of TestMCPToolServerCannotUseTheControlSocket.
func TestMain(m *testing.M) {
	task.ReapIfAsked()
	if len(os.Args) > 1 && os.Args[1] == controlCallingMCPArg {
		os.Exit(serveControlCallingMCP())
	}
	os.Exit(m.Run())
}
