package tui

import (
	tea "charm.land/bubbletea/v2"
	"encoding/json"
	"errors"
	"github.com/aoi-protocol/aoi/keymap"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/themes"
	"github.com/charmbracelet/x/ansi"
)

// Gaps found in daily use: a draft that could only be added to, notices
// that named a query by its id, and half-screen columns that cut what
// tells rows apart. Each test fails without its fix.

// TestAnswerDialogClearsTheDraft: ctrl+x empties the answer's text area,
// draft and all, so the owner writes the answer from scratch; the dialog
// names the key.
func TestAnswerDialogClearsTheDraft(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "enter") // q-7, the secretary's draft pre-filled
	d, ok := m.topDialog().(*answerDialog)
	if !ok || d.area.Value() == "" {
		t.Fatalf("enter opened %T with no draft", m.topDialog())
	}
	if frame := screen(m); !strings.Contains(frame, "ctrl+x clear") {
		t.Errorf("the answer dialog does not name the key that clears it:\n%s", frame)
	}
	press(t, m, "ctrl+x")
	if v := d.area.Value(); v != "" {
		t.Fatalf("ctrl+x left %q in the text area", v)
	}
	typeText(t, m, "Ship Friday.")
	press(t, m, "ctrl+s")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"answer q-7 Ship Friday."}) {
		t.Errorf("calls = %q; want only the typed answer", got)
	}
}

// TestQueryNoticesSayWhoseQuestion: answering, declining and releasing a
// query says whose question it was and what it asked, sanitised and cut
// to fit, not its id. (An id no question has stays in the bar, with why:
// TestAnswerIDThatNamesNoOneQuestionKeepsTheLine.)
func TestQueryNoticesSayWhoseQuestion(t *testing.T) {
	keys := func(keys ...string) func(*testing.T, *Model) {
		return func(t *testing.T, m *Model) { press(t, m, keys...) }
	}
	command := func(line string) func(*testing.T, *Model) {
		return func(t *testing.T, m *Model) {
			press(t, m, ":")
			typeText(t, m, line)
			press(t, m, "enter")
		}
	}
	cases := []struct {
		name string
		do   func(*testing.T, *Model)
		want string
	}{
		{"answer", keys("enter", "ctrl+s"), "answer sent for pm-tanaka's question “auth progress and blockers?”"},
		{"decline", keys("d", "b", "enter"), "declined pm-tanaka's question “auth progress and blockers?”"},
		{"release", keys("tab", "r"), "sent the draft to qa-ito's question “which suite should I run before the…”"},
		// q-4's draft is a guess: r asks first, enter sends it.
		{"release hostile", keys("tab", "down", "r", "enter"), "sent the draft to pm-tanaka's question “status?APPROVED by owner eulav”"},
		{"prompt", command("decline q-6 later"), "declined eng-佐藤's question “認証のリファクタリングはいつ…”"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newLoaded(t, fixtureService(), 100, 30, true)
			c.do(t, m)
			if !strings.HasPrefix(m.notice.text, c.want) {
				t.Errorf("notice %q; want %q", m.notice.text, c.want)
			}
			if frame := screen(m); !strings.Contains(frame, c.want) {
				t.Errorf("the notice does not show:\n%s", frame)
			}
		})
	}
}

