package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestAuditPagesThroughLargeLog scrolls through 100k rows and back: the
// pane holds at most auditMaxPages pages, and paging up returns the exact
// rows seen on the way down.
func TestAuditPagesThroughLargeLog(t *testing.T) {
	svc := bigService(100_000, 0)
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusAudit)
	if got := m.audit.at(0).Seq; got != 100_000 {
		t.Fatalf("first row seq = %d; want the newest", got)
	}
	for i := 0; i < 20; i++ {
		press(t, m, "pgdown")
	}
	seq := m.audit.at(m.audit.list.cursor).Seq
	if m.audit.n() > auditMaxPages*auditPageSize {
		t.Errorf("holding %d rows; the window is at most %d", m.audit.n(), auditMaxPages*auditPageSize)
	}
	if want := int64(100_000 - 20*(m.audit.list.height-1)); seq != want {
		t.Errorf("after 20 page downs the cursor is on seq %d; want %d", seq, want)
	}
	for i := 0; i < 100; i++ {
		press(t, m, "pgdown")
	}
	if m.audit.first == 0 {
		t.Error("window never moved past the first page")
	}
	for i := 0; i < 100; i++ {
		press(t, m, "pgup")
	}
	if got := m.audit.at(m.audit.list.cursor).Seq; got != seq {
		t.Errorf("back up 100 pages: seq %d; want %d", got, seq)
	}
	if calls := svc.auditReqs; calls > 40 {
		t.Errorf("%d audit fetches for 220 page moves; paging is not windowed", calls)
	}
	checkFrame(t, screen(m), 80, 24)
}

func TestAuditFilter(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "/")
	if m.focus != focusAudit || len(m.dialogs) != 1 {
		t.Fatalf("/ did not open the filter (focus %d, dialogs %d)", m.focus, len(m.dialogs))
	}
	typeText(t, m, "agent:qa-ito PERMISSION_DENIED")
	press(t, m, "enter")
	frame := screen(m)
	if !strings.Contains(frame, "filter agent:qa-ito PERMISSION_DENIED") {
		t.Errorf("filter not in title:\n%s", frame)
	}
	rows := 0
	for i := 0; i < m.audit.n(); i++ {
		e := m.audit.at(i)
		if e.Agent != "qa-ito" || e.Result != "PERMISSION_DENIED" {
			t.Errorf("row %d does not match the filter: %+v", i, e)
		}
		rows++
	}
	if rows == 0 {
		t.Error("filter matched nothing")
	}
	press(t, m, "/")
	for range "agent:qa-ito PERMISSION_DENIED" {
		press(t, m, "backspace")
	}
	press(t, m, "enter")
	if m.audit.n() != 40 {
		t.Errorf("clearing the filter shows %d rows; want 40", m.audit.n())
	}
}

func TestAuditLiveHead(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	m.setFocus(focusAudit)
	svc.mu.Lock()
	svc.audit = auditRows(41)
	svc.mu.Unlock()
	for _, c := range m.fetchCmds(dAudit) {
		pump(t, m, c)
	}
	if got := m.audit.at(0).Seq; got != 41 {
		t.Errorf("head after an append = %d; want 41", got)
	}
}

func TestParseAuditFilter(t *testing.T) {
	f := parseAuditFilter("pm-tanaka aoi.query ok")
	if f.Text != "pm-tanaka aoi.query ok" || f.Agent != "" || f.Method != "" {
		t.Errorf("bare words must search the row text: %+v", f)
	}
	// The RESULT column's label works as well as the name.
	if f := parseAuditFilter("result:denied"); f.Result != "PERMISSION_DENIED" {
		t.Errorf("result:denied filters on %q, want PERMISSION_DENIED", f.Result)
	}
	if f := parseAuditFilter("result:bad-params"); f.Result != "INVALID_PARAMS" {
		t.Errorf("result:bad-params filters on %q, want INVALID_PARAMS", f.Result)
	}
	f = parseAuditFilter("method:ctl.approve result:RATE_LIMIT agent:x")
	if f.Agent != "x" || f.Method != "ctl.approve" || f.Result != "RATE_LIMIT" {
		t.Errorf("%+v", f)
	}
	// Keys and values in any case (the walk typed agent:BOB and Agent:bob).
	f = parseAuditFilter("Agent:BOB METHOD:AOI.Query")
	if f.Agent != "bob" || f.Method != "aoi.query" || f.Text != "" {
		t.Errorf("mixed case: %+v", f)
	}
	if w, k := unknownFilterKey("Agent:bob Foo:bar"); w != "Foo:bar" || k != "foo" {
		t.Errorf("unknownFilterKey = %q, %q; want Foo:bar named", w, k)
	}
}

