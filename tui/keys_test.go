package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/keymap"
)

func TestFocusRing(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	want := []focus{focusInterrupts, focusApprovals, focusAudit, focusMessages, focusPeers, focusQueries}
	for _, f := range want {
		press(t, m, "tab")
		if m.focus != f {
			t.Fatalf("tab: focus = %d; want %d", m.focus, f)
		}
	}
	press(t, m, "shift+tab")
	if m.focus != focusPeers {
		t.Errorf("shift+tab: focus = %d; want peers", m.focus)
	}
	if !m.peers.focused || m.queries.focused {
		t.Error("only the focused pane may be marked focused")
	}
}

func TestApproveWithY(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "tab", "tab") // approvals; first row is a-3 (expires soonest)
	press(t, m, "down", "y")
	pump(t, m, func() tea.Msg { return flushMsg{} })
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"approve a-2"}) {
		t.Fatalf("calls = %v", got)
	}
	for _, a := range m.approvals.approvals {
		if a.ID == "a-2" {
			t.Error("approved row is still listed as pending")
		}
	}
	if !strings.Contains(screen(m), "approved run_tests from pm-tanaka (suite=./auth/...)") {
		t.Errorf("no confirmation in the status line:\n%s", screen(m))
	}
}

func TestRejectAsksForReason(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "tab", "tab", "n")
	if len(m.dialogs) != 1 {
		t.Fatal("n did not open the reason dialog")
	}
	press(t, m, "q") // typed into the dialog, not quit
	typeText(t, m, "uiet hours")
	press(t, m, "enter")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"reject a-3 quiet hours"}) {
		t.Fatalf("calls = %v", got)
	}
	if len(m.dialogs) != 0 {
		t.Error("dialog still open after submit")
	}
}

func TestDialogEscCancels(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "tab", "tab", "n", "esc")
	if len(m.dialogs) != 0 || len(svc.Calls()) != 0 {
		t.Errorf("esc: dialogs=%d calls=%v", len(m.dialogs), svc.Calls())
	}
}

func TestAnswerFromTextArea(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "enter") // queries pane, q-7 escalated, draft pre-filled
	d, ok := m.topDialog().(*answerDialog)
	if !ok {
		t.Fatalf("enter opened %T", m.topDialog())
	}
	if !strings.Contains(d.area.Value(), "Auth refactor is 70% done") {
		t.Fatalf("draft not pre-filled: %q", d.area.Value())
	}
	typeText(t, m, " ETA Friday.")
	press(t, m, "ctrl+s")
	calls := svc.Calls()
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "answer q-7 Auth refactor") || !strings.HasSuffix(calls[0], "ETA Friday.") {
		t.Fatalf("calls = %q", calls)
	}
}

func TestDeclineWithReason(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "d")
	typeText(t, m, "ask in standup")
	press(t, m, "enter")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"decline q-7 ask in standup"}) {
		t.Fatalf("calls = %v", got)
	}
}

func TestReleaseOneAndAll(t *testing.T) {
	svc := fixtureService()
	for i := range svc.queries {
		if svc.queries[i].ID == "q-4" {
			svc.queries[i].Confidence = 0.72 // no guess: releasing all sends it
		}
	}
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "tab", "r")
	// Sending every draft asks first, saying how many.
	press(t, m, "R")
	d, ok := m.topDialog().(*confirmDialog)
	if !ok || !strings.Contains(d.body, "Send 1 buffered question the secretary's draft") {
		t.Fatalf("R opened %T %+v, want a confirmation naming the count", m.topDialog(), d)
	}
	press(t, m, "y")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{`release "q-5"`, `release ""`}) {
		t.Fatalf("calls = %v", got)
	}
	if !strings.Contains(screen(m), "sent 1 buffered question the secretary's draft") {
		t.Errorf("the notice does not say how many were sent:\n%s", screen(m))
	}
}