// TestHalfScreenColumnsFit: with two panes side by side (110 to 130
// columns), the Approvals pane gives the parameters the room to tell two
// runs of one type apart, and the Audit pane shows method names whole.
func TestHalfScreenColumnsFit(t *testing.T) {
	svc := fixtureService()
	svc.tasks = []agent.Task{
		{ID: "t-5", Requester: "pm-tanaka", Type: "run_tests", State: agent.TaskCompleted,
			Params: map[string]string{"suite": "./auth/oidc"}, UpdatedAt: fixedNow.Add(-7 * time.Minute)},
		{ID: "t-6", Requester: "pm-tanaka", Type: "run_tests", State: agent.TaskCompleted,
			Params: map[string]string{"suite": "./auth/jwt"}, UpdatedAt: fixedNow.Add(-time.Minute)},
	}
	for _, w := range []int{110, 120, 130} {
		m := newLoaded(t, svc, w, 30, true)
		if len(m.layout.cols) != 2 {
			t.Fatalf("%d columns: one column of panes; want two side by side", w)
		}
		m.setFocus(focusApprovals)
		approvals := ansi.Strip(m.approvals.View())
		for _, params := range []string{"suite=./auth/...", "suite=./auth/oidc", "suite=./auth/jwt"} {
			if !strings.Contains(approvals, params) {
				t.Errorf("%d columns: the Approvals pane cuts %q:\n%s", w, params, approvals)
			}
		}
		m.setFocus(focusAudit)
		if audit := ansi.Strip(m.audit.View()); !strings.Contains(audit, "pm-tanaka aoi.task.execute ") {
			t.Errorf("%d columns: the Audit pane cuts aoi.task.execute:\n%s", w, audit)
		}
	}
}

// TestDecidedRequestSelectsTheNext: when the selected request is decided
// (y from any pane, or another front end), the Approvals pane moves to the
// next pending request, not to the finished task that took its place.
func TestDecidedRequestSelectsTheNext(t *testing.T) {
	m := newLoaded(t, fixtureService(), 100, 30, true)
	p := m.approvals
	if len(p.approvals) < 2 {
		t.Fatalf("the fixture has %d pending requests; want 2", len(p.approvals))
	}
	p.list.cursor = 1
	decided := p.approvals[1].ID
	var rest []agent.Approval
	for _, a := range p.approvals {
		if a.ID != decided {
			rest = append(rest, a)
		}
	}
	p.setApprovals(rest)
	if got, ok := p.target(); !ok || p.list.cursor != 0 || got.ID != rest[0].ID {
		t.Fatalf("after %s was decided: cursor %d on %s; want the next pending request %s", decided, p.list.cursor, got.ID, rest[0].ID)
	}
	// A request decided elsewhere while another is selected keeps the selection.
	p.setApprovals(append(rest, agent.Approval{ID: "a-9", TaskType: "lint", State: agent.TaskPending, ExpiresAt: fixedNow.Add(time.Hour)}))
	p.list.cursor = 0
	keep := p.approvals[0].ID
	p.setApprovals(p.approvals[:1])
	if got, _ := p.target(); got.ID != keep {
		t.Errorf("selection moved to %s when another request was decided; want it on %s", got.ID, keep)
	}
}

// TestUnreachableErrorGoesWhenThePeerIsBack: the error of a call to a peer
// that was down clears when the peer shows online again; another error
// stays.
func TestUnreachableErrorGoesWhenThePeerIsBack(t *testing.T) {
	m := newLoaded(t, fixtureService(), 100, 30, true)
	// The error as the core words it (peers.CallError) for a real refused call.
	m.fail("asking pm-tanaka failed", peers.CallError("pm-tanaka", refusedCall(t)))
	m.handleEvent(agent.Event{Seq: 100, Kind: agent.EventPeerChanged, ID: "qa-ito", Agent: "qa-ito", Summary: "online"})
	if !strings.Contains(m.notice.text, "pm-tanaka is unreachable") {
		t.Fatalf("another peer coming online cleared the error: %q", m.notice.text)
	}
	m.handleEvent(agent.Event{Seq: 101, Kind: agent.EventPeerChanged, ID: "pm-tanaka", Agent: "pm-tanaka", Summary: "online"})
	if m.notice.text != "" {
		t.Errorf("pm-tanaka is online again, the error still says it is unreachable: %q", m.notice.text)
	}
	m.fail("answering q-7 failed", errors.New("query q-7 was already answered"))
	m.handleEvent(agent.Event{Seq: 102, Kind: agent.EventPeerChanged, ID: "pm-tanaka", Agent: "pm-tanaka", Summary: "online"})
	if !strings.Contains(m.notice.text, "already answered") {
		t.Errorf("an unrelated error went when a peer came online: %q", m.notice.text)
	}
}