// TestAuditDetailColumnReadable: in a column of the wide layout (120
// columns) and on an 80-column terminal the DETAIL column has room to be
// read, its first key at least, after a whole method name; at 60 columns
// nothing overflows.
func TestAuditDetailColumnReadable(t *testing.T) {
	for _, sz := range [][2]int{{120, 36}, {80, 24}, {60, 20}} {
		m := newLoaded(t, fixtureService(), sz[0], sz[1], true)
		m.setFocus(focusAudit)
		frame := screen(m)
		checkFrame(t, frame, sz[0], sz[1])
		if sz[0] < 80 {
			continue
		}
		// The newest row's line (09:59), not the preview under the list.
		row := ""
		for _, l := range strings.Split(frame, "\n") {
			if strings.Contains(l, "09:59") {
				row = l
			}
		}
		if !strings.Contains(row, `scope=acme/webapp`) {
			t.Errorf("%dx%d: the detail column is too narrow to read: %q", sz[0], sz[1], row)
		}
	}
}

// TestAuditDetailReadsAsPairs: the DETAIL column reads key=value, what a
// row is about first (the walk read `{"confidence"…` on every query row,
// and "ok" for an escalated one); the preview keeps the JSON whole.
func TestAuditDetailReadsAsPairs(t *testing.T) {
	got := detailSummary(json.RawMessage(`{"confidence":0.2,"decision":"ESCALATE","priority":"normal","query_id":"q-01a2","scope":["acme/webapp","acme/api"]}`))
	if want := "decision=ESCALATE confidence=0.2 priority=normal scope=acme/webapp,acme/api query_id=q-01a2"; got != want {
		t.Errorf("detailSummary = %q, want %q", got, want)
	}
	// An escalated question's row quotes what was asked (the daily-use
	// walk's row said only its id), next to the decision.
	got = detailSummary(json.RawMessage(`{"confidence":0.2,"decision":"ESCALATE","priority":"normal","query_id":"q-01a2","question":"when does billing ship?"}`))
	if want := "decision=ESCALATE question=“when does billing ship?” confidence=0.2 priority=normal query_id=q-01a2"; got != want {
		t.Errorf("detailSummary = %q, want %q", got, want)
	}
	if got := detailSummary(json.RawMessage(`"plain"`)); got != `"plain"` {
		t.Errorf("a detail that is no object = %q, want its JSON", got)
	}
}

// TestAuditFilterNamesUnknownKey: a mistyped key ("agnet:") is searched as
// text, and the notice line says so and names the keys there are; a
// known key or a plain word brings no such notice.
func TestAuditFilterNamesUnknownKey(t *testing.T) {
	m := newLoaded(t, fixtureService(), 100, 30, true)
	press(t, m, "/")
	typeText(t, m, "agnet:qa-ito")
	press(t, m, "enter")
	frame := screen(m)
	if !strings.Contains(frame, "agnet: is not a filter key (agent:, method:, result:)") {
		t.Errorf("a mistyped filter key is not named:\n%s", frame)
	}
	// One esc takes the notice and the filter away, as the keys line
	// under the notice says (the walk pressed it twice).
	press(t, m, "esc")
	if m.notice.text != "" || m.audit.filterText != "" {
		t.Errorf("esc left notice %q and filter %q", m.notice.text, m.audit.filterText)
	}
	press(t, m, "/")
	typeText(t, m, "agnet:qa-ito")
	press(t, m, "enter")
	// The next filter, spelled right, takes the notice away: it would
	// speak of a filter no longer there (the walk saw it stay).
	press(t, m, "/", "ctrl+u") // the field opens with the last filter
	typeText(t, m, "agent:qa-ito")
	press(t, m, "enter")
	if frame := screen(m); strings.Contains(frame, "is not a filter key") {
		t.Errorf("the notice about the mistyped filter stayed:\n%s", frame)
	}
	for _, text := range []string{"agent:qa-ito", "PERMISSION_DENIED", "12:30"} {
		if word, _ := unknownFilterKey(text); word != "" {
			t.Errorf("%q: %q taken for an unknown key", text, word)
		}
	}
}

