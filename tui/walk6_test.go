package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/charmbracelet/x/ansi"
)

// manyRows gives every list pane 35 rows (the audit log 40).
func manyRows() *testService {
	svc := fixtureService()
	svc.queries, svc.approvals, svc.tasks, svc.messages, svc.peers = nil, nil, nil, nil, nil
	for i := range 35 {
		at := fixedNow.Add(-time.Duration(i+1) * time.Minute)
		svc.queries = append(svc.queries, agent.Query{ID: fmt.Sprintf("q-%02d", i), From: "pm-tanaka",
			Text: fmt.Sprintf("question %d?", i), State: agent.QueryBuffered, ReceivedAt: at})
		svc.approvals = append(svc.approvals, agent.Approval{ID: fmt.Sprintf("a-%02d", i), TaskID: fmt.Sprintf("t-%02d", i),
			Requester: "pm-tanaka", TaskType: "lint", State: agent.TaskPending, CreatedAt: at, ExpiresAt: fixedNow.Add(time.Hour)})
		svc.messages = append(svc.messages, agent.Message{Seq: int64(i + 1), From: "qa-ito", Event: "query.completed",
			Data: json.RawMessage(`{"summary":"done"}`), ReceivedAt: at, Read: true})
		svc.peers = append(svc.peers, agent.Peer{AgentID: fmt.Sprintf("peer-%02d", i), Status: agent.PeerOnline,
			Trust: agent.TrustPinned, LastSeen: at})
	}
	return svc
}

// listOf is the list state of a pane.
func listOf(p pane) listState {
	switch p := p.(type) {
	case *peersPane:
		return p.list
	case *queriesPane:
		return p.list
	case *interruptsPane:
		return p.list
	case *approvalsPane:
		return p.list
	case *messagesPane:
		return p.list
	case *auditPane:
		return p.list
	}
	panic(fmt.Sprintf("no list in %T", p))
}

// TestListTitlesCountRowsBelow: a list longer than its window says in its
// title how many rows follow, as it says how many are above (the sixth
// walk's Queries showed 11 of 35 rows and nothing said more follow); at
// the end of the list only the rows above are counted.
func TestListTitlesCountRowsBelow(t *testing.T) {
	for _, f := range []focus{focusPeers, focusQueries, focusInterrupts, focusApprovals, focusAudit, focusMessages} {
		m := newLoaded(t, manyRows(), 80, 24, true)
		m.setFocus(f)
		screen(m)
		p := m.pane(f)
		n := 35
		if f == focusAudit {
			n = 40
		}
		below := fmt.Sprintf(" · ↓ %d below", n-listOf(p).height)
		if title := p.Title(); !strings.HasSuffix(title, below) || strings.Contains(title, "above") {
			t.Errorf("%T at the top: title %q; want it to end with %q", p, title, below)
		}
		if frame := screen(m); !strings.Contains(frame, below) {
			t.Errorf("%T: the frame does not show %q:\n%s", p, below, frame)
		}
		press(t, m, "end")
		screen(m)
		above := fmt.Sprintf(" · ↑ %d above", n-listOf(p).height)
		if title := p.Title(); !strings.HasSuffix(title, above) || strings.Contains(title, "below") {
			t.Errorf("%T at the end: title %q; want it to end with %q", p, title, above)
		}
	}
}

// TestClosedPaneTitleCountsNoRowsBelow: a pane drawn as a one-line header
// shows no rows, so its title does not say rows follow.
func TestClosedPaneTitleCountsNoRowsBelow(t *testing.T) {
	m := newLoaded(t, manyRows(), 80, 24, true)
	m.setFocus(focusQueries)
	if frame := screen(m); strings.Count(frame, "below") != 1 {
		t.Errorf("closed panes count rows below:\n%s", frame)
	}
}

// TestApprovalsColumnsFitTheRowsOnScreen: FROM and WHEN are as wide as the
// rows on screen need, as in Queries and Messages, not a fixed 12 cells:
// short ones leave PARAMS room for the parameters whole, and a long
// sender shows whole where PARAMS keeps two fifths of the pane beside it.
func TestApprovalsColumnsFitTheRowsOnScreen(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	m.setFocus(focusApprovals)
	if frame := screen(m); !strings.Contains(frame, "suite=./auth/... [pm-run-tests]") {
		t.Errorf("PARAMS cuts the parameters beside short senders and times:\n%s", frame)
	}
	svc := fixtureService()
	svc.tasks[0].Requester = "reviewer-kobayashi"
	m = newLoaded(t, svc, 100, 30, true)
	m.setFocus(focusApprovals)
	if frame := screen(m); !strings.Contains(frame, "▶ reviewer-kobayashi run_tests") {
		t.Errorf("FROM cuts a long sender:\n%s", frame)
	}
}