// TestReleaseLeavesDraftsThatFoundNothing: r on a question whose draft
// found no work sends nothing and says what to do; R counts it out (the
// walk's asker got "No recorded work matches …" as the owner's reply).
func TestReleaseLeavesDraftsThatFoundNothing(t *testing.T) {
	svc := fixtureService()
	nothing, _ := json.Marshal(map[string]any{"summary": "No recorded work matches \"invoice export\"."})
	svc.queries = append(svc.queries, agent.Query{ID: "q-9", From: "pm-tanaka", Text: "invoice export?", Priority: "normal",
		State: agent.QueryBuffered, Decision: "BUFFER", Draft: nothing, ReceivedAt: fixedNow.Add(-time.Minute)})
	// A guess: it found work, but at 0.25 (the walk's draft answered
	// another question). R leaves it too.
	guess, _ := json.Marshal(map[string]any{"summary": "Done: nothing recorded.", "context_refs": []map[string]any{{"type": "note", "ref": "note:1"}}})
	svc.queries = append(svc.queries, agent.Query{ID: "q-10", From: "qa-ito", Text: "did you review the onboarding doc?", Priority: "low",
		State: agent.QueryBuffered, Decision: "BUFFER", Draft: guess, Confidence: 0.251, ReceivedAt: fixedNow.Add(-time.Minute)})
	m := newLoaded(t, svc, 100, 30, true)
	press(t, m, "tab")
	for i := 0; i < len(m.interrupts.rows) && m.interrupts.rows[m.interrupts.list.cursor].ID != "q-9"; i++ {
		press(t, m, "j")
	}
	press(t, m, "r")
	if len(svc.Calls()) != 0 || !strings.Contains(m.notice.text, "found no work for pm-tanaka") {
		t.Fatalf("r on a no-work draft: calls %v, notice %q", svc.Calls(), m.notice.text)
	}
	press(t, m, "R")
	d, ok := m.topDialog().(*confirmDialog)
	// q-5 goes; q-4 (the fixture's guess), q-9 and q-10 stay.
	if !ok || !strings.Contains(d.body, "Send 1 buffered question") || !strings.Contains(d.body, "3 questions whose drafts found no work or are guesses stay") {
		t.Fatalf("R opened %T %+v; want the no-work question and the guess counted out", m.topDialog(), d)
	}
}

// TestReleaseAllWithNothingBuffered: :release with nothing buffered says
// so, and sends nothing.
func TestReleaseAllWithNothingBuffered(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	m.interrupts.rows = nil
	m.runAction(releaseAction{})
	if len(svc.Calls()) != 0 || m.topDialog() != nil || !strings.Contains(m.notice.text, "nothing buffered to release") {
		t.Fatalf("calls %v, dialog %T, notice %q", svc.Calls(), m.topDialog(), m.notice.text)
	}
}

// TestUnsentAnswerIsKept: an answer that could not be sent is offered
// again when the question is reopened, not replaced by the draft.
func TestUnsentAnswerIsKept(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	svc.failWith = errors.New("the core is shutting down; try again in a moment")
	press(t, m, "enter")
	press(t, m, "ctrl+x") // clear the draft
	typeText(t, m, "No, keeping the name.")
	press(t, m, "ctrl+s")
	if !strings.Contains(m.notice.text, "your answer is kept") {
		t.Fatalf("notice %q does not say the answer is kept", m.notice.text)
	}
	press(t, m, "enter")
	d, ok := m.topDialog().(*answerDialog)
	if !ok || d.area.Value() != "No, keeping the name." {
		t.Fatalf("reopened %T with %q, want the unsent answer", m.topDialog(), d.area.Value())
	}
	svc.failWith = nil
	press(t, m, "ctrl+s")
	if calls := svc.Calls(); len(calls) == 0 || calls[len(calls)-1] != "answer q-7 No, keeping the name." {
		t.Fatalf("calls = %q, want the kept answer sent", calls)
	}
	if len(m.unsent) != 0 {
		t.Errorf("a sent answer is still kept: %q", m.unsent)
	}
}

