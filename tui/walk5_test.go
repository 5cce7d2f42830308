package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// TestMessagesCountsEveryAskWaiting: the line heading Messages counts
// every question still waiting for its answer, not the newest 20 the
// status lists (the fifth walk's PM had 31 waiting and read "waiting for
// 20 answers").
func TestMessagesCountsEveryAskWaiting(t *testing.T) {
	svc := fixtureService()
	for i := range 20 {
		svc.status.Waiting = append(svc.status.Waiting, agent.WaitingAsk{RequestID: fmt.Sprintf("ask-%d", i),
			To: "eng-suzuki", Text: fmt.Sprintf("item %d?", 31-i), SentAt: fixedNow.Add(-time.Minute)})
	}
	svc.status.WaitingTotal = 31
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusMessages)
	frame := screen(m)
	checkFrame(t, frame, 80, 24)
	if !strings.Contains(frame, "waiting for 31 answers: eng-suzuki “item 31?” (1m)") {
		t.Errorf("the Messages pane does not count the 31 asks waiting:\n%s", frame)
	}
}

// TestPeerWithoutRoleSaysSo: the detail of a peer pinned without a role
// says it has none and how to give one (the walk's PM pinned eng-suzuki
// without --role and the detail had no role line at all); a peer with a
// role shows it.
func TestPeerWithoutRoleSaysSo(t *testing.T) {
	svc := fixtureService()
	svc.peers = svc.peers[:3] // pinned ones only
	svc.peers[0].Role = ""
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusPeers)
	press(t, m, "home")
	details := map[string]string{}
	for range svc.peers {
		press(t, m, "enter")
		d, ok := m.topDialog().(*detailDialog)
		if !ok {
			t.Fatalf("enter on a peer opened %T", m.topDialog())
		}
		details[strings.TrimPrefix(d.title, "Peer ")] = d.body
		screen(m) // drawn, as the terminal does before the next key
		press(t, m, "esc", "down")
	}
	want := "role: none given, so ACL rules naming a role do not match it (:trust pm-tanaka FINGERPRINT ENDPOINT ROLE gives it one)"
	if !strings.Contains(details["pm-tanaka"], want) {
		t.Errorf("the detail of a peer without a role:\n%s", details["pm-tanaka"])
	}
	if !strings.Contains(details["qa-ito"], "role: qa\n") {
		t.Errorf("the detail of a peer with a role:\n%s", details["qa-ito"])
	}
}

// TestAnswerIDThatNamesNoOneQuestionKeepsTheLine: `:answer ID text` with
// the start of several questions' ids (as tab leaves it when they share
// it) or of none says so and keeps the line to mend; the core answered
// both with "no query", and the bar closed on the answer typed. An id
// that names one question still answers it.
func TestAnswerIDThatNamesNoOneQuestionKeepsTheLine(t *testing.T) {
	svc := fixtureService()
	for _, id := range []string{"q-01a2aa", "q-01a2bb"} {
		svc.queries = append(svc.queries, agent.Query{ID: id, From: "pm-tanaka", Text: "状況は？ " + id,
			State: agent.QueryEscalated, ReceivedAt: fixedNow.Add(-time.Minute)})
	}
	m := newLoaded(t, svc, 80, 24, true)
	for _, c := range []struct{ line, problem string }{
		{":answer q-01a2 済", "q-01a2 starts the ids of 2 questions: type more of it (tab lists them)"},
		{":decline q-zz no", "no question's id starts with q-zz: tab completes the id of one waiting for you"},
	} {
		press(t, m, ":")
		typeText(t, m, c.line[1:])
		press(t, m, "enter")
		if m.focus != focusPrompt || m.prompt.value() != c.line || m.prompt.problem != c.problem {
			t.Errorf("%s: bar open %v with %q, problem %q; want it open with the line and %q",
				c.line, m.focus == focusPrompt, m.prompt.value(), m.prompt.problem, c.problem)
		}
		if frame := screen(m); !strings.Contains(frame, "✗ ") {
			t.Errorf("%s: the problem does not show:\n%s", c.line, frame)
		}
		press(t, m, "ctrl+c")
	}
	if calls := svc.Calls(); len(calls) != 0 {
		t.Errorf("a line naming no one question was sent: %v", calls)
	}
	press(t, m, ":")
	typeText(t, m, "answer q-01a2bb 済")
	press(t, m, "enter")
	if calls := svc.Calls(); len(calls) != 1 || calls[0] != "answer q-01a2bb 済" {
		t.Errorf("an id naming one question: calls %v", calls)
	}
}

