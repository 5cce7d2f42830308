package tui

import (
	"strings"
	"testing"
)

// TestFlowApprovalsTaskColumnHoldsTheTypeName: the TASK column widens for
// the type names on screen, so a PARAMS column with room to spare no
// longer leaves the walk's list_files cut to "list_fil…", at full width
// and in a narrow pane alike.
func TestFlowApprovalsTaskColumnHoldsTheTypeName(t *testing.T) {
	for _, sz := range [][2]int{{100, 30}, {60, 20}} {
		svc := fixtureService()
		svc.approvals[1].TaskType = "list_files"
		svc.tasks[1].Type = "integration"
		tm, _ := startFlowAt(t, svc, Options{}, sz[0], sz[1])
		sendKeys(tm, "tab", "tab")
		waitScreen(t, tm, "┏━ Approvals")
		// The pane is drawn before its rows arrive (the suite's full run,
		// under load, read it empty): wait for a row first.
		waitScreen(t, tm, "integration")
		frame := flowFrame(tm)
		for _, name := range []string{"list_files ", "integration "} {
			if !strings.Contains(frame, name) {
				t.Errorf("%dx%d: the TASK column cuts %q:\n%s", sz[0], sz[1], strings.TrimSpace(name), frame)
			}
		}
	}
}