// TestTaskRequestNoticeSaysItWaits: a task request the peer's owner must
// approve is not "accepted": the notice says it waits, whole at 80 columns.
func TestTaskRequestNoticeSaysItWaits(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	m.handleTaskRequested(taskRequestedMsg{req: agent.TaskRequest{To: "eng-suzuki", TaskType: "run_tests"},
		ticket: agent.TaskTicket{RequestID: "task-req-1", TaskID: "tbcc2f17a06b4", Status: "pending"}})
	if want := "run_tests on eng-suzuki waits for approval; the result will show in Messages"; m.notice.text != want {
		t.Errorf("notice = %q; want %q", m.notice.text, want)
	}
	if frame := screen(m); !strings.Contains(frame, "the result will show in Messages") {
		t.Errorf("the notice is cut at 80 columns:\n%s", frame)
	}
}

// TestQueriesTitleCountsOnlyWhatNeedsYou: with only answered or buffered
// queries listed, the title does not show a count the status bar's
// "queries 0" contradicts.
func TestQueriesTitleCountsOnlyWhatNeedsYou(t *testing.T) {
	m := newLoaded(t, fixtureService(), 100, 30, true)
	m.queries.setQueries([]agent.Query{{ID: "q-1", From: "pm-tanaka", Text: "lunch?", State: agent.QueryBuffered, ReceivedAt: fixedNow},
		{ID: "q-2", From: "qa-ito", Text: "done?", State: agent.QueryAnswered, ReceivedAt: fixedNow}})
	if got := m.queries.Title(); got != "Queries · none need you" {
		t.Errorf("title = %q; want %q", got, "Queries · none need you")
	}
	m.queries.setQueries(nil)
	if got := m.queries.Title(); got != "Queries · 0" {
		t.Errorf("empty title = %q", got)
	}
}

// TestAnswerDialogStartsEmptyOnANonAnswer: a draft that found no work ("No
// recorded work matches …") is not offered as the answer's start (the walk
// sent "No recorded work matches … Next sprint."); the placeholder says
// why the area is empty.
func TestAnswerDialogStartsEmptyOnANonAnswer(t *testing.T) {
	nothing, _ := json.Marshal(map[string]any{"summary": "No recorded work matches \"dark mode toggle\"."})
	d := newAnswerDialog(agent.Query{ID: "q-1", From: "pm-tanaka", Text: "dark mode?", Draft: nothing}, "", nil)
	if v := d.area.Value(); v != "" {
		t.Fatalf("a non-answer draft was offered as the answer: %q", v)
	}
	if !strings.Contains(d.area.Placeholder, "found no work") {
		t.Errorf("placeholder %q does not say why the area is empty", d.area.Placeholder)
	}
	found, _ := json.Marshal(map[string]any{"summary": "Dark mode is 40% done.", "progress": 40})
	if d := newAnswerDialog(agent.Query{ID: "q-2", Draft: found, Confidence: 0.7}, "", nil); !strings.HasPrefix(d.area.Value(), "Dark mode is 40% done.") {
		t.Errorf("a draft resting on work is not offered: %q", d.area.Value())
	}
	// A guess (the second walk's draft at 0.25 was about another topic)
	// stays out of the area too.
	if d := newAnswerDialog(agent.Query{ID: "q-3", Draft: found, Confidence: 0.25}, "", nil); d.area.Value() != "" || !strings.Contains(d.area.Placeholder, "guess above is not sent") {
		t.Errorf("a weak draft was offered: %q (placeholder %q)", d.area.Value(), d.area.Placeholder)
	}
}