// TestAnswerToNoQuestionIsNotKept: an answer the core refuses because the
// question is gone or answered already is not promised back (the walk saw
// ":answer q-zzz hi" say "your answer is kept: open the question again").
func TestAnswerToNoQuestionIsNotKept(t *testing.T) {
	for _, err := range []error{agent.ErrNotFound, agent.ErrConflict} {
		svc := fixtureService()
		m := newLoaded(t, svc, 80, 24, true)
		svc.failWith = fmt.Errorf("no such question: %w", err)
		press(t, m, ":")
		typeText(t, m, "answer q-7 hi")
		press(t, m, "enter")
		if strings.Contains(m.notice.text, "kept") || len(m.unsent) != 0 {
			t.Errorf("%v: notice %q, unsent %q; want nothing kept", err, m.notice.text, m.unsent)
		}
	}
}

func TestTrustAndRefuse(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "shift+tab", "x") // peers; the pending request is first
	if _, ok := m.topDialog().(*confirmDialog); !ok || len(svc.Calls()) != 0 {
		t.Fatalf("x must ask for confirmation first; dialog %T, calls %v", m.topDialog(), svc.Calls())
	}
	press(t, m, "y")
	press(t, m, "down", "t") // t on a pinned peer does nothing
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"refuse SHA256:3f:a9:1c:77:0e:52:b4:d1:9a:20:6e:8f:c3:11"}) {
		t.Fatalf("calls = %v", got)
	}
	svc2 := fixtureService()
	m2 := newLoaded(t, svc2, 80, 24, true)
	press(t, m2, "shift+tab", "t")
	d, ok := m2.topDialog().(*trustDialog)
	if !ok {
		t.Fatalf("t opened %T; want the trust dialog", m2.topDialog())
	}
	if !strings.Contains(screen(m2), "SHA256:3f:a9") {
		t.Errorf("the trust dialog must show the fingerprint to compare:\n%s", screen(m2))
	}
	d.id.SetValue("")
	press(t, m2, "enter")
	if len(svc2.Calls()) != 0 || !strings.Contains(screen(m2), "an agent id is required") {
		t.Fatalf("an empty id must be refused with a reason; calls %v\n%s", svc2.Calls(), screen(m2))
	}
	typeText(t, m2, "stranger")
	press(t, m2, "enter")
	if got := svc2.Calls(); len(got) != 1 || !strings.HasPrefix(got[0], "trust stranger SHA256:3f") || strings.Contains(got[0], "role=") {
		t.Fatalf("calls = %v", got)
	}
}

// TestRefuseAPinnedPeer: x on a pinned peer asks whether to stop trusting
// it, and yes untrusts it by its fingerprint.
func TestRefuseAPinnedPeer(t *testing.T) {
	svc := fixtureService()
	svc.peers[0].Fingerprint = strings.Repeat("ab", 32) // pm-tanaka
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "shift+tab", "down") // past the pending request to pm-tanaka
	if r, _ := m.peers.selected(); r.AgentID != "pm-tanaka" {
		t.Fatalf("selected %q, want pm-tanaka", r.AgentID)
	}
	press(t, m, "x")
	if _, ok := m.topDialog().(*confirmDialog); !ok || !strings.Contains(screen(m), "Stop trusting") {
		t.Fatalf("x on a pinned peer: dialog %T\n%s", m.topDialog(), screen(m))
	}
	press(t, m, "y")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"refuse " + strings.Repeat("ab", 32)}) {
		t.Fatalf("calls = %v", got)
	}
	if !strings.Contains(screen(m), "pm-tanaka is no longer trusted") {
		t.Errorf("no notice that pm-tanaka is no longer trusted:\n%s", screen(m))
	}
}

