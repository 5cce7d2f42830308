package tui

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// TestAnswerWithNothingWaitingSaysSo: `:answer` (or `:decline`) typed
// with no question waiting says that none waits and where one will show,
// not how to write the command, which the walk read as a mistake of its
// own; with a question waiting the bar still says how to write it.
func TestAnswerWithNothingWaitingSaysSo(t *testing.T) {
	svc := fixtureService()
	svc.queries = []agent.Query{{ID: "q-3", From: "pm-tanaka", Text: "what changed?", State: agent.QueryAnswered, ReceivedAt: fixedNow}}
	m := newLoaded(t, svc, 80, 24, true)
	for _, line := range []string{"answer", "decline q-3"} {
		press(t, m, ":")
		typeText(t, m, line)
		press(t, m, "enter")
		cmd := strings.Fields(line)[0]
		if got := m.prompt.problem; !strings.HasPrefix(got, "no question is waiting for you to "+cmd+": ") || !strings.Contains(got, "shows in Queries") {
			t.Errorf(":%s with nothing waiting says %q; want that no question waits", line, got)
		}
		press(t, m, "ctrl+c")
	}
	m = newLoaded(t, fixtureService(), 80, 24, true)
	press(t, m, ":")
	typeText(t, m, "answer")
	press(t, m, "enter")
	if got := m.prompt.problem; got != "write :answer QUERY-ID text" {
		t.Errorf(":answer with questions waiting says %q; want how to write it", got)
	}
}

// TestReleasedAnswerSaysWhenItWasSent: a draft released half an hour
// after its question came says, under the list and in its detail, when it
// was sent; its own words ("latest 2 min ago") date from when it was
// drafted, and AGE from the question, so neither told (the walk's "2 min
// ago" for an answer just sent).
func TestReleasedAnswerSaysWhenItWasSent(t *testing.T) {
	svc := fixtureService()
	sent := fixedNow.Add(-time.Minute)
	answer := json.RawMessage(`{"summary":"auth: 3 matching commits, latest 2 min ago (09:28 UTC)."}`)
	svc.queries = []agent.Query{{ID: "q-9", From: "pm-tanaka", Text: "how is auth going?", State: agent.QueryAnswered,
		Decision: "BUFFER", Draft: answer, Answer: answer, ReceivedAt: fixedNow.Add(-30 * time.Minute), AnsweredAt: &sent}}
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusQueries)
	if frame := screen(m); !strings.Contains(frame, "↳ answered 1m ago: auth: 3 matching commits") {
		t.Errorf("the preview does not say when the answer was sent:\n%s", frame)
	}
	press(t, m, "enter")
	d, ok := m.topDialog().(*detailDialog)
	if !ok || !strings.Contains(d.body, "received: 09:30:00\nanswered: 09:59:00") {
		t.Errorf("the detail does not say when the answer was sent: %T\n%v", m.topDialog(), d)
	}
}

// TestMessagesTextGetsTheRoom: at 60 columns, and in a half of the wide
// layout, FROM, KIND and AGE take what their rows hold, so the text of an
// answer reads past its first words (the walk read "The release is on…"
// in 18 cells); with a long sender, a long kind and "just now" on screen,
// those give way before TEXT drops under two fifths of the pane.
func TestMessagesTextGetsTheRoom(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {120, 40}} {
		m := newLoaded(t, fixtureService(), sz[0], sz[1], true)
		m.setFocus(focusMessages)
		frame := screen(m)
		checkFrame(t, frame, sz[0], sz[1])
		if !strings.Contains(frame, "10m The release is on Thursday;") {
			t.Errorf("%dx%d: the answer's text is cut short:\n%s", sz[0], sz[1], frame)
		}
	}
	svc := fixtureService()
	svc.messages = append(svc.messages, agent.Message{Seq: 4, From: "pm-tanaka", Origin: "eng-yamamoto-backend", Event: "task.canceled",
		Data: json.RawMessage(`{"summary":"the suite was canceled by its requester before it ran"}`), ReceivedAt: fixedNow})
	m := newLoaded(t, svc, 60, 20, true)
	m.setFocus(focusMessages)
	row := ""
	for _, l := range strings.Split(screen(m), "\n") {
		if strings.Contains(l, "canceled by") || strings.Contains(l, "the suite was") {
			row = l
			break
		}
	}
	i := strings.Index(row, "the suite was")
	if i < 0 {
		t.Fatalf("the message's text is not on its row: %q", row)
	}
	text := row[i:]
	t.Log(row)
	if got, want := width(strings.TrimRight(text, " ┃")), 58*2/5; got < want {
		t.Errorf("TEXT keeps %d cells of 58 beside a long sender and kind; want at least %d: %q", got, want, row)
	}
}