// TestAnswerDialogKeepsItsKeysOnASmallScreen: the walk's answer dialog at
// 60x20, a long question beside a guess, lost its keys line under the
// frame. The question, then the guess, give way: the keys line and some
// of the answer always show, at every size the interface runs at.
func TestAnswerDialogKeepsItsKeysOnASmallScreen(t *testing.T) {
	long := strings.Repeat("How far along is the billing export, and what is still missing before finance can use it? ", 8)
	guess, _ := json.Marshal(map[string]any{"summary": strings.Repeat("Blocked on the ledger schema review. ", 10),
		"blockers": []string{"ledger schema review"}})
	e := &env{now: fixedNow, styles: themes.NewStyles(themes.Plain(), true), keys: keymap.Default()}
	for _, size := range [][2]int{{60, 18}, {60, 14}, {80, 22}, {120, 38}} {
		d := newAnswerDialog(agent.Query{ID: "q-9", From: "pm-tanaka", Text: long, Draft: guess, Confidence: 0.25}, "", e)
		frame := d.View(size[0], size[1], e)
		if !strings.Contains(frame, "ctrl+s send") || !strings.Contains(frame, "Answer") {
			t.Errorf("%dx%d: the keys line or the answer is gone:\n%s", size[0], size[1], frame)
		}
		if lines := strings.Count(frame, "\n") + 1; lines > size[1] {
			t.Errorf("%dx%d: the dialog is %d lines high", size[0], size[1], lines)
		}
	}
}

// TestWeakDraftIsShownWhileAnswering: the walk's dialog said the guess
// "stays under the list", where an escalated question showed none and the
// dialog covered it anyway. Now the guess is shown in the dialog, above
// the empty answer, and under the list for an escalated question.
func TestWeakDraftIsShownWhileAnswering(t *testing.T) {
	svc := fixtureService()
	svc.queries[0].Confidence = 0.25 // q-7, escalated, with a draft
	m := newLoaded(t, svc, 100, 30, true)
	// Under the list it is called a guess too (the third walk read the
	// billing work under "draft" for a question about the mobile app).
	if frame := screen(m); !strings.Contains(frame, "the secretary's guess (not sent; it may be about other work): Auth") {
		t.Errorf("the escalated question's guess is not under the list as one:\n%s", frame)
	}
	press(t, m, "e")
	frame := screen(m)
	if !strings.Contains(frame, "The secretary's guess (not sent)") || !strings.Contains(frame, "Auth refactor is 70% done") {
		t.Fatalf("the answer dialog does not show the guess:\n%s", frame)
	}
	if d, ok := m.topDialog().(*answerDialog); !ok || d.area.Value() != "" {
		t.Fatalf("the guess went into the answer: %T", m.topDialog())
	}
	checkFrame(t, frame, 100, 30)
	// ctrl+g, named under the dialog, puts the guess in to edit (the
	// second walk retyped it).
	if !strings.Contains(frame, "ctrl+g use the guess") {
		t.Errorf("the dialog does not name the key that uses the guess:\n%s", frame)
	}
	press(t, m, "ctrl+g")
	if d := m.topDialog().(*answerDialog); !strings.HasPrefix(d.area.Value(), "Auth refactor is 70% done") {
		t.Fatalf("ctrl+g put %q in the answer", d.area.Value())
	}
}

// TestPeersHeaderGroupsTheFingerprint: in a short Peers pane the header's
// one line shows the fingerprint grouped by eight, as everywhere else (the
// walk read "2122a284995a5ec70e7c…" at 100 columns).
func TestPeersHeaderGroupsTheFingerprint(t *testing.T) {
	p := newPeersPane(&env{now: fixedNow, styles: themes.NewStyles(themes.Plain(), true)})
	p.setSelf(agent.Status{AgentID: "alice", Fingerprint: "9c41d2075be8aa13f0e4b7c2d9a15e6083f7b2c4d1e9a0567b8c3d2e1f4a6b9c"})
	p.SetSize(60, 6)
	if view := ansi.Strip(p.View()); !strings.Contains(view, "you: alice · 9c41d207 5be8aa13") {
		t.Errorf("the header does not group the fingerprint:\n%s", view)
	}
}