// TestTrustDialogGivesARole: tab moves to the role field, and the role
// typed there is the one the trust gives the peer (ACL rules match it;
// without it a role rule never matches a peer trusted from the interface).
func TestTrustDialogGivesARole(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "shift+tab", "t")
	d, ok := m.topDialog().(*trustDialog)
	if !ok {
		t.Fatalf("t opened %T; want the trust dialog", m.topDialog())
	}
	d.id.SetValue("pm-tanaka")
	press(t, m, "tab")
	typeText(t, m, "pm")
	if !strings.Contains(screen(m), "role") {
		t.Errorf("the trust dialog shows no role field:\n%s", screen(m))
	}
	press(t, m, "enter")
	if got := svc.Calls(); len(got) != 1 || !strings.HasPrefix(got[0], "trust pm-tanaka SHA256:3f") || !strings.HasSuffix(got[0], " role=pm") {
		t.Fatalf("calls = %v, want pm-tanaka trusted with role pm", got)
	}
}

func TestServiceErrorShownNotFatal(t *testing.T) {
	svc := fixtureService()
	svc.failWith = errors.New("the core is shutting down; try again in a moment")
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "tab", "tab", "y")
	if !strings.Contains(screen(m), "approving lint from eng-佐藤 (approval a-3) failed: the core is shutting down") {
		t.Errorf("error not shown:\n%s", screen(m))
	}
}

func TestQuitKeys(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	for _, k := range []string{"q", "ctrl+c"} {
		_, cmd := m.Update(keyMsg(k))
		if cmd == nil {
			t.Fatalf("%s: no command", k)
		}
		if _, ok := cmd().(tea.QuitMsg); !ok {
			t.Errorf("%s did not quit", k)
		}
	}
	press(t, m, ":")
	_, cmd := m.Update(keyMsg("q"))
	if cmd != nil {
		if _, ok := cmd().(tea.QuitMsg); ok {
			t.Error("q in the prompt bar quit")
		}
	}
}

func TestKeymapOverrideRoutes(t *testing.T) {
	svc := fixtureService()
	k, err := keymap.Default().Apply(map[string]string{"approve": "a"})
	if err != nil {
		t.Fatal(err)
	}
	m := New(svc, Options{Now: clock, Location: time.UTC, KeyMap: &k})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, c := range m.fetchCmds(dAll) {
		pump(t, m, c)
	}
	press(t, m, "tab", "tab", "y", "a")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"approve a-3"}) {
		t.Fatalf("calls = %v", got)
	}
}

func TestResizeRelayout(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	for _, sz := range [][2]int{{60, 20}, {200, 50}, {61, 21}, {40, 10}, {80, 24}} {
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		checkFrame(t, screen(m), sz[0], sz[1])
	}
}

func TestStaleFetchDropped(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	newer := fetched[[]agent.Query]{seq: m.seq + 2, val: []agent.Query{{ID: "new", State: agent.QueryEscalated}}}
	older := fetched[[]agent.Query]{seq: m.seq + 1, val: []agent.Query{{ID: "old", State: agent.QueryEscalated}}}
	m.Update(newer)
	m.Update(older)
	if len(m.queries.rows) != 1 || m.queries.rows[0].ID != "new" {
		t.Errorf("rows = %+v; the older result overwrote the newer", m.queries.rows)
	}
}

func TestTooSmallStillRoutesQuit(t *testing.T) {
	m := newLoaded(t, fixtureService(), 50, 10, true)
	if !strings.Contains(screen(m), "needs at least 60×20") {
		t.Error("no size notice")
	}
	// The size it needs shows even in a very narrow terminal.
	m.Update(tea.WindowSizeMsg{Width: 24, Height: 8})
	if s := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(s, "60×20") || !strings.Contains(s, "24×8") {
		t.Errorf("at 24×8 the notice lost the sizes:\n%s", screen(m))
	}
	_, cmd := m.Update(keyMsg("q"))
	if cmd == nil {
		t.Fatal("q ignored when small")
	}
}