// TestAuditResultWholeInAHalfScreen: in the two-column layout of a 120–150
// column terminal the Audit pane is 58–75 wide; the results on screen show
// whole there ("completed", "bad-params": the walks saw "comple…" and
// "bad-pa…"), and when they are short the detail gets the room.
func TestAuditResultWholeInAHalfScreen(t *testing.T) {
	p := newAuditPane(&env{})
	p.pages = [][]agent.AuditEntry{{
		{Seq: 2, Agent: "pm-tanaka", Method: "aoi.task.execute", Result: "INVALID_PARAMS", Detail: json.RawMessage(`{"error":"x"}`)},
		{Seq: 1, Agent: "pm-tanaka", Method: "task.finish", Result: "completed", Detail: json.RawMessage(`{"task_id":"t-1"}`)},
	}}
	p.fold()
	for _, w := range []int{58, 69, 75} {
		p.w = w
		cols := p.columnsFor(0, 2, false)
		for _, r := range []string{"bad-params ", "completed "} {
			if row := cols.row("", "12:00", "pm-tanaka", "aoi.task.execute", strings.TrimSpace(r), `{"task_id":"t-1"}`); !strings.Contains(row, r) {
				t.Errorf("%d columns: %q", w, row)
			}
		}
	}
	p.pages[0] = p.pages[0][1:] // only "completed" on screen: the column fits it
	p.fold()
	if cols := p.columnsFor(0, 1, false); cols.resultW != len("completed") {
		t.Errorf("result column %d wide for \"completed\"", cols.resultW)
	}
}

// TestClearKeysDoWhatHelpSays: help lists ctrl+x "clear" for dialogs and
// the prompt: it empties the filter dialog's field and the prompt bar, and
// esc in the Audit pane clears an active filter (the walk found neither).
func TestClearKeysDoWhatHelpSays(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "/")
	typeText(t, m, "agent:qa-ito")
	press(t, m, "enter")
	if m.audit.filterText != "agent:qa-ito" {
		t.Fatalf("filter = %q", m.audit.filterText)
	}
	press(t, m, "/", "ctrl+x", "enter") // the dialog opens with the filter typed
	if m.audit.filterText != "" || m.audit.n() != 40 {
		t.Errorf("ctrl+x then enter in the filter dialog left filter %q, %d rows", m.audit.filterText, m.audit.n())
	}
	press(t, m, "/")
	typeText(t, m, "agent:qa-ito")
	press(t, m, "enter")
	m.notice = notice{} // the keys line shows when no notice does
	if !strings.Contains(screen(m), "esc clear filter") {
		t.Errorf("the keys line does not say how to clear the filter:\n%s", screen(m))
	}
	press(t, m, "esc")
	if m.audit.filterText != "" || m.audit.n() != 40 {
		t.Errorf("esc in the Audit pane left filter %q, %d rows", m.audit.filterText, m.audit.n())
	}
	press(t, m, ":")
	typeText(t, m, "note half a thought")
	press(t, m, "ctrl+x")
	if v := m.prompt.input.Value(); v != ":" || m.focus != focusPrompt {
		t.Errorf("ctrl+x in the prompt bar left %q (focus %d); want the \":\" it opened with", v, m.focus)
	}
}