// TestAnswerToAnOfflineAskerSaysItIsQueued: answering while the asker is
// offline says the answer waits for it (the walk read "answer sent" and
// `aoi status` counted it not yet delivered).
func TestAnswerToAnOfflineAskerSaysItIsQueued(t *testing.T) {
	svc := fixtureService()
	for i := range svc.peers {
		if svc.peers[i].AgentID == "pm-tanaka" {
			svc.peers[i].Status = agent.PeerOffline
		}
	}
	m := newLoaded(t, svc, 100, 30, true)
	q := svc.queries[0]
	if got := m.answerSentText(q); !strings.Contains(got, "answer queued for pm-tanaka's question") || !strings.Contains(got, "pm-tanaka is offline") {
		t.Errorf("notice %q; want it queued for the offline asker", got)
	}
	if got := m.answerSentText(agent.Query{ID: "q-1", From: "eng-佐藤", Text: "x"}); !strings.HasPrefix(got, "answer sent for") {
		t.Errorf("notice %q for an online asker", got)
	}
}

// TestReloadErrorGoesWhenAReloadWorks: the "Config not reloaded" dialog
// closes when a later reload goes through (the walk fixed the file and
// reloaded from the CLI twice; the dialog stayed and took the pane keys).
func TestReloadErrorGoesWhenAReloadWorks(t *testing.T) {
	m := newLoaded(t, fixtureService(), 100, 30, true)
	m.pushDialog(newDetailDialog(reloadErrorTitle, "The running config stays. Fix this, then :reload:\n/acl: bad"))
	m.handleEvent(agent.Event{Seq: 200, Kind: agent.EventConfigReloaded, Summary: "config reloaded: acl: 1 rule → 2 (+x)"})
	if m.topDialog() != nil {
		t.Errorf("the reload error dialog stayed after a reload went through")
	}
}

// TestAutoAnsweredQuestionShowsWhatWasSent: enter on a question the
// secretary answered by itself shows its draft as the answer sent, not as
// a draft (the walk read "Draft:").
func TestAutoAnsweredQuestionShowsWhatWasSent(t *testing.T) {
	draft, _ := json.Marshal(map[string]any{"summary": "Auth refactor is 70% done."})
	q := agent.Query{ID: "q-1", AskerID: "ask-01a2344406", From: "pm-tanaka", Text: "auth?", State: agent.QueryAnswered, Decision: "AUTO_RESPOND", Draft: draft}
	body := queryDetail(q, &env{now: fixedNow})
	if !strings.Contains(body, "Answer sent (by the secretary):\nAuth refactor is 70% done.") || strings.Contains(body, "Draft:") {
		t.Errorf("detail of an auto-answered question:\n%s", body)
	}
	// The id the asker's `aoi query` printed, to match one a colleague quotes.
	if !strings.Contains(body, "their id: ask-01a2344406") {
		t.Errorf("detail lacks the asker's id:\n%s", body)
	}
	if p := previewText(q, fixedNow); !strings.Contains(p, "↳ answered by the secretary: Auth refactor is 70% done.") {
		t.Errorf("preview of an auto-answered question: %q", p)
	}
}

// TestApprovalDetailFollowsTheRequest: the walk's open approval detail
// kept "expires in: 59m58s" and still offered y after the requester had
// canceled. The detail now counts down, and once the request no longer
// waits says so, and y does nothing.
func TestApprovalDetailFollowsTheRequest(t *testing.T) {
	svc := fixtureService()
	now := fixedNow
	m := New(svc, Options{Now: func() time.Time { return now }, Location: time.UTC, DarkBackground: true})
	m.subscribed = true
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	for _, c := range m.fetchCmds(dAll) {
		pump(t, m, c)
	}
	press(t, m, "tab", "tab")
	for m.approvals.targetID() != "a-2" {
		press(t, m, "j")
	}
	press(t, m, "enter")
	if d, ok := m.topDialog().(*approvalDialog); !ok || d.a.ID != "a-2" {
		t.Fatalf("enter in Approvals opened %T", m.topDialog())
	}
	now = now.Add(10 * time.Minute)
	m.Update(tickMsg(now))
	if frame := screen(m); !strings.Contains(frame, "expires in: 49m") {
		t.Errorf("the detail does not count down:\n%s", frame)
	}
	svc.approvals = svc.approvals[1:] // a-2 canceled by its requester
	for _, c := range m.fetchCmds(dApprovals) {
		pump(t, m, c)
	}
	frame := screen(m)
	if !strings.Contains(frame, "It no longer waits") || strings.Contains(frame, "y approve") || strings.Contains(frame, "expires in") {
		t.Fatalf("the detail of a request that no longer waits:\n%s", frame)
	}
	press(t, m, "y")
	if calls := svc.Calls(); len(calls) != 0 {
		t.Fatalf("y on a request that no longer waits called %v", calls)
	}
}