func TestExpiryCountdownTicks(t *testing.T) {
	now := fixedNow
	svc := fixtureService()
	m := New(svc, Options{Now: func() time.Time { return now }, Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for _, c := range m.fetchCmds(dAll) {
		pump(t, m, c)
	}
	m.setFocus(focusApprovals)
	if !strings.Contains(screen(m), "45s") {
		t.Fatalf("no countdown:\n%s", screen(m))
	}
	now = now.Add(50 * time.Second)
	m.Update(tickMsg(now))
	if !strings.Contains(screen(m), "expired") {
		t.Errorf("countdown did not advance:\n%s", screen(m))
	}
}

func TestRunRefusesBadConfigBeforeTouchingTheTerminal(t *testing.T) {
	err := Run(t.Context(), fixtureService(), Options{Theme: "solarized"})
	if err == nil || !strings.Contains(err.Error(), `"solarized"`) {
		t.Errorf("Run with an unknown theme = %v", err)
	}
	k := keymap.Default()
	k.Approvals.Reject.SetKeys("y")
	err = Run(t.Context(), fixtureService(), Options{KeyMap: &k})
	if err == nil || !strings.Contains(err.Error(), `"y"`) {
		t.Errorf("Run with clashing keys = %v", err)
	}
}

// pageDownTo presses pgdown until the screen shows want, at most 10 times.
func pageDownTo(t *testing.T, m *Model, want string) {
	t.Helper()
	for i := 0; i < 10 && !strings.Contains(screen(m), want); i++ {
		press(t, m, "pgdown")
	}
}

// TestAnswerDialogScrollsALongQuestion: a question longer than half the
// answer dialog shows a window of it with which lines those are; pgdown
// and pgup scroll it to the end and back while the text area keeps the
// focus (typing goes on into the answer).
func TestAnswerDialogScrollsALongQuestion(t *testing.T) {
	svc := fixtureService()
	svc.queries[0].Text = longQuestion(30)
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "enter") // q-7
	frame := screen(m)
	if !strings.Contains(frame, "Point 1 of") || strings.Contains(frame, "LAST-WORDS") || !strings.Contains(frame, "pgup/pgdown scroll the question") {
		t.Fatalf("a long question opens at its start with a hint to scroll:\n%s", frame)
	}
	pageDownTo(t, m, "LAST-WORDS")
	frame = screen(m)
	if !strings.Contains(frame, "LAST-WORDS") || !strings.Contains(frame, "Answer") {
		t.Fatalf("pgdown never reached the end of the question:\n%s", frame)
	}
	checkFrame(t, frame, 80, 24)
	typeText(t, m, "ok")
	if v := m.topDialog().(*answerDialog).area.Value(); !strings.HasSuffix(v, "ok") {
		t.Errorf("typing after scrolling does not reach the answer: %q", v)
	}
	for i := 0; i < 10; i++ {
		press(t, m, "pgup")
	}
	if frame = screen(m); !strings.Contains(frame, "Point 1 of") {
		t.Errorf("pgup does not scroll back to the start:\n%s", frame)
	}
}

// TestDeclineDialogScrollsALongQuestion: the decline dialog shows the
// question being declined; a long one shows a window with which lines
// those are, pgdown scrolls to its end, the reason typed meanwhile goes
// into the field, and enter sends it.
func TestDeclineDialogScrollsALongQuestion(t *testing.T) {
	svc := fixtureService()
	svc.queries[0].Text = longQuestion(40)
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "d") // q-7
	frame := screen(m)
	// Worded as the answer dialog words it (the fourteenth walk read
	// "scroll the text above" here).
	if !strings.Contains(frame, "Point 1 of") || strings.Contains(frame, "LAST-WORDS") || !strings.Contains(frame, "pgup/pgdown scroll the question") {
		t.Fatalf("a long question opens at its start with a hint to scroll:\n%s", frame)
	}
	pageDownTo(t, m, "LAST-WORDS")
	if frame = screen(m); !strings.Contains(frame, "LAST-WORDS") {
		t.Fatalf("pgdown never reached the end of the question:\n%s", frame)
	}
	checkFrame(t, frame, 80, 24)
	typeText(t, m, "out of scope")
	press(t, m, "enter")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"decline q-7 out of scope"}) {
		t.Fatalf("calls = %v", got)
	}
}

