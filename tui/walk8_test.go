package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestNoticeCutsAtAWordBoundary: a notice too long for a 60-column window
// ends with whole words and an ellipsis, English or Japanese (the seventh
// walk read a notice cut inside a word; Japanese, which has no spaces, is
// cut where a phrase ends: after a particle or a comma).
func TestNoticeCutsAtAWordBoundary(t *testing.T) {
	for _, text := range []string{
		"approved run_tests suite=auth for pm-tanaka; it runs when a slot is free, and its result goes back to pm-tanaka once it ends, with the last lines of its output and the test counts",
		"eng-suzukiの質問「認証機能の進捗とブロック要因は何ですか」に下書きを送りました。確認してから承認してください。リリース前に結果を共有してください。",
	} {
		m := newLoaded(t, fixtureService(), 60, 20, true)
		m.info(text)
		lines := m.noticeWrapped()
		last := lines[len(lines)-1]
		kept, cut := strings.CutSuffix(last, ellipsis)
		if !cut || width(last) > 60 {
			t.Fatalf("the notice's last line %q is not cut with an ellipsis within 60 cells", last)
		}
		at := strings.Index(text, kept)
		if at < 0 {
			t.Fatalf("the notice's last line %q is not a piece of %q", last, text)
		}
		next := []rune(text[at+len(kept):])[0]
		prev := []rune(kept)[len([]rune(kept))-1]
		if next != ' ' && !phraseBreak(prev, next) {
			t.Errorf("the notice is cut inside a word: %q|%q", kept, string(next))
		}
		if !strings.Contains(screen(m), last) {
			t.Errorf("the screen does not show the notice's last line %q:\n%s", last, screen(m))
		}
	}
	for _, c := range []struct {
		text string
		w    int
		want string
	}{
		{"認証機能の進捗とブロック要因は？", 20, "認証機能の進捗と…"},
		{"認証機能の進捗とブロック要因は？リリース前にテストの結果", 40, "認証機能の進捗とブロック要因は？…"}, // ー is part of a word
	} {
		if got := truncateWords(c.text, c.w); got != c.want {
			t.Errorf("truncateWords(%q, %d) = %q; want it where a phrase ends: %q", c.text, c.w, got, c.want)
		}
	}
}

// TestAuditFilterThatMatchesNothingSaysWhatKeysTake: a method: filter
// naming part of a method matches nothing, and the pane says that a
// method is matched whole and that a word searches every column (the
// eighth walk typed method:aoi.task and read only "No audit entries
// match the filter.").
func TestAuditFilterThatMatchesNothingSaysWhatKeysTake(t *testing.T) {
	m := newLoaded(t, fixtureService(), 60, 20, true)
	press(t, m, "/")
	typeText(t, m, "method:aoi.tas")
	press(t, m, "enter")
	frame := screen(m)
	checkFrame(t, frame, 60, 20)
	flat := strings.Join(strings.Fields(strings.NewReplacer("┃", " ", "│", " ").Replace(frame)), " ")
	for _, want := range []string{"method: takes a method whole", "A word without a key searches every column"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the empty Audit pane does not say %q:\n%s", want, frame)
		}
	}
}

// TestTrustDialogPlaceholderFitsAt60: the trust dialog's role field at
// 60×20 shows a placeholder whole (the eighth walk read "e.g. pm: rules
// by role apply only once it h"); a wide window shows the long one.
func TestTrustDialogPlaceholderFitsAt60(t *testing.T) {
	for _, c := range []struct {
		w, h int
		want string
	}{
		{60, 20, "e.g. pm (rules by role need one)"},
		{120, 40, "e.g. pm: rules by role apply only once it has one"},
	} {
		m := newLoaded(t, fixtureService(), c.w, c.h, true)
		m.setFocus(focusPeers)
		press(t, m, "t")
		frame := screen(m)
		checkFrame(t, frame, c.w, c.h)
		if !strings.Contains(frame, "Trust stranger") || !strings.Contains(frame, c.want) {
			t.Errorf("at %dx%d the trust dialog does not show %q:\n%s", c.w, c.h, c.want, frame)
		}
	}
}

// TestMessagePreviewQuotesTheWholeQuestion: the preview under Messages
// shows the selected answer with the whole question it answers, as the
// preview shows every row whole; the row itself still quotes its start
// (the eighth walk read "re “how is the billing migration going, and…”"
// in the preview, with lines to spare).
func TestMessagePreviewQuotesTheWholeQuestion(t *testing.T) {
	svc := fixtureService()
	q := "how is the billing migration going, and when does it ship to production for the whole team?"
	svc.messages = append(svc.messages, agent.Message{Seq: 4, From: "eng-suzuki", Event: "query.declined", RelatedID: "ask-1",
		Question: q, Data: json.RawMessage(`{"summary":"not my area — ask eng-sato"}`), ReceivedAt: fixedNow})
	m := newLoaded(t, svc, 60, 20, true)
	m.setFocus(focusMessages)
	frame := screen(m)
	checkFrame(t, frame, 60, 20)
	flat := strings.Join(strings.Fields(strings.NewReplacer("┃", " ", "│", " ").Replace(frame)), " ")
	if !strings.Contains(flat, "for the whole team?”") {
		t.Errorf("the preview does not quote the whole question:\n%s", frame)
	}
}

// TestNoDraftNoticeFitsAt60: `r` on a question whose draft found no work
// says what to do and why within the notice's two lines at 60 columns,
// the question last (the eighth walk read "…auth tests?”, so…").
func TestNoDraftNoticeFitsAt60(t *testing.T) {
	svc := fixtureService()
	nothing, _ := json.Marshal(map[string]any{"summary": "No recorded work matches \"auth tests\"."})
	svc.queries = append(svc.queries, agent.Query{ID: "q-9", From: "pm-tanaka", Text: "any blockers on the auth tests?", Priority: "low",
		State: agent.QueryBuffered, Decision: "BUFFER", Draft: nothing, ReceivedAt: fixedNow})
	m := newLoaded(t, svc, 60, 20, true)
	press(t, m, "tab")
	for i := 0; i < len(m.interrupts.rows) && m.interrupts.rows[m.interrupts.list.cursor].ID != "q-9"; i++ {
		press(t, m, "j")
	}
	press(t, m, "r")
	lines := strings.Join(m.noticeWrapped(), " ")
	if !strings.Contains(lines, "e answer · d decline: no draft to send; the secretary found no work for pm-tanaka's question") {
		t.Errorf("the notice at 60 columns does not say what to do and why: %q", lines)
	}
}

// TestWrapKeepsShortPathsWhole: a branch or a path that fits on a line
// moves down whole instead of breaking after a slash (the eighth walk's
// approval detail at 60 columns ended a line with "aoi/"); one longer
// than the line still breaks after its slashes.
func TestWrapKeepsShortPathsWhole(t *testing.T) {
	for _, c := range []struct {
		text string
		w    int
		want []string
	}{
		{"isolation: a fresh git worktree on branch aoi/task-t065d8ccf5848", 46,
			[]string{"isolation: a fresh git worktree on branch", "aoi/task-t065d8ccf5848"}},
		{"see acme/webapp/internal/billing/migrations/0042_accounts.sql now", 30,
			[]string{"see acme/webapp/internal/", "billing/migrations/", "0042_accounts.sql now"}},
	} {
		if got := wrap(c.text, c.w); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.text, c.w, got, c.want)
		}
	}
}
