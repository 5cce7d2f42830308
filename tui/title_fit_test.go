package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestNarrowTitleKeepsItsRowCounts: a title too wide for its pane writes
// its counts of the rows above and below short before anything is cut (a
// narrow pane's "… · ↑ 3 above · ↓ 20 below" lost the count below to the
// cut); a title that fits is left as it is.
func TestNarrowTitleKeepsItsRowCounts(t *testing.T) {
	title := "Queries · 35 need you · ↑ 3 above · ↓ 20+ below"
	if got := fitTitle(title, 60); got != title {
		t.Errorf("fitTitle at 60 = %q, want it whole", got)
	}
	got := fitTitle(title, 36)
	if got != "Queries · 35 need you · ↑3 · ↓20+" {
		t.Errorf("fitTitle at 36 = %q, want the counts written short", got)
	}
	if w := ansi.StringWidth(fitTitle(title, 20)); w > 20 || !strings.HasSuffix(fitTitle(title, 20), ellipsis) {
		t.Errorf("fitTitle at 20 = %q (%d cells), want it cut to 20", fitTitle(title, 20), w)
	}
}