// longQuestion is a question of n numbered sentences ending in LAST-WORDS,
// too long for a dialog at 80x24.
func longQuestion(n int) string {
	var q strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&q, "Point %d of the rollout plan needs your view. ", i)
	}
	q.WriteString("LAST-WORDS")
	return q.String()
}

// TestCtrlCClearsThePrompt: ctrl+c with a half-written line in the prompt
// bar clears it and leaves the prompt bar, as it cancels a dialog; with the
// prompt bar closed it quits.
func TestCtrlCClearsThePrompt(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	press(t, m, "@")
	typeText(t, m, "pm-tanaka is the release on")
	_, cmd := m.Update(keyMsg("ctrl+c"))
	if quits(cmd) {
		t.Fatal("ctrl+c with a half-written question quit aoi")
	}
	if m.focus == focusPrompt || m.prompt.value() != "" {
		t.Errorf("ctrl+c must clear the prompt bar and leave it: focus %d, value %q", m.focus, m.prompt.value())
	}
	if frame := screen(m); !strings.Contains(frame, "prompt cleared") {
		t.Errorf("no notice says what ctrl+c did:\n%s", frame)
	}
	if _, cmd = m.Update(keyMsg("ctrl+c")); !quits(cmd) {
		t.Error("ctrl+c with the prompt bar closed must quit")
	}
}

// TestCtrlCClosesAnEmptyPrompt: the prompt bar holding only the ":" or "@"
// that opened it shows "› @"; ctrl+c there closes it instead of quitting,
// and a second ctrl+c quits.
func TestCtrlCClosesAnEmptyPrompt(t *testing.T) {
	for _, trigger := range []string{"@", ":"} {
		m := newLoaded(t, fixtureService(), 80, 24, true)
		press(t, m, trigger)
		if _, cmd := m.Update(keyMsg("ctrl+c")); quits(cmd) {
			t.Fatalf("ctrl+c after %q quit aoi", trigger)
		}
		if m.focus != focusQueries || m.prompt.value() != "" {
			t.Errorf("ctrl+c after %q must close the prompt bar: focus %d, value %q", trigger, m.focus, m.prompt.value())
		}
		if frame := screen(m); !strings.Contains(frame, "prompt closed · ctrl+c again quits") {
			t.Errorf("no notice says what ctrl+c did after %q:\n%s", trigger, frame)
		}
		if _, cmd := m.Update(keyMsg("ctrl+c")); !quits(cmd) {
			t.Errorf("a second ctrl+c after %q must quit", trigger)
		}
	}
	// Under a dialog opened next, the notice would be wrong (ctrl+c
	// cancels a dialog): it goes.
	m := newLoaded(t, fixtureService(), 80, 24, true)
	press(t, m, ":", "ctrl+c", "enter")
	if m.topDialog() == nil {
		t.Fatal("enter on the selected question opened no dialog")
	}
	if frame := screen(m); strings.Contains(frame, "ctrl+c again quits") {
		t.Errorf("the ctrl+c notice stays under a dialog:\n%s", frame)
	}
}