// TestAuditMethodColumnFitsTheRows: with a filter showing only aoi.query
// rows the METHOD column is as wide as "aoi.query", not 16 cells (the
// walk's `method:` filters left DETAIL the blank); a long method is cut at
// 16 cells, as before.
func TestAuditMethodColumnFitsTheRows(t *testing.T) {
	m := newLoaded(t, fixtureService(), 60, 20, true)
	press(t, m, "/")
	typeText(t, m, "method:aoi.query")
	press(t, m, "enter")
	frame := screen(m)
	if !regexp.MustCompile(`aoi\.query (ok|denied) `).MatchString(frame) {
		t.Errorf("METHOD is wider than the aoi.query rows on screen:\n%s", frame)
	}
	p := newAuditPane(&env{})
	p.pages = [][]agent.AuditEntry{{{Seq: 1, Method: "ctl.prompt_history.add", Result: "ok"}}}
	p.fold()
	p.w = 58
	if row := p.columnsFor(0, 1, false).row("", "12:00", "owner", "ctl.prompt_history.add", "ok", "n=1"); !strings.Contains(row, "ctl.prompt_hist… ok") {
		t.Errorf("a 22-cell method is not cut at 16 cells: %q", row)
	}
}

// announceRows is a log where peers' announces crowd the rows around a
// question and an answer: #1 a question, #2–#13 two peers announcing in
// turn, #14 the owner's answer, #15–#17 one peer announcing.
func announceRows() []agent.AuditEntry {
	var rows []agent.AuditEntry
	add := func(who, method string) {
		seq := int64(len(rows) + 1)
		rows = append(rows, agent.AuditEntry{Seq: seq, Time: fixedNow.Add(time.Duration(seq-17) * time.Minute), Agent: who, Method: method,
			Result: "ok", Detail: json.RawMessage(`{"id":` + i64toa(seq) + `}`)})
	}
	add("pm-tanaka", "aoi.query")
	for i := 0; i < 12; i++ {
		add([]string{"pm-tanaka", "qa-ito"}[i%2], "aoi.discover")
	}
	add("owner", "ctl.answer")
	for i := 0; i < 3; i++ {
		add("pm-tanaka", "aoi.discover")
	}
	return rows
}

// TestAuditFoldsRoutineRepeats: announces that follow one another are one
// line with their count, whoever made them (peers' announces interleave), so the question and the answer stay in
// view; enter on it lists every row and shows the newest whole; a filter
// lists each row; a new announce joins the line on top.
func TestAuditFoldsRoutineRepeats(t *testing.T) {
	svc := fixtureService()
	svc.audit = announceRows()
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusAudit)
	frame := screen(m)
	for _, want := range []string{"10:00 pm-tanaka aoi.discover ×3 ", "09:56 2 agents  aoi.discover ×12 ok     since 09:45 · qa-ito ×6, pm-tanaka ×6",
		"09:57 owner     ctl.answer", "09:44 pm-tanaka aoi.query ", "#15–#17 · pm-tanaka · aoi.discover ×3 · ok"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the Audit pane lacks %q:\n%s", want, frame)
		}
	}
	press(t, m, "down", "down", "enter")
	d, ok := m.topDialog().(*detailDialog)
	if !ok || !strings.HasPrefix(d.body, "12 rows of aoi.discover (ok)") || !strings.Contains(d.body, "#13  09:56:00  qa-ito  id=13\n") ||
		!strings.Contains(d.body, "#2  09:45:00  pm-tanaka  id=2\n") || !strings.Contains(d.body, "The newest, whole:\nseq: 13\n") {
		t.Fatalf("enter on the folded line: %T\n%v", m.topDialog(), d)
	}
	_ = screen(m) // the dialog is drawn before the owner closes it
	press(t, m, "esc")

	// The line the owner reads stays selected as an announce arrives.
	svc.mu.Lock()
	svc.audit = append(announceRows(), agent.AuditEntry{Seq: 18, Time: fixedNow, Agent: "qa-ito", Method: "aoi.discover", Result: "ok"})
	svc.mu.Unlock()
	for _, c := range m.fetchCmds(dAudit) {
		pump(t, m, c)
	}
	frame = screen(m)
	if !strings.Contains(frame, "── #2–#13 · 2 agents · aoi.discover ×12 · ok") {
		t.Errorf("after an announce the selection left the 12 rows from #13:\n%s", frame)
	}
	if !strings.Contains(frame, "10:00 2 agents  aoi.discover ×4 ") {
		t.Errorf("the new announce did not join the line on top:\n%s", frame)
	}

	press(t, m, "/")
	typeText(t, m, "method:aoi.discover")
	press(t, m, "enter")
	if frame := screen(m); m.audit.n() != 16 || strings.Contains(frame, "×") || !strings.Contains(frame, "09:59 pm-tanaka aoi.discover ok") {
		t.Errorf("a filter on the method folds its %d rows:\n%s", m.audit.n(), frame)
	}
}

