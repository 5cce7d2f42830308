package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestWrapKeepsIDsWhole: an id with hyphens in a wrapped detail stays on
// one line when it fits (it broke at its hyphens, "m-" then "01j2…");
// paths still break after a slash, and a word wider than the line is
// broken rather than overflowing.
func TestWrapKeepsIDsWhole(t *testing.T) {
	id := "m-01j2abcd-ef34-5678"
	lines := wrap(`{"message_id": "`+id+`", "to": "eng-suzuki"}`, 24)
	found := false
	for _, l := range lines {
		found = found || strings.Contains(l, id)
		if ansi.StringWidth(l) > 24 {
			t.Errorf("line wider than 24 cells: %q", l)
		}
	}
	if !found {
		t.Errorf("the id was split over lines: %q", lines)
	}
	if lines := wrap("see /srv/aoi/data/queries.db now", 20); lines[0] != "see /srv/aoi/data/" {
		t.Errorf("a path does not break after its slash: %q", lines)
	}
	for _, l := range wrap(strings.Repeat("x", 50), 20) {
		if len(l) > 20 {
			t.Errorf("a long word overflows the width: %q", l)
		}
	}
}

// TestNoticeEndsOnAWord: a notice too long for one line wraps onto a
// second (the walk lost the end of one that said what to do), and one
// too long for two is cut after its last whole word (the walk saw "…
// answered: the deploy pipe…" cut inside a word at 100 columns); a
// notice that is one long token is still cut to the width.
func TestNoticeEndsOnAWord(t *testing.T) {
	m := newLoaded(t, fixtureService(), 60, 24, true)
	m.info("approved t-01j2abcd: run_tests for eng-suzuki starts when the runner is free")
	if frame := screen(m); !strings.Contains(frame, "approved t-01j2abcd: run_tests for eng-suzuki starts when") ||
		!strings.Contains(frame, "the runner is free") {
		t.Errorf("the notice at 60 columns does not go on to a second line:\n%s", frame)
	}
	m.info("approved t-01j2abcd: run_tests for eng-suzuki starts when the runner is free, after the two lint tasks queued before it by qa-ito")
	if frame := screen(m); !strings.Contains(frame, "queued before…") || strings.Contains(frame, "before it by") {
		t.Errorf("a notice longer than two lines is not cut after a word:\n%s", frame)
	}
	if got := truncateWords(strings.Repeat("x", 60), 20); ansi.StringWidth(got) != 20 {
		t.Errorf("one long token: %q is not cut to 20 cells", got)
	}
	if got := truncateWords("short", 20); got != "short" {
		t.Errorf("a notice that fits changed: %q", got)
	}
}

// TestDraftSaysEachThingOnce: the secretary's summary already names the
// blocker and the progress; the editable draft does not add them again
// (the walk saw the blocker twice in the sent answer), but adds those the
// summary leaves out.
func TestDraftSaysEachThingOnce(t *testing.T) {
	d := draftText([]byte(`{"summary":"auth: 3 matching events. In progress: about 75% done. Blocked by: refresh tokens blocked on Redis config.",` +
		`"progress":75,"blockers":["refresh tokens blocked on Redis config","the staging certificate"]}`))
	if n := strings.Count(d, "refresh tokens blocked on Redis config"); n != 1 {
		t.Errorf("the blocker is said %d times in the draft:\n%s", n, d)
	}
	if strings.Contains(d, "Progress: 75%") {
		t.Errorf("the progress is said twice:\n%s", d)
	}
	if !strings.Contains(d, "\nBlocker: the staging certificate") {
		t.Errorf("a blocker the summary leaves out is missing:\n%s", d)
	}
}

// TestApprovalPreviewShowsParamsWhole: a parameter too long for its row
// is read whole under the Approvals list, as a question is under Queries.
func TestApprovalPreviewShowsParamsWhole(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	m.setFocus(focusApprovals)
	m.approvals.approvals[0].Params = map[string]string{"suite": strings.Repeat("pkg/", 25) + "the-end"}
	frame := screen(m)
	if !strings.Contains(frame, "the-end") || !strings.Contains(frame, "waits for you") {
		t.Errorf("the selected request's parameters are not shown whole:\n%s", frame)
	}
	checkFrame(t, frame, 80, 24)
}
