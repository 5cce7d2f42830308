package agent_test

import (
	"os"
	"testing"

	"github.com/aoi-protocol/aoi/agent/task"
)

// TestMain lets the test binary serve as a task's reaper, as aoi does.
func TestMain(m *testing.M) {
	task.ReapIfAsked()
	os.Exit(m.Run())
}
