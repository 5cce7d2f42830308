package tui

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestWrapKeepsOpeningBracketsOffLineEnds: at every width, no line of
// wrapped Japanese ends with an opening bracket (「『（【…) right before
// the text it opens, when the line has something else to keep
// (checkWrapAtEveryWidth).
func TestWrapKeepsOpeningBracketsOffLineEnds(t *testing.T) {
	checkWrapAtEveryWidth(t,
		"レビューをお願いします「認証モジュールの改修」について、『設計書』と（参考）【重要】を見てください。",
		"次の確認事項：「はい」「いいえ」（どちらか）を選んでください。",
		"token refresh のテスト（CIで失敗中）は【要対応】です。",
	)
}

// TestApprovalWithoutParamsShowsItsRuleAlone: a pending request with no
// parameters shows the rule that allowed it in PARAMS without a space in
// front (the seventh walk read "lint pending 55m left  [tasks]", the
// rule pushed a cell to the right of where the others start).
func TestApprovalWithoutParamsShowsItsRuleAlone(t *testing.T) {
	svc := fixtureService()
	svc.approvals[0].Params = nil
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusApprovals)
	frame := screen(m)
	checkFrame(t, frame, 80, 24)
	row := ""
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, "[pm-run-tests]") {
			row = l
		}
	}
	head := strings.Index(frame, "PARAMS")
	if row == "" || head < 0 {
		t.Fatalf("no approval row with its rule, or no PARAMS header:\n%s", frame)
	}
	headCol := width(frame[strings.LastIndex(frame[:head], "\n")+1 : head])
	if col := width(row[:strings.Index(row, "[pm-run-tests]")]); col != headCol {
		t.Errorf("the rule starts at cell %d, PARAMS at %d:\n%s", col, headCol, frame)
	}
}

// TestWrapFillsTheLineBeforeACJKRun: a run of Japanese after a space
// starts on the line of the words before it when there is room: Japanese
// breaks between any two characters, and ansi.Wrap moved the whole run
// down like one long word (the seventh walk's message read "PR #42" alone
// on its first line). The rules for punctuation still hold.
func TestWrapFillsTheLineBeforeACJKRun(t *testing.T) {
	for _, c := range []struct {
		text string
		w    int
		want []string
	}{
		{"PR #42 のレビューをお願いします。", 12, []string{"PR #42 のレ", "ビューをお願", "いします。"}},
		{"see 「設計書」を読む", 10, []string{"see 「設計", "書」を読む"}},
		{"see 「設計書」を読む", 6, []string{"see", "「設計", "書」を", "読む"}}, // no 「 at a line's end
		{"ok 、はい", 7, []string{"ok 、", "はい"}},
		{"ab あ、いう", 7, []string{"ab あ、", "いう"}},
	} {
		if got := wrap(c.text, c.w); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.text, c.w, got, c.want)
		}
	}
}

// TestAnswerDialogFillsTheFirstLine: the answer dialog at 60×20 starts
// a question's Japanese on the line of the English before it.
func TestAnswerDialogFillsTheFirstLine(t *testing.T) {
	svc := fixtureService()
	svc.queries[0].Text = "PR #42 のレビューをお願いします。" + strings.Repeat("長い文章", 20)
	m := newLoaded(t, svc, 60, 20, true)
	press(t, m, "e")
	frame := screen(m)
	checkFrame(t, frame, 60, 20)
	if !strings.Contains(frame, "┃ PR #42 のレビューをお願いします。長い文章") {
		t.Errorf("the question's first line does not go on after \"PR #42\":\n%s", frame)
	}
}