// TestUndeliveredAnswerShowsOnItsRow: once the notice that an answer waits
// is gone, its question's row still says so (the second walk read only
// "answered" for an answer that had not gone).
func TestUndeliveredAnswerShowsOnItsRow(t *testing.T) {
	svc := fixtureService()
	answer, _ := json.Marshal(map[string]any{"summary": "Kimura reviews it, Thursday."})
	svc.queries = []agent.Query{{ID: "q-1", From: "qa-ito", Text: "can you review my PR 42 today?", Priority: "normal",
		State: agent.QueryAnswered, Answer: answer, Undelivered: true, ReceivedAt: fixedNow.Add(-time.Minute)}}
	m := newLoaded(t, svc, 100, 30, true)
	frame := screen(m)
	if !strings.Contains(frame, "queued") || !strings.Contains(frame, "answered, not yet delivered (it goes when qa-ito is back): Kimura") {
		t.Fatalf("an undelivered answer's row and preview:\n%s", frame)
	}
}

// TestReleaseAnEscalatedDraft: r sends an escalated question the
// secretary's draft from the Queries pane, as `aoi release ID` does (the
// daily-use walk could only do it from the CLI); the keys line and the
// help name the key, the notice says whose question got it, and a
// question with no draft, or one already answered, is not sent anything.
func TestReleaseAnEscalatedDraft(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 100, 30, true)
	if m.focus != focusQueries || m.queries.rows[0].ID != "q-7" {
		t.Fatalf("focus %v on %s; want the Queries pane on q-7 (escalated, with a draft)", m.focus, m.queries.rows[0].ID)
	}
	if frame := screen(m); !strings.Contains(frame, "e answer · d decline · r send draft") {
		t.Errorf("the Queries pane's keys line does not name r:\n%s", frame)
	}
	var inQueries bool
	for _, b := range m.env.keys.FullHelp()[slices.Index(keymap.FullHelpTitles, "Queries · Interrupts")] {
		inQueries = inQueries || b.Help().Key == "r" && b.Help().Desc == "send draft"
	}
	if !inQueries {
		t.Error("the help does not list r under Queries · Interrupts")
	}
	// :release completes it too, and not a question with no draft.
	if c := m.completions(); !slices.Contains(c.releasable, "q-7") || slices.Contains(c.releasable, "q-6") {
		t.Errorf(":release completes %v; want q-7 (escalated, with a draft) and not q-6 (no draft)", c.releasable)
	}
	press(t, m, "r")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{`release "q-7"`}) {
		t.Fatalf("r on an escalated question: calls %q", got)
	}
	want := "sent the draft to pm-tanaka's question “auth progress and blockers?”"
	if !strings.HasPrefix(m.notice.text, want) || !strings.Contains(screen(m), want) {
		t.Errorf("notice %q; want it to confirm %q:\n%s", m.notice.text, want, screen(m))
	}

	// A guess (q-4, confidence 0) is sent only once the owner confirms.
	m = newLoaded(t, fixtureService(), 100, 30, true)
	svc = m.svc.(*testService)
	for m.queries.rows[m.queries.list.cursor].ID != "q-4" {
		press(t, m, "j")
	}
	press(t, m, "r")
	if calls := svc.Calls(); len(calls) != 0 || !strings.Contains(screen(m), "Send the secretary's guess") {
		t.Fatalf("r on a guess: calls %q; want a confirmation first:\n%s", calls, screen(m))
	}
	press(t, m, "enter")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{`release "q-4"`}) {
		t.Errorf("confirmed: calls %q", got)
	}

	// q-6 waits for the owner with no draft; q-3 was answered already.
	for _, c := range []struct{ id, notice string }{
		{"q-6", "the secretary wrote no draft for eng-佐藤's question"},
		{"q-3", "pm-tanaka's question was already answered; no draft to send"},
	} {
		m := newLoaded(t, fixtureService(), 100, 30, true)
		svc := m.svc.(*testService)
		for m.queries.rows[m.queries.list.cursor].ID != c.id {
			press(t, m, "j")
		}
		press(t, m, "r")
		if calls := svc.Calls(); len(calls) != 0 || !strings.Contains(m.notice.text, c.notice) {
			t.Errorf("r on %s: calls %q, notice %q; want nothing sent and %q", c.id, calls, m.notice.text, c.notice)
		}
	}

}

