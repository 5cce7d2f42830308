package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent"
)

// checkCutAtWord finds the row of frame that shows the start of text and
// fails unless the row's cell holds a piece of text that ends with whole
// words (or, in Japanese, where a phrase ends) and an ellipsis.
func checkCutAtWord(t *testing.T, frame, text string) {
	t.Helper()
	start := string([]rune(text)[:6])
	for _, line := range strings.Split(frame, "\n") {
		at := strings.Index(line, start)
		if at < 0 {
			continue
		}
		cell := line[at:]
		end := strings.Index(cell, ellipsis)
		if end < 0 {
			t.Errorf("the row of %q is not cut with an ellipsis: %q", text, line)
			return
		}
		kept := cell[:end]
		if !strings.HasPrefix(text, kept) || kept == "" {
			t.Errorf("the row %q does not show the start of %q", line, text)
			return
		}
		prev, _ := utf8.DecodeLastRuneInString(kept)
		next, _ := utf8.DecodeRuneInString(text[len(kept):])
		wordEnd := prev != ' ' && next == ' '
		phraseEnd := (isCJK(prev) || isCJK(next)) && phraseBreak(prev, next)
		if !wordEnd && !phraseEnd {
			t.Errorf("the row of %q is cut inside a word: %q|%q", text, kept, string(next))
		}
		return
	}
	t.Errorf("no row shows the start of %q:\n%s", text, frame)
}

// TestTableRowsCutAtAWordBoundary: a question or a message too long for
// its row ends with whole words and an ellipsis, in English and in
// Japanese (where a phrase ends), at 60 and at 80 columns; rows read
// "what changed in the API yesterd…" in Queries and "QA signs off on
// Wed…" in Messages (a leftover of the eighth walk).
func TestTableRowsCutAtAWordBoundary(t *testing.T) {
	en := "what changed in the billing API yesterday afternoon, and who reviewed it?"
	ja := "認証機能の進捗とブロック要因について詳しく教えてください。明日の会議までにお願いします。"
	enMsg := "The release is on Thursday; QA signs off on Wednesday afternoon after the last regression run."
	jaMsg := "リリースは木曜日です。水曜日の午後に最後の回帰テストが終わったらQAが承認します。"
	for _, size := range [][2]int{{60, 20}, {80, 24}} {
		svc := fixtureService()
		svc.queries = []agent.Query{
			{ID: "q-1", From: "pm-tanaka", Text: en, Priority: "normal", State: agent.QueryAwaiting, ReceivedAt: fixedNow},
			{ID: "q-2", From: "eng-佐藤", Text: ja, Priority: "normal", State: agent.QueryAwaiting, ReceivedAt: fixedNow},
		}
		svc.messages = []agent.Message{
			{Seq: 1, From: "pm-tanaka", Event: "task.completed", Data: json.RawMessage(`{"summary":"` + enMsg + `"}`), ReceivedAt: fixedNow},
			{Seq: 2, From: "eng-佐藤", Event: "task.completed", Data: json.RawMessage(`{"summary":"` + jaMsg + `"}`), ReceivedAt: fixedNow},
		}
		m := newLoaded(t, svc, size[0], size[1], true)
		m.setFocus(focusQueries)
		frame := screen(m)
		checkFrame(t, frame, size[0], size[1])
		rows := strings.Join(strings.Split(frame, "\n")[:5], "\n") // the list, not the preview under it
		checkCutAtWord(t, rows, en)
		checkCutAtWord(t, rows, ja)
		m.setFocus(focusMessages)
		frame = screen(m)
		checkFrame(t, frame, size[0], size[1])
		rows = strings.Join(strings.Split(frame, "\n")[:10], "\n")
		checkCutAtWord(t, rows, enMsg)
		checkCutAtWord(t, rows, jaMsg)
	}
}

// TestColumnsCutJapaneseByWidth: the text column never splits a wide
// character, and a run of Japanese with no place a phrase ends is cut by
// display width, whole characters only, within the cell.
func TestColumnsCutJapaneseByWidth(t *testing.T) {
	text := "リファクタリングリファクタリングリファクタリング"
	for w := 10; w <= 30; w++ {
		row := columns(w, []int{4}, "FROM", text)
		if !utf8.ValidString(row) || width(row) > w {
			t.Fatalf("columns(%d) = %q: %d cells, valid UTF-8 %v", w, row, width(row), utf8.ValidString(row))
		}
		kept, cut := strings.CutSuffix(strings.TrimPrefix(row, "FROM "), ellipsis)
		if !cut || !strings.HasPrefix(text, kept) {
			t.Errorf("columns(%d) = %q: not the start of the text and an ellipsis", w, row)
		}
	}
}