// TestMessageNoticeNamesTheKindAsThePaneDoes: the notice of a message
// that arrives names its kind in the Messages pane's words (the seventh
// walk read "review_request" in the notice and "review asked" in the
// pane beside it). Both say the type, as `aoi send` takes it.
func TestMessageNoticeNamesTheKindAsThePaneDoes(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	m.showMessage(agent.Message{Seq: 9, From: "qa-ito", Event: "review_request", Type: "review_request", TaskID: "t-42",
		Data: json.RawMessage(`{"description":"PR #42 のレビューをお願いします"}`)})
	frame := screen(m)
	checkFrame(t, frame, 80, 24)
	if !strings.Contains(frame, "✉ qa-ito [t-42] review_request: PR #42 のレビューをお願いします") || strings.Contains(frame, "review asked") {
		t.Errorf("the notice does not name the message's kind as the Messages pane does:\n%s", frame)
	}
}

// TestNarrowStatusBarDropsThePeerCountWhole: at 60 columns with focus on
// and three counts above zero, the status bar leaves out the peers online
// (the Peers title counts them) rather than cutting it to "2…", as the
// seventh walk read it.
func TestNarrowStatusBarDropsThePeerCountWhole(t *testing.T) {
	svc := fixtureService()
	svc.status.AgentID = "eng-suzuki"
	svc.status.Focus = true
	svc.approvals = nil // no approvals: the counts are queries, buffered and msgs
	m := newLoaded(t, svc, 60, 20, true)
	frame := screen(m)
	checkFrame(t, frame, 60, 20)
	lines := strings.Split(frame, "\n")
	bar := lines[len(lines)-1]
	if strings.Contains(bar, "…") || !strings.Contains(bar, "focus ON · queries 2 · buffered 2 · msgs 2") {
		t.Errorf("the status bar cuts a part: %q", bar)
	}
	m = newLoaded(t, svc, 80, 24, true)
	frame = screen(m)
	if lines = strings.Split(frame, "\n"); !strings.Contains(lines[len(lines)-1], "2 online") {
		t.Errorf("with room, the status bar does not count the peers online: %q", lines[len(lines)-1])
	}
}

// TestTaskDetailSaysRunningAsTheList: enter on a running task says
// "state: running", the word its row shows, not the protocol's
// in_progress (the seventh walk read both side by side).
func TestTaskDetailSaysRunningAsTheList(t *testing.T) {
	svc := fixtureService()
	svc.approvals = nil
	svc.tasks = []agent.Task{{ID: "t-run", Requester: "pm-tanaka", Type: "hold", State: agent.TaskInProgress,
		Params: map[string]string{"secs": "120"}, UpdatedAt: fixedNow}}
	m := newLoaded(t, svc, 60, 20, true)
	m.setFocus(focusApprovals)
	if frame := screen(m); !strings.Contains(frame, "▶ pm-tanaka hold") || !strings.Contains(frame, "running") {
		t.Fatalf("the running task is not listed as running:\n%s", frame)
	}
	press(t, m, "enter")
	frame := screen(m)
	checkFrame(t, frame, 60, 20)
	if !strings.Contains(frame, "state: running") || strings.Contains(frame, "in_progress") {
		t.Errorf("the task's detail does not say running:\n%s", frame)
	}
}

// TestFailedReloadDoesNotSayReloading: a :reload the core refuses
// leaves no "reloading the config…" on the notice line under the dialog
// that says why (the seventh walk read both at once).
func TestFailedReloadDoesNotSayReloading(t *testing.T) {
	svc := fixtureService()
	svc.failWith = errors.New(`rpc error -32000 (Server error): config not reloaded, the running one stays: config.json: /ui/theme: "neon" is not valid — expected: auto, dark, light, high-contrast, or the path of a theme file ending in .json`)
	m := newLoaded(t, svc, 60, 20, true)
	press(t, m, ":")
	typeText(t, m, "reload")
	press(t, m, "enter")
	frame := screen(m)
	checkFrame(t, frame, 60, 20)
	if !strings.Contains(frame, "Config not reloaded") || strings.Contains(frame, "reloading the config") ||
		!strings.Contains(frame, "config not reloaded: the running one stays") {
		t.Errorf("a refused reload:\n%s", frame)
	}
}