// TestInterruptsTakeTheQueryKeys: a buffered query in the Interrupts pane
// is answered with e and declined with d, as in the Queries pane, besides
// being released with r.
func TestInterruptsTakeTheQueryKeys(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "tab") // Interrupts; q-5 from qa-ito is selected
	if hint := helpKeys(m.paneKeys()...); !strings.Contains(hint, "e answer · d decline") {
		t.Errorf("the Interrupts key hints do not name e and d: %q", hint)
	}
	press(t, m, "e")
	if d, ok := m.topDialog().(*answerDialog); !ok || d.q.ID != "q-5" {
		t.Fatalf("e in Interrupts opened %T; want the answer dialog for q-5", m.topDialog())
	}
	press(t, m, "esc", "d")
	if frame := screen(m); !strings.Contains(frame, "Decline query from qa-ito") {
		t.Fatalf("d in Interrupts opened no decline dialog:\n%s", frame)
	}
	typeText(t, m, "ask QA lead")
	press(t, m, "enter")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"decline q-5 ask QA lead"}) {
		t.Fatalf("calls = %v", got)
	}
	k := keymap.Default()
	if _, err := k.Apply(map[string]string{"release": "d"}); err == nil {
		t.Error("release on d, which declines in the Interrupts pane, is accepted")
	}
}

// TestPeerThatRefusesUs: a pinned peer that answered that it does not
// trust our certificate shows "refuses" (not "offline", as if it were
// down), and its detail says what its owner has to do.
func TestPeerThatRefusesUs(t *testing.T) {
	svc := fixtureService()
	svc.peers[2].RefusesUs = true // qa-ito
	m := newLoaded(t, svc, 120, 30, true)
	press(t, m, "shift+tab") // Peers
	if row := lineWith(screen(m), "○  qa-ito"); !strings.Contains(row, "refuses") {
		t.Fatalf("qa-ito's row: %q\n%s", row, screen(m))
	}
	press(t, m, "down", "down", "down", "enter")
	if frame := screen(m); !strings.Contains(frame, "refuses you") || !strings.Contains(frame, "aoi peers trust") {
		t.Errorf("the detail does not say why or what to do:\n%s", frame)
	}
}

// lineWith is the first line of frame holding s.
func lineWith(frame, s string) string {
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestAnsweredQuestionShowsWhatWasSent: under the list, a handled question
// shows the answer that went back, and d on it says there is nothing to
// decline instead of doing nothing.
func TestAnsweredQuestionShowsWhatWasSent(t *testing.T) {
	svc := fixtureService()
	svc.queries = []agent.Query{{ID: "q-9", From: "pm-tanaka", Text: "is the login page done?", State: agent.QueryAnswered,
		Answer: json.RawMessage(`{"summary":"Yes, merged yesterday."}`), ReceivedAt: fixedNow}}
	m := newLoaded(t, svc, 100, 30, true)
	if frame := screen(m); !strings.Contains(frame, "↳ answered: Yes, merged yesterday.") {
		t.Fatalf("the answer sent is not shown under the list:\n%s", frame)
	}
	press(t, m, "d")
	if frame := screen(m); !strings.Contains(frame, "pm-tanaka's question was already answered; nothing to decline") {
		t.Errorf("d on an answered question says nothing:\n%s", frame)
	}
}

// TestAnswerDialogKeepsWhatEscLeaves: esc in the answer dialog keeps what
// the owner wrote (the next opening offers it), and sending nothing says
// why nothing happened (the walk lost text to esc and got silence).
func TestAnswerDialogKeepsWhatEscLeaves(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "enter", "ctrl+x", "ctrl+s")
	if d, ok := m.topDialog().(*answerDialog); !ok || !strings.Contains(d.problem, "write an answer first") || len(svc.Calls()) != 0 {
		t.Fatalf("an empty send: dialog %T, calls %v", m.topDialog(), svc.Calls())
	}
	if !strings.Contains(screen(m), "write an answer first") {
		t.Errorf("the dialog does not say why nothing was sent:\n%s", screen(m))
	}
	typeText(t, m, "Thursday, after QA.")
	press(t, m, "esc")
	if m.topDialog() != nil || !strings.HasPrefix(m.notice.text, "kept, not sent (enter on the question finishes it): your answer to") {
		t.Fatalf("esc: dialog %T, notice %q", m.topDialog(), m.notice.text)
	}
	press(t, m, "enter")
	if d, ok := m.topDialog().(*answerDialog); !ok || d.area.Value() != "Thursday, after QA." {
		t.Fatalf("reopened %T without the kept text", m.topDialog())
	}
	press(t, m, "esc") // unchanged since it opened: still kept, nothing sent
	if len(m.unsent) != 1 || len(svc.Calls()) != 0 {
		t.Errorf("after closing it unchanged: unsent %q, calls %v", m.unsent, svc.Calls())
	}
}