// TestAuditPagesThroughAFoldedLog: in a log of announces with a question
// every 50 rows, eight lines hold a page; paging down reaches the oldest
// row and stays there, and paging up comes back to the newest, without
// loading the pages on either side of a short window in turn.
func TestAuditPagesThroughAFoldedLog(t *testing.T) {
	svc := bigService(5000, 0)
	for i := range svc.audit {
		if i%50 != 0 {
			svc.audit[i].Method, svc.audit[i].Result = "aoi.discover", "ok"
		}
	}
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusAudit)
	for i := 0; i < 100; i++ {
		press(t, m, "pgdown")
	}
	if got := m.audit.lineSeq(m.audit.list.cursor); got != 1 || !m.audit.ended {
		t.Fatalf("100 page downs end on #%d; want the oldest row, #1", got)
	}
	for i := 0; i < 100; i++ {
		press(t, m, "pgup")
	}
	if got := m.audit.lineSeq(m.audit.list.cursor); got != 5000 || m.audit.first != 0 {
		t.Errorf("100 page ups end on #%d (page %d); want the newest, #5000", got, m.audit.first)
	}
	if svc.auditReqs > 60 {
		t.Errorf("%d audit fetches for 200 page moves over 25 pages", svc.auditReqs)
	}
}

// TestQuestionsGetTheRoom: at 60 columns, and in a half of the wide
// layout, Queries and Interrupts size FROM, STATE and AGE to their rows,
// as Messages does, so a question reads past its first words (the walk's
// own walk-through read "認証機能の進捗とブロッ…" in 23 cells).
func TestQuestionsGetTheRoom(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {120, 40}} {
		m := newLoaded(t, fixtureService(), sz[0], sz[1], true)
		m.setFocus(focusQueries)
		frame := screen(m)
		checkFrame(t, frame, sz[0], sz[1])
		if !strings.Contains(frame, "2m  auth progress and blockers? ") {
			t.Errorf("%dx%d: the question is cut short in Queries:\n%s", sz[0], sz[1], frame)
		}
		m.setFocus(focusInterrupts)
		if frame := screen(m); !strings.Contains(frame, "12m which suite should I run before the") {
			t.Errorf("%dx%d: the question is cut short in Interrupts:\n%s", sz[0], sz[1], frame)
		}
	}
}

// TestAuditKeepsEachAcceptedCall: folding is for routine repeats. Questions
// that follow one another keep a line each, even from one peer (each is
// what an audit is read for); one peer's refused calls in a loop fold, and
// two peers' refusals do not fold together.
func TestAuditKeepsEachAcceptedCall(t *testing.T) {
	e := func(seq int64, agentID, method, result string) agent.AuditEntry {
		return agent.AuditEntry{Seq: seq, Agent: agentID, Method: method, Result: result}
	}
	rows := []agent.AuditEntry{
		e(9, "pm-tanaka", "aoi.query", "ok"), e(8, "pm-tanaka", "aoi.query", "ok"),
		e(7, "qa-ito", "aoi.query", "PERMISSION_DENIED"), e(6, "qa-ito", "aoi.query", "PERMISSION_DENIED"),
		e(5, "pm-tanaka", "aoi.query", "PERMISSION_DENIED"),
		e(4, "qa-ito", "aoi.discover", "ok"), e(3, "pm-tanaka", "aoi.discover", "ok"),
	}
	var got []int
	for _, r := range foldRuns(rows, true) {
		got = append(got, r.n)
	}
	if want := []int{1, 1, 2, 1, 2}; !slices.Equal(got, want) {
		t.Fatalf("runs of %v: %v, want %v", rows, got, want)
	}
}