// TestNoticeKeepsTheWayToAPaneTogether: the notice of a request to run
// something, from a pane two tabs away, keeps "(tab tab)" on one line
// when it wraps (the ninth walk read "… details in Approvals (tab" and
// "tab)" alone on the next line at 100 columns).
func TestNoticeKeepsTheWayToAPaneTogether(t *testing.T) {
	for _, w := range []int{96, 97, 98, 99, 100, 101} {
		m := newLoaded(t, fixtureService(), w, 30, true)
		m.setFocus(focusQueries)
		m.Update(eventMsg{ev: agent.Event{Seq: 1, Kind: agent.EventApprovalRequested, ID: "a-9", Agent: "pm-tanaka"}})
		m.Update(eventMsg{ev: agent.Event{Seq: 2, Kind: agent.EventAttention, ID: "a-9", Summary: "pm-tanaka wants to run run_tests suite=auth"}})
		lines := m.noticeWrapped()
		joined := strings.Join(lines, "\n")
		if !strings.Contains(joined, "(tab tab)") || strings.Contains(joined, "\u00a0") {
			t.Errorf("at %d columns the notice reads %q; want \"(tab tab)\" whole on one line, with plain spaces", w, lines)
		}
		frame := screen(m)
		checkFrame(t, frame, w, 30)
		if !strings.Contains(frame, "(tab tab)") {
			t.Errorf("at %d columns the screen does not show \"(tab tab)\" on one line:\n%s", w, frame)
		}
	}
}

// TestPreviewCutsAtAWordBoundary: the preview under a list that has no
// room for the whole text ends its last line with whole words, or in
// Japanese where a phrase ends, and an ellipsis (the ninth walk read a
// declined question's quote end "…モバイ…" under Messages at 60×20).
func TestPreviewCutsAtAWordBoundary(t *testing.T) {
	for _, c := range []struct{ reason, question string }{
		{"QAに聞いてください", "リリース前にどのテストスイートを実行すべきですか？モバイルアプリのビルドについても教えてください。"},
		{"not mine", "which suite should I run before the release, and does the Android client build need the integration tests as well?"},
	} {
		svc := fixtureService()
		for i := range 3 {
			svc.messages = append(svc.messages, agent.Message{Seq: int64(4 + i), From: "eng-suzuki", Event: "query.completed", RelatedID: "ask-x",
				Question: "filler", Data: json.RawMessage(`{"summary":"filler"}`), ReceivedAt: fixedNow})
		}
		svc.messages = append(svc.messages, agent.Message{Seq: 9, From: "eng-suzuki", Event: "query.declined", RelatedID: "ask-1",
			Question: c.question, Data: json.RawMessage(`{"summary":"` + c.reason + `"}`), ReceivedAt: fixedNow})
		m := newLoaded(t, svc, 60, 20, true)
		m.setFocus(focusMessages)
		frame := screen(m)
		checkFrame(t, frame, 60, 20)
		// The preview is the lines between its rule and the pane's foot.
		lines := strings.Split(frame, "\n")
		rule := -1
		for i, l := range lines {
			if strings.Contains(l, "── eng-suzuki · declined") {
				rule = i
			}
		}
		last := rule + 1
		for last+1 < len(lines) && strings.HasPrefix(lines[last+1], "┃") {
			last++
		}
		if rule < 0 || !strings.HasSuffix(strings.TrimRight(lines[last], "┃ "), ellipsis) {
			t.Fatalf("the preview under Messages does not end with an ellipsis:\n%s", frame)
		}
		shown := strings.TrimSuffix(strings.TrimSpace(strings.Trim(lines[last], "┃")), ellipsis)
		whole := c.reason + " · re “" + c.question + "”"
		at := strings.Index(whole, shown)
		if at < 0 {
			t.Fatalf("the preview's last line %q is not a piece of %q:\n%s", shown, whole, frame)
		}
		prev, _ := utf8.DecodeLastRuneInString(shown)
		next, _ := utf8.DecodeRuneInString(whole[at+len(shown):])
		if !(prev != ' ' && next == ' ') && !((isCJK(prev) || isCJK(next)) && phraseBreak(prev, next)) {
			t.Errorf("the preview is cut inside a word: %q|%q\n%s", shown, string(next), frame)
		}
	}
}

// TestMessageDetailSaysHowToReply: a typed message opened from Messages
// ends with who reads it and the command that replies to it, with the
// reply's usual type, the task and the thread (the ninth walk opened a task_assign
// and found no way to answer it); a notification, an answer to the
// owner's question, gets no such line.
func TestMessageDetailSaysHowToReply(t *testing.T) {
	svc := fixtureService()
	svc.messages[2].MessageID = "m-01a23ac7989b"
	m := newLoaded(t, svc, 100, 30, true)
	m.setFocus(focusMessages)
	press(t, m, "enter")
	d, ok := m.topDialog().(*detailDialog)
	if !ok {
		t.Fatalf("enter opened %T", m.topDialog())
	}
	want := "aoi send pm-tanaka progress TEXT --task T-1 --reply-to 3" // its ID in aoi messages; the reply joins th-1
	if !strings.Contains(d.body, "Your coding assistant reads it (aoi_check_messages)") || !strings.Contains(d.body, want) {
		t.Errorf("the task_assign's detail does not say how to reply (%q):\n%s", want, d.body)
	}
	frame := screen(m) // the command may wrap in the dialog, at a space
	if flat := strings.Join(strings.Fields(strings.ReplaceAll(frame, "┃", " ")), " "); !strings.Contains(flat, want) {
		t.Errorf("the dialog does not show %q:\n%s", want, frame)
	}
	press(t, m, "esc", "down")
	press(t, m, "enter")
	if d, ok := m.topDialog().(*detailDialog); !ok || strings.Contains(d.body, "aoi send") {
		t.Errorf("an answer's detail offers a reply command:\n%v", m.topDialog())
	}
}