// TestIDStartNamesAnAnsweredQuestion: the start of an id names the one
// waiting question it starts; when none waiting does, the one answered or
// declined question it starts, whose answer then says it was answered
// (the third walk got "no query" for an answered question's id start).
func TestIDStartNamesAnAnsweredQuestion(t *testing.T) {
	p := &queriesPane{rows: []agent.Query{
		{ID: "q-01a2357a411f", State: agent.QueryAnswered},
		{ID: "q-01b9999aaaa0", State: agent.QueryEscalated},
		{ID: "q-01b9999bbbb0", State: agent.QueryDeclined},
	}}
	for id, want := range map[string]string{
		"q-01a2":         "q-01a2357a411f", // answered, and the only one
		"q-01b9":         "q-01b9999aaaa0", // the waiting one wins
		"q-01":           "q-01b9999aaaa0", // the one waiting
		"q-01c":          "q-01c",          // none
		"q-01a2357a411f": "q-01a2357a411f",
	} {
		if got := p.byID(id).ID; got != want {
			t.Errorf("byID(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestPromptProblemShowsWhole: what is wrong with a prompt line that does
// not fit after it is wrapped below the bar, whole, and :errors keeps it
// (the third walk read "…paste it whole, all eight groups, as the P…").
func TestPromptProblemShowsWhole(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	press(t, m, ":")
	typeText(t, m, "trust eng-suzuki 710fc691")
	press(t, m, "enter")
	frame := screen(m)
	want := "as the Peers pane or `aoi id` shows it"
	if !strings.Contains(strings.Join(strings.Fields(frame), " "), want) {
		t.Errorf("the problem is cut:\n%s", frame)
	}
	if !strings.Contains(m.errorsText(), "that fingerprint has 8 hex digits, not 64") {
		t.Errorf(":errors lacks the problem:\n%s", m.errorsText())
	}
	if lines := strings.Count(frame, "\n") + 1; lines > 24 {
		t.Errorf("the frame is %d lines high", lines)
	}
}

// TestNewDialogDropsTheLastActionsNotice: "…was already answered; nothing
// to decline" about one question no longer sits under the decline dialog
// of the next (the third walk read it as that decline's outcome).
func TestNewDialogDropsTheLastActionsNotice(t *testing.T) {
	m := newLoaded(t, fixtureService(), 100, 30, true)
	for m.queries.rows[m.queries.list.cursor].ID != "q-3" {
		press(t, m, "j")
	}
	press(t, m, "d")
	if !strings.Contains(m.notice.text, "already answered; nothing to decline") {
		t.Fatalf("d on an answered question: notice %q", m.notice.text)
	}
	press(t, m, "g")
	press(t, m, "d") // q-7, escalated
	if frame := screen(m); strings.Contains(frame, "already answered") || !strings.Contains(frame, "Decline query from pm-tanaka") {
		t.Errorf("the decline dialog shows the last action's notice:\n%s", frame)
	}
}

// TestParamsLeftOutAreNotShown: an optional parameter a request did not
// give is no "mode=" in the Approvals list (the third walk).
func TestParamsLeftOutAreNotShown(t *testing.T) {
	if got := paramsText(map[string]string{"mode": "", "suite": "./billing/..."}); got != "suite=./billing/..." {
		t.Errorf("paramsText = %q", got)
	}
}