// TestQuitAsksWhileWorkWaits: the walk's q stopped the in-process agent at
// once with a question and an approval waiting, and the PM's next query
// found nobody. With the core in this process and something waiting, q
// asks first (q again or y quits, n stays); attached to aoi serve, or
// with nothing waiting, it quits at once.
func TestQuitAsksWhileWorkWaits(t *testing.T) {
	quits := func(cmd tea.Cmd) bool {
		if cmd == nil {
			return false
		}
		_, ok := cmd().(tea.QuitMsg)
		return ok
	}
	svc := fixtureService() // questions and approvals wait
	m := New(svc, Options{Now: clock, Location: time.UTC, StopsAgent: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	for _, c := range m.fetchCmds(dAll) {
		pump(t, m, c)
	}
	if _, cmd := m.Update(keyMsg("q")); quits(cmd) {
		t.Fatal("q quit at once with work waiting")
	}
	if frame := strings.Join(strings.Fields(screen(m)), " "); !strings.Contains(frame, "Quit aoi") ||
		!strings.Contains(frame, "4 questions and 2 approvals wait for you, and eng-suzuki stops answering") {
		t.Fatalf("no confirmation naming what waits:\n%s", frame)
	}
	press(t, m, "n")
	if m.topDialog() != nil {
		t.Fatal("n did not close the confirmation")
	}
	m.Update(keyMsg("q"))
	if _, cmd := m.Update(keyMsg("ctrl+c")); quits(cmd) || m.topDialog() != nil {
		t.Error("ctrl+c in the confirmation did not cancel it, as in every dialog")
	}
	m.Update(keyMsg("q"))
	if _, cmd := m.Update(keyMsg("q")); !quits(cmd) {
		t.Error("q twice did not quit")
	}
	attached := newLoaded(t, fixtureService(), 100, 30, true)
	if _, cmd := attached.Update(keyMsg("q")); !quits(cmd) {
		t.Error("attached to aoi serve, q did not quit at once")
	}
	idle := fixtureService()
	idle.queries, idle.approvals = nil, nil
	m = New(idle, Options{Now: clock, Location: time.UTC, StopsAgent: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	for _, c := range m.fetchCmds(dAll) {
		pump(t, m, c)
	}
	if _, cmd := m.Update(keyMsg("q")); !quits(cmd) {
		t.Error("with nothing waiting, q did not quit at once")
	}
	// A question just shown in Queries, the status not fetched again yet
	// (the tmux script's q came in between): q still asks.
	m.queries.setQueries([]agent.Query{{ID: "q-new", From: "pm-tanaka", Text: "is the release branch cut?", State: agent.QueryEscalated}})
	if _, cmd := m.Update(keyMsg("q")); quits(cmd) || m.topDialog() == nil {
		t.Error("q quit at once with a question shown but not yet counted by the status")
	}
}

// TestPeerWithoutARoleShowsADash: a peer pinned or asking without a role
// showed a blank ROLE cell in the pane, where `aoi peers` prints "-".
func TestPeerWithoutARoleShowsADash(t *testing.T) {
	svc := fixtureService()
	svc.peers[2].Role = "" // qa-ito
	m := newLoaded(t, svc, 120, 30, true)
	press(t, m, "shift+tab") // Peers
	for _, id := range []string{"qa-ito", "stranger"} {
		if fields := strings.Fields(lineWith(screen(m), id+" ")); len(fields) < 3 || fields[2] != "-" {
			t.Errorf("%s's row %q: want - in ROLE\n%s", id, lineWith(screen(m), id+" "), screen(m))
		}
	}
}