// TestTrustNoticeSaysHowToReachPeers: the notice of a trust request says
// how to reach the Peers pane from the pane in focus, where t and x work
// (the walk pressed t in Approvals and nothing happened); in Peers it
// names the keys alone.
func TestTrustNoticeSaysHowToReachPeers(t *testing.T) {
	fp := "SHA256:3f:a9:1c:77:0e:52:b4:d1:9a:20:6e:8f:c3:11"
	for _, c := range []struct {
		in   focus
		want string
	}{
		{focusApprovals, "asks to be trusted — t trust, x refuse in the Peers pane (tab tab tab)"},
		{focusQueries, "asks to be trusted — t trust, x refuse in the Peers pane (shift+tab)"},
		{focusPeers, "asks to be trusted — t trust, x refuse"},
	} {
		m := newLoaded(t, fixtureService(), 120, 36, true)
		m.setFocus(c.in)
		m.Update(eventMsg{ev: agent.Event{Seq: 1, Kind: agent.EventTrustRequested, ID: fp, Summary: "unpinned peer stranger wants to talk"}})
		m.Update(eventMsg{ev: agent.Event{Seq: 2, Kind: agent.EventAttention, ID: fp, Summary: "a new peer asks to be trusted"}})
		if !strings.HasSuffix(m.notice.text, c.want) {
			t.Errorf("focus %d: the trust notice reads %q; want it to end %q", c.in, m.notice.text, c.want)
		}
	}
}

// TestAuditPreviewShowsTheQuestion: the JSON under the Audit list puts
// what the row is about first, as DETAIL does, so an escalated question's
// row shows the question within the preview's two lines at 60 columns
// and in the wide layout's half; alphabetical, it came after confidence,
// priority and a 26-character query id, and was cut (the fifth walk).
func TestAuditPreviewShowsTheQuestion(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {140, 45}} {
		svc := fixtureService()
		svc.audit = append(svc.audit, agent.AuditEntry{Seq: 41, Time: fixedNow, Agent: "pm-tanaka", Method: "aoi.query", Result: "ok",
			Detail: json.RawMessage(`{"confidence":0.2,"decision":"ESCALATE","priority":"normal","query_id":"q-01a2372f8cdff77a36d9c25d","question":"質問その30: what is the status of item 30?","scope":[]}`)})
		m := newLoaded(t, svc, sz[0], sz[1], true)
		m.setFocus(focusAudit)
		frame := screen(m)
		checkFrame(t, frame, sz[0], sz[1])
		if !strings.Contains(frame, `{"decision":"ESCALATE", "question":"質問その30:`) || !strings.Contains(frame, "item 30?") {
			t.Errorf("%dx%d: the preview does not show the question:\n%s", sz[0], sz[1], frame)
		}
	}
}

// TestHelpTellsPromptKeysFromDialogKeys: the help's last group holds the
// dialogs' keys and the prompt bar's; each of the bar's says it acts on
// its line, so "enter run" is not read as a dialog's send, nor "esc close"
// as a second meaning of the dialogs' "esc cancel" (the fifth walk).
func TestHelpTellsPromptKeysFromDialogKeys(t *testing.T) {
	m := newLoaded(t, fixtureService(), 140, 45, true)
	press(t, m, "?")
	frame := screen(m)
	for _, want := range []string{"ctrl+s send", "esc    cancel", "up     older line", "down   newer line",
		"tab    complete a word", "enter  run the line", "esc    close the bar"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the help lacks %q:\n%s", want, frame)
		}
	}
}

// TestEndShowsADialogsLastPage: end (as in the lists) takes a long dialog
// to its last page and home back, the help at 60×20 here; it did nothing,
// the walk paging down through "↓ more" instead.
func TestEndShowsADialogsLastPage(t *testing.T) {
	m := newLoaded(t, fixtureService(), 60, 20, true)
	press(t, m, "?")
	if frame := screen(m); !strings.Contains(frame, "↓ more") {
		t.Fatalf("the help fits at 60×20; the test needs one that does not:\n%s", frame)
	}
	press(t, m, "end")
	frame := screen(m)
	if strings.Contains(frame, "↓ more") || !strings.Contains(frame, ":quit") {
		t.Errorf("end did not show the help's last page:\n%s", frame)
	}
	press(t, m, "home")
	if frame := screen(m); !strings.Contains(frame, "everywhere") {
		t.Errorf("home did not go back to the top:\n%s", frame)
	}
}
