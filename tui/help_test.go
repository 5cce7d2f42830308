package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/keymap"
)

// TestFlowHelpHeadingsFit: at 60×20 and up, `?` shows every heading of the
// help on one line (at 60×20 the Approvals heading wrapped its end onto
// the next line, under the other half).
func TestFlowHelpHeadingsFit(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {100, 30}, {120, 36}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			tm, _ := startFlowAt(t, fixtureService(), Options{}, sz[0], sz[1])
			sendKeys(tm, "?")
			waitScreen(t, tm, "everywhere")
			tm.mu.Lock()
			frame := tm.frame
			tm.mu.Unlock()
			checkFrame(t, frame, sz[0], sz[1])
			for _, title := range keymap.FullHelpTitles {
				if !strings.Contains(frame, title) {
					t.Errorf("heading %q is not whole on one line:\n%s", title, frame)
				}
			}
		})
	}
}