// TestAnswerDialogKeepsKinsoku: the answer dialog at 60×20 starts no
// line of the question with 、 (the sixth walk read "特に / 、決済…": the
// character before moves down with it) and ends none with 「 (the seventh:
// the bracket starts the next line with the words it opens). 27 or 28
// characters fill the dialog's 56 cells.
func TestAnswerDialogKeepsKinsoku(t *testing.T) {
	for _, c := range []struct{ text, never, line string }{
		{"進捗は" + strings.Repeat("順調", 12) + "だ、特に決済モジュールの改修は来週まで待ってください。", "┃ 、", "┃ だ、特に"},
		{"進捗は" + strings.Repeat("順調", 12) + "「決済モジュール」の改修は来週です。", "「 ", "┃ 「決済"},
	} {
		svc := fixtureService()
		svc.queries[0].Text = c.text
		m := newLoaded(t, svc, 60, 20, true)
		press(t, m, "e")
		frame := screen(m)
		checkFrame(t, frame, 60, 20)
		if strings.Contains(frame, c.never) || !strings.Contains(frame, c.line) {
			t.Errorf("the question's lines break against kinsoku (%q shown, no line %q):\n%s", c.never, c.line, frame)
		}
		if got := strings.ReplaceAll(boxText(frame), " ", ""); !strings.Contains(got, c.text) {
			t.Errorf("the question is not whole across its lines: %q", got)
		}
	}
}

// TestWrapKeepsClosingPunctuationOffLineStarts: at every width, no line
// of wrapped Japanese starts with closing punctuation after a line that
// has a character to give (checkWrapAtEveryWidth).
func TestWrapKeepsClosingPunctuationOffLineStarts(t *testing.T) {
	checkWrapAtEveryWidth(t,
		"特に決済モジュールの改修は来週まで待ってください、決済チームの確認が必要です。よろしくお願いします！",
		"「はい」と言った。『いいえ』と言った（本当に？）。次は、どうしますか？！",
		"認証のリファクタリングは70%完了、残りはtoken refreshのテスト（CIで失敗中）。",
	)
	if got := wrap("hello world 、again", 11); got[0] != "hello" {
		t.Errorf("a break at a space moved a letter, not the word: %q", got)
	}
}

// checkWrapAtEveryWidth wraps each text at every width from 4 to 40 and
// checks the kinsoku rules: no line wider than the width, none starting
// with closing punctuation after a line with a character to give, none
// ending with an opening bracket when it has something else to keep, and
// the lines put together are the text.
func checkWrapAtEveryWidth(t *testing.T, texts ...string) {
	t.Helper()
	for _, text := range texts {
		for w := 4; w <= 40; w++ {
			lines := wrap(text, w)
			for i, l := range lines {
				if width(l) > w {
					t.Errorf("w=%d: line %q is %d cells wide", w, l, width(l))
				}
				if i < len(lines)-1 && openingSuffix(l) != "" && openingSuffix(l) != l {
					t.Errorf("w=%d: line %d ends with an opening bracket: %q", w, i, lines)
				}
				if i > 0 && closingPrefix(l) != "" && lastBase(lines[i-1]) > 0 {
					t.Errorf("w=%d: line %d starts with closing punctuation: %q", w, i, lines)
				}
			}
			if strings.ReplaceAll(strings.Join(lines, ""), " ", "") != strings.ReplaceAll(text, " ", "") {
				t.Errorf("w=%d: the lines %q are not the text", w, lines)
			}
		}
	}
}

// TestWaitingLineFoldsRepeatedAsks: the Messages pane's waiting line
// names an ask sent again and again once, counted (the walk read "task
// list_files dir=auth" twenty times), and keeps the others apart.
func TestWaitingLineFoldsRepeatedAsks(t *testing.T) {
	svc := fixtureService()
	svc.status.Waiting = []agent.WaitingAsk{{RequestID: "ask-q", To: "qa-ito", Text: "which suite?", SentAt: fixedNow.Add(-30 * time.Second)}}
	for i := range 20 {
		svc.status.Waiting = append(svc.status.Waiting, agent.WaitingAsk{RequestID: fmt.Sprintf("ask-%d", i),
			To: "eng-suzuki", Text: "task list_files dir=auth", SentAt: fixedNow.Add(-time.Duration(i+1) * time.Minute)})
	}
	svc.status.WaitingTotal = 21
	m := newLoaded(t, svc, 140, 45, true)
	m.setFocus(focusMessages)
	frame := screen(m)
	checkFrame(t, frame, 140, 45)
	got := ansi.Strip(strings.Join(m.messages.waitingLines(), " "))
	if got != "waiting for 21 answers: qa-ito “which suite?” (30s) · eng-suzuki task list_files dir=auth ×20 (1m)" {
		t.Errorf("the waiting line does not fold the repeated task request: %q\n%s", got, frame)
	}
}

// TestAuditTitleSaysMoreMayFollowPages: while older pages of the audit
// log are not loaded, the Audit title counts the loaded lines below as a
// floor ("N+"); once the oldest row is loaded, as a count.
func TestAuditTitleSaysMoreMayFollowPages(t *testing.T) {
	m := newLoaded(t, bigService(500, 0), 80, 24, true)
	m.setFocus(focusAudit)
	screen(m)
	if title := m.audit.Title(); !strings.HasSuffix(title, "+ below") {
		t.Errorf("with older pages not loaded: title %q; want it to end with \"N+ below\"", title)
	}
	m = newLoaded(t, manyRows(), 80, 24, true) // 40 rows: one page
	m.setFocus(focusAudit)
	screen(m)
	if title := m.audit.Title(); strings.Contains(title, "+ below") || !strings.Contains(title, " below") {
		t.Errorf("with every row loaded: title %q; want a count of the lines below", title)
	}
}
