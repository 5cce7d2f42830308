package tui

import (
	"encoding/json"
	"errors"
	"github.com/aoi-protocol/aoi/keymap"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/themes"
	"github.com/charmbracelet/x/ansi"
)

// What a day of use in a real terminal found: text a person must read was
// cut although the pane had room, answers and task output were shown as
// JSON, notices did not say which key acts or stayed after the thing they
// announced was decided. Each test fails without its fix.

const longAnswer = "Release is planned for Friday after QA sign-off; the long explanation goes on so that " +
	"two lines of a pane cannot hold it and the last words are MARKER-END."

// TestPreviewUsesTheRoomTheListLeaves: an answer longer than two lines is
// read whole under a short list instead of being cut after two lines.
func TestPreviewUsesTheRoomTheListLeaves(t *testing.T) {
	svc := fixtureService()
	data, _ := json.Marshal(map[string]any{"summary": longAnswer, "completed": true})
	svc.messages = append(svc.messages, agent.Message{Seq: 4, From: "pm-tanaka", Event: "query.completed", Data: data, ReceivedAt: fixedNow})
	m := newLoaded(t, svc, 120, 36, true)
	m.setFocus(focusMessages)
	frame := screen(m)
	if !strings.Contains(frame, "MARKER-END") {
		t.Errorf("the selected answer is cut although the pane has room:\n%s", frame)
	}
	checkFrame(t, frame, 120, 36)
}

// TestMessageDetailReadsAsText: enter on an answer shows its text, blockers
// and references, and on a task result the output's lines, not a JSON
// string with \n in it.
func TestMessageDetailReadsAsText(t *testing.T) {
	answer, _ := json.Marshal(map[string]any{"summary": "JWT done\nrefresh next", "blockers": []string{"Redis config"},
		"context_refs": []map[string]string{{"type": "commit", "ref": "1b6ee18", "summary": "tui: messages"}}, "completed": true})
	task, _ := json.Marshal(map[string]any{"task_id": "t-9", "status": "completed", "exit_code": 0, "duration_ms": 16,
		"output": map[string]int{"tests_run": 3, "tests_passed": 3}, "output_tail": "ok  pkg/a\nok  pkg/b\n"})
	body := messageDetail(agent.Message{Seq: 1, From: "pm-tanaka", Event: "query.completed", Data: answer}, nil, &env{now: fixedNow})
	for _, want := range []string{"JWT done\nrefresh next", "blocked by:\n  - Redis config", "based on:\n  commit 1b6ee18 tui: messages"} {
		if !strings.Contains(body, want) {
			t.Errorf("answer detail lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, `"summary"`) {
		t.Errorf("answer detail shows the JSON:\n%s", body)
	}
	body = messageDetail(agent.Message{Seq: 3, From: "eng-suzuki", Event: "task.completed", RelatedID: "task-req-1", Data: task}, nil, &env{now: fixedNow})
	if !strings.Contains(body, "about task request: task-req-1") || strings.Contains(body, "about query") {
		t.Errorf("a task result's detail names its request as a query:\n%s", body)
	}
	body = taskDetail(agent.Task{ID: "t-9", Type: "run_tests", State: "completed", Output: task}, &env{now: fixedNow})
	for _, want := range []string{"output:\nok  pkg/a\nok  pkg/b", "tests: 3 run, 3 passed, 0 failed, 0 skipped", "exit 0 · 16ms"} {
		if !strings.Contains(body, want) {
			t.Errorf("task detail lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, `\n`) {
		t.Errorf("task output shown with escaped newlines:\n%s", body)
	}
	// A rejected task's reason is its error field, said once, in the
	// owner's terms (the error is written for the requester).
	rejected, _ := json.Marshal(map[string]any{"task_id": "t-8", "status": "rejected", "error": "the owner rejected the request: not now",
		"summary": "run_tests rejected: not now"})
	body = taskDetail(agent.Task{ID: "t-8", Type: "run_tests", State: "rejected", Error: "the owner rejected the request: not now", Output: rejected}, &env{now: fixedNow})
	if n := strings.Count(body, "you rejected it: not now"); n != 1 || !strings.Contains(body, "run_tests rejected: not now") ||
		strings.Contains(body, "the owner rejected") {
		t.Errorf("rejected task detail says the reason %d times (want once, to the owner, with the summary):\n%s", n, body)
	}
	body = taskDetail(agent.Task{ID: "t-7", Type: "run_tests", State: "expired",
		Error: "the owner did not approve run_tests before 2026-12-02T10:00:00Z; ask again when they are around"}, &env{now: fixedNow})
	if !strings.Contains(body, "you did not approve it before it expired") || strings.Contains(body, "ask again") {
		t.Errorf("expired task detail is in the requester's words:\n%s", body)
	}
	// A payload with fields the text does not show keeps its JSON too.
	body = messageDetail(agent.Message{Seq: 2, From: "pm", Type: "task_assign", Data: json.RawMessage(`{"description":"do it","files":["a.go"]}`)}, nil, &env{now: fixedNow})
	if !strings.Contains(body, "do it") || !strings.Contains(body, `"files"`) {
		t.Errorf("a payload with other fields lost them:\n%s", body)
	}
	// Peer text stays sanitised in the readable form.
	body = payloadText(json.RawMessage(`{"summary":"a\u001b[2Jb","output_tail":"x\u001b]52;c;ZQ==\u0007y"}`))
	if strings.ContainsAny(body, "\x1b\a") {
		t.Errorf("control characters reached the detail: %q", body)
	}
}

// TestAuditPaneShowsTheSelectedDetail: in the wide layout the detail column
// is a few cells; the selected row's detail is read under the list.
func TestAuditPaneShowsTheSelectedDetail(t *testing.T) {
	m := newLoaded(t, fixtureService(), 120, 36, true)
	m.setFocus(focusAudit)
	frame := screen(m)
	if !strings.Contains(frame, `{"scope":["acme/webapp"], "n":40}`) || !strings.Contains(frame, "#40 · owner · acl.deny") {
		t.Errorf("the selected audit row's detail is not readable:\n%s", frame)
	}
	press(t, m, "down")
	if frame := screen(m); !strings.Contains(frame, `{"scope":["acme/webapp"], "n":39}`) {
		t.Errorf("the preview does not follow the selection:\n%s", frame)
	}
}

// TestApprovalNoticeNamesTheKeys: the notice of a new request says that y
// and n decide it (from any pane).
func TestApprovalNoticeNamesTheKeys(t *testing.T) {
	m := newLoaded(t, fixtureService(), 120, 36, true)
	m.Update(eventMsg{ev: agent.Event{Seq: 1, Kind: agent.EventApprovalRequested, ID: "a-9", Summary: "pm-tanaka wants to run lint"}})
	m.Update(eventMsg{ev: agent.Event{Seq: 2, Kind: agent.EventAttention, ID: "a-9", Summary: "pm-tanaka wants to run lint"}})
	if frame := screen(m); !strings.Contains(frame, "pm-tanaka wants to run lint — y approve · n reject") {
		t.Errorf("the notice does not name the keys:\n%s", frame)
	}
}

// TestTrustNoticeGoesOnceDecided: "a new peer asks to be trusted" names
// the keys, and goes once the request is decided (here trusted with the
// CLI), instead of staying five minutes.
func TestTrustNoticeGoesOnceDecided(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 36, true)
	fp := "SHA256:3f:a9:1c:77:0e:52:b4:d1:9a:20:6e:8f:c3:11"
	m.Update(eventMsg{ev: agent.Event{Seq: 1, Kind: agent.EventTrustRequested, ID: fp, Summary: "unpinned peer stranger wants to talk"}})
	m.Update(eventMsg{ev: agent.Event{Seq: 2, Kind: agent.EventAttention, ID: fp, Summary: "a new peer asks to be trusted"}})
	if frame := screen(m); !strings.Contains(frame, "a new peer asks to be trusted — t trust, x refuse in the Peers pane") {
		t.Fatalf("the trust notice does not name the keys:\n%s", frame)
	}
	pump(t, m, m.fetchCmds(dPeers)[0]) // still pending: the notice stays
	if !strings.Contains(screen(m), "asks to be trusted") {
		t.Fatal("the notice went while the request is still pending")
	}
	svc.mu.Lock()
	for i := range svc.peers {
		if svc.peers[i].Fingerprint == fp {
			svc.peers[i].Trust = agent.TrustPinned
		}
	}
	svc.mu.Unlock()
	pump(t, m, m.fetchCmds(dPeers)[0])
	if frame := screen(m); strings.Contains(frame, "asks to be trusted") {
		t.Errorf("the notice stays after the request was decided:\n%s", frame)
	}
}

// TestStatusBarKeepsCountsWhenNarrow: at 80 columns the counts and the
// peers online stay readable (the address and "focus off" give way).
func TestStatusBarKeepsCountsWhenNarrow(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	bar := lastLine(screen(m))
	for _, want := range []string{"approvals 2", "msgs 2", "2 online"} {
		if !strings.Contains(bar, want) {
			t.Errorf("status bar at 80 columns lacks %q: %q", want, bar)
		}
	}
	m.status.Focus = true
	if bar := lastLine(screen(m)); !strings.Contains(bar, "focus ON") {
		t.Errorf("focus ON must stay: %q", bar)
	}
	m = newLoaded(t, fixtureService(), 60, 20, true)
	if bar := lastLine(screen(m)); !strings.Contains(bar, "msgs 2") {
		t.Errorf("status bar at 60 columns lacks the unread count: %q", bar)
	}
	m = newLoaded(t, fixtureService(), 140, 36, true)
	if bar := lastLine(screen(m)); !strings.Contains(bar, "focus off") || !strings.Contains(bar, "127.0.0.1:8443") {
		t.Errorf("wide, everything is shown: %q", bar)
	}
}

func lastLine(s string) string { return s[strings.LastIndex(s, "\n")+1:] }

// TestReloadErrorReadableWhenLong: a refused config's reason (a JSON path
// and the fix) that does not fit the notice line opens in a dialog.
func TestReloadErrorReadableWhenLong(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	svc.failWith = errors.New("config not reloaded, the running one stays: config.json: /secretary/interrupt_control/auto_respond_threshold: 7 is more than 1 — use a value from 0 to 1")
	press(t, m, ":")
	typeText(t, m, "reload")
	press(t, m, "enter")
	frame := screen(m)
	if !strings.Contains(frame, "Config not reloaded") || !strings.Contains(frame, "a value from 0 to 1") {
		t.Errorf("the whole reason is not readable:\n%s", frame)
	}
	press(t, m, "esc")
	if m.topDialog() != nil {
		t.Error("esc did not close the dialog")
	}
}

// TestFilterDialogKeepsItsSyntax: the filter's syntax stays visible while
// a filter is edited (the placeholder goes with the first key), and enter
// says what it does.
func TestFilterDialogKeepsItsSyntax(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	press(t, m, "/")
	typeText(t, m, "qa")
	frame := screen(m)
	for _, want := range []string{"agent:NAME", "Empty shows every row", "enter apply"} {
		if !strings.Contains(frame, want) {
			t.Errorf("filter dialog lacks %q while typing:\n%s", want, frame)
		}
	}
}

// TestUnknownCommandFits: a mistyped command says so in a line that fits,
// and where to find the commands.
func TestUnknownCommandFits(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	press(t, m, ":")
	typeText(t, m, "frobnicate")
	press(t, m, "enter")
	if frame := screen(m); !strings.Contains(frame, "unknown command :frobnicate — :help lists the commands") {
		t.Errorf("the mistake is not readable:\n%s", frame)
	}
}

// TestLongErrorWraps: an error that does not fit one line (a peer's
// refusal with its reason) wraps onto up to three lines, the panes giving
// way, and the frame keeps its size; when it expires the panes get the
// lines back.
func TestLongErrorWraps(t *testing.T) {
	svc := fixtureService()
	svc.peers[2].TaskTypes = []string{"run_tests"} // qa-ito: as it last announced, so the request goes
	m := newLoaded(t, svc, 80, 24, true)
	svc.failWith = errors.New(`qa-ito answered: rpc error -32602 (Invalid params): task_type "run_tests" is not configured; it offers: lint, e2e`)
	press(t, m, ":")
	typeText(t, m, "task qa-ito run_tests")
	press(t, m, "enter")
	frame := screen(m)
	if !strings.Contains(frame, "it offers: lint, e2e") {
		t.Errorf("the end of the error is cut:\n%s", frame)
	}
	checkFrame(t, frame, 80, 24)
	if !strings.HasPrefix(lastLine(frame), " eng-suzuki") {
		t.Errorf("the status bar is not the last line: %q", lastLine(frame))
	}
	m.notice.until = fixedNow.Add(-time.Second)
	m.opts.Now = func() time.Time { return fixedNow.Add(time.Minute) }
	m.Update(tickMsg{})
	frame = screen(m)
	if strings.Contains(frame, "lint, e2e") || m.layout.height != 24-chromeLines {
		t.Errorf("the expired error still takes lines (layout height %d):\n%s", m.layout.height, frame)
	}
	checkFrame(t, frame, 80, 24)
}

// TestNewMessageShownWhenReadingTheTop: with the newest message selected,
// one that arrives is selected (its text shown under the list); with an
// older one selected, the selection stays where the owner put it.
func TestNewMessageShownWhenReadingTheTop(t *testing.T) {
	p := newMessagesPane(&env{now: fixedNow})
	p.SetSize(60, 20)
	p.add([]agent.Message{{Seq: 1, From: "a"}, {Seq: 2, From: "b"}})
	p.add([]agent.Message{{Seq: 3, From: "c"}})
	if got := p.rows[p.list.cursor].Seq; got != 3 {
		t.Errorf("selected seq %d after a new message while at the top; want the new one", got)
	}
	p.list.cursor = 2 // seq 1
	p.add([]agent.Message{{Seq: 4, From: "d"}})
	if got := p.rows[p.list.cursor].Seq; got != 1 {
		t.Errorf("selected seq %d; the owner's selection (seq 1) must stay", got)
	}
}

// TestFailuresSayWhatFailed: a prompt command that fails says what was
// tried ("answering pm-tanaka's question “…” failed: …"), not its success
// wording ("answer sent for … failed"); discovery says what it found.
func TestFailuresSayWhatFailed(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 36, true)
	press(t, m, ":")
	typeText(t, m, "discover")
	press(t, m, "enter")
	if frame := screen(m); !strings.Contains(frame, "discovery done: 3 peers, 2 online") {
		t.Errorf("discovery does not say what it found:\n%s", frame)
	}
	svc.failWith = errors.New("query q-7 was already answered")
	for _, c := range []struct{ line, want string }{
		{"answer q-7 again", "answering pm-tanaka's question “auth progress and blockers?” failed: query q-7 was already answered"},
		{"decline q-7 busy", "declining pm-tanaka's question “auth progress and blockers?” failed:"},
		{"release q-7", "sending the draft to pm-tanaka's question “auth progress and blockers?” failed:"},
		{"note remember this", "saving the note failed:"},
		{"focus on", "turning focus mode on failed:"},
	} {
		press(t, m, ":")
		typeText(t, m, c.line)
		press(t, m, "enter")
		if frame := screen(m); !strings.Contains(frame, c.want) {
			t.Errorf(":%s: the failure does not say %q:\n%s", c.line, c.want, frame)
		}
	}
}

// quits reports whether cmd, or a command it batches, quits the program.
func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		switch msg := msg.(type) {
		case tea.QuitMsg:
			return true
		case tea.BatchMsg:
			for _, c := range msg {
				if quits(c) {
					return true
				}
			}
		}
	case <-time.After(100 * time.Millisecond): // a blink or a tick
	}
	return false
}

// TestCtrlCCancelsADialog: ctrl+c in a dialog cancels it like esc (an
// answer being typed is not taken down with the whole interface); on the
// panes it still quits.
func TestCtrlCCancelsADialog(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "e") // answer q-7
	typeText(t, m, "half an answer")
	_, cmd := m.Update(keyMsg("ctrl+c"))
	if quits(cmd) {
		t.Fatal("ctrl+c in the answer dialog quit aoi")
	}
	if len(m.dialogs) != 0 || len(svc.Calls()) != 0 {
		t.Errorf("ctrl+c must cancel the dialog and send nothing: dialogs %d, calls %v", len(m.dialogs), svc.Calls())
	}
	press(t, m, "shift+tab", "x") // refuse the trust request: asks first
	_, cmd = m.Update(keyMsg("ctrl+c"))
	if quits(cmd) || len(m.dialogs) != 0 || !strings.Contains(screen(m), "cancelled: Refuse") {
		t.Errorf("ctrl+c in the confirmation must cancel it as esc does:\n%s", screen(m))
	}
	if _, cmd = m.Update(keyMsg("ctrl+c")); !quits(cmd) {
		t.Error("ctrl+c on the panes no longer quits")
	}
}

// TestTrustKeysFindTheRequest: the notice of a trust request names t and
// x "in the Peers pane"; they act on the request wherever the selection
// is, selecting it, and say so when no request is waiting.
func TestTrustKeysFindTheRequest(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 36, true)
	press(t, m, "shift+tab", "down", "down") // on a pinned peer
	press(t, m, "t")
	if d, ok := m.topDialog().(*trustDialog); !ok || d.p.AgentID != "stranger" {
		t.Fatalf("t on a pinned peer opened %T; want the trust dialog for the waiting request", m.topDialog())
	}
	if r, _ := m.peers.selected(); r.AgentID != "stranger" {
		t.Errorf("the request acted on is not selected (%s is)", r.AgentID)
	}
	press(t, m, "esc", "down", "x")
	if _, ok := m.topDialog().(*confirmDialog); !ok {
		t.Fatalf("x on a pinned peer opened %T; want the refusal to confirm", m.topDialog())
	}
	press(t, m, "y")
	press(t, m, "t")
	if m.topDialog() != nil || !strings.Contains(screen(m), "no trust request is waiting") {
		t.Errorf("t with no request waiting must say so:\n%s", screen(m))
	}
}

// TestActionFailureNotHiddenByRefetch: with the core gone, an action's
// failure stays on the notice line; the refetch after it fails too, but
// "cannot load status" says less than what the owner tried and why.
func TestActionFailureNotHiddenByRefetch(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 36, true)
	gone := errors.New("no aoi is running for this data directory; start it with `aoi serve`")
	svc.failWith, svc.loadErr = gone, gone
	press(t, m, ":")
	typeText(t, m, "focus off")
	press(t, m, "enter") // the refetch of the status runs here too
	frame := screen(m)
	if !strings.Contains(frame, "turning focus mode off failed: no aoi is running") || strings.Contains(frame, "cannot load status") {
		t.Errorf("the action's failure is not what the notice line says:\n%s", frame)
	}
	m.notice.until = fixedNow.Add(-time.Second) // read and gone
	pump(t, m, m.fetchCmds(dStatus)[0])
	if !strings.Contains(screen(m), "cannot load status") {
		t.Errorf("a failed load is not shown once the action's failure has gone:\n%s", screen(m))
	}
}

// TestPendingPeerWithoutEndpoint: a trust request from a caller that did
// not say where it listens shows where it called from and that the
// endpoint is not known, never the outgoing address as the endpoint.
func TestPendingPeerWithoutEndpoint(t *testing.T) {
	p := agent.Peer{AgentID: "pm-sato", Fingerprint: strings.Repeat("ab", 32), Source: "100.64.0.7:51234",
		Trust: agent.TrustPending, Status: agent.PeerOffline}
	body := peerDetail(p, &env{now: fixedNow, keys: keymap.Default()})
	// Not "offline" (the walk's request had just called): what it wants
	// and the keys that answer it.
	for _, want := range []string{"endpoint: not announced", "calls from: 100.64.0.7:51234", "fingerprint: abababab abababab abababab",
		"status: asks to be trusted: close this, then t trusts it", "x refuses it"} {
		if !strings.Contains(body, want) {
			t.Errorf("pending peer detail lacks %q:\n%s", want, body)
		}
	}
	p.Trust, p.Source = agent.TrustPinned, ""
	if body := peerDetail(p, &env{now: fixedNow, keys: keymap.Default()}); strings.Contains(body, "endpoint") {
		t.Errorf("a pinned peer with no endpoint yet is said to have not announced one:\n%s", body)
	}
}

// TestCoreGoneAdviceFitsTheInterface: when the core stops under the
// interface, the error says to start it again, not to run the interface.
func TestCoreGoneAdviceFitsTheInterface(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte("{}"), 0o600); err != nil { // what aoi init writes
		t.Fatal(err)
	}
	whole, _ := failText("answering", &ctlclient.NoDaemonError{DataDir: dir, Socket: filepath.Join(dir, "aoi.sock")})
	if !strings.Contains(whole, "start it again with `aoi serve --data-dir "+dir+"`") || strings.Contains(whole, "for the interface") {
		t.Errorf("error reads %q", whole)
	}
}

// TestPreviewCutAddsNoSpaces: a preview too long for its lines ends with
// "…" on the text as written, without a space at each line break.
func TestPreviewCutAddsNoSpaces(t *testing.T) {
	p := &paneBase{env: &env{}, previewed: true}
	p.w, p.h = 20, 9
	text := "「認証」の記録が3件（acme/webapp、最新はたった今）です。続きがさらにあります。もっと長い文章。"
	list := []string{"row", "row", "row", "row", "row", "row"}
	lines := p.preview(list, "q", text)[len(list)+1:] // below the rule
	last := lines[len(lines)-1]
	if len(lines) < 2 || !strings.HasSuffix(last, "…") {
		t.Errorf("the last preview line %q does not say more follows", last)
	}
	for _, l := range lines {
		if strings.Contains(l, " ") {
			t.Errorf("preview line %q has a space the text does not", l)
		}
	}
}

// TestApproveKeyWaitsForANewArrival: a request that becomes y's target as
// the owner presses it (a peer sending requests to race the key) is named
// first; the next y approves it.
func TestApproveKeyWaitsForANewArrival(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 36, true)
	svc.mu.Lock()
	svc.approvals = append(svc.approvals, agent.Approval{ID: "a-9", TaskID: "t-9", Requester: "mallory", TaskType: "catfile",
		State: agent.TaskPending, Params: map[string]string{"pkg": "secrets/plan.txt"}, ExpiresAt: fixedNow.Add(time.Minute)})
	svc.mu.Unlock()
	m.Update(eventMsg{ev: agent.Event{Seq: 1, Kind: agent.EventApprovalRequested, ID: "a-9", Summary: "mallory wants to run catfile"}})
	pump(t, m, m.fetchCmds(dApprovals)[0])
	press(t, m, "y")
	if calls := svc.Calls(); len(calls) != 0 {
		t.Fatalf("y approved a request that arrived as it was pressed: %v", calls)
	}
	if !strings.Contains(m.notice.text, "next request: catfile from mallory") {
		t.Fatalf("notice %q does not name the new request", m.notice.text)
	}
	press(t, m, "y")
	pump(t, m, func() tea.Msg { return flushMsg{} })
	if calls := svc.Calls(); !reflect.DeepEqual(calls, []string{"approve a-9"}) {
		t.Fatalf("the second y: calls = %v, want approve a-9", calls)
	}
}

// TestRowsAboveTheWindowAreNamed: a list scrolled down (or left so by a
// resize) says in its title how many rows are above the window.
func TestRowsAboveTheWindowAreNamed(t *testing.T) {
	m := newLoaded(t, bigService(200, 0), 80, 24, true)
	m.setFocus(focusAudit)
	press(t, m, "end")
	if title := m.audit.Title(); !strings.Contains(title, "above") {
		t.Fatalf("the title %q does not say rows are above the window", title)
	}
	press(t, m, "home")
	if title := m.audit.Title(); strings.Contains(title, "above") {
		t.Fatalf("at the top the title still says %q", title)
	}
}

// TestQueryDetailSaysTheDecisionInWords: a question's detail says what the
// secretary did, not its protocol constant.
func TestQueryDetailSaysTheDecisionInWords(t *testing.T) {
	body := queryDetail(agent.Query{ID: "q-1", From: "pm-tanaka", Text: "font?", State: agent.QueryBuffered, Decision: "BUFFER"}, &env{now: fixedNow})
	if !strings.Contains(body, "secretary: held until your focus time ends") || strings.Contains(body, "BUFFER") {
		t.Errorf("query detail:\n%s", body)
	}
}

// TestRejectedTaskIsNotAFailure: a task the owner rejected (or let expire)
// reaches the asker as task.failed on the wire; the Messages pane names
// it for what happened, in words (the walk read "query.completed").
func TestRejectedTaskIsNotAFailure(t *testing.T) {
	for status, want := range map[string]string{"rejected": "task rejected", "expired": "task expired", "canceled": "task canceled", "failed": "task failed"} {
		data, _ := json.Marshal(map[string]any{"task_id": "t-1", "status": status})
		if got := messageKind(agent.Message{Event: "task.failed", Data: data}); got != want {
			t.Errorf("status %s shown as %q, want %q", status, got, want)
		}
	}
}

// TestMessageRowsLeadWithTheirOwnWords: a message row starts with what the
// message says (rows answering similar questions began alike), and a
// high-priority one is marked "!" as in Queries.
func TestMessageRowsLeadWithTheirOwnWords(t *testing.T) {
	p := newMessagesPane(&env{now: fixedNow, styles: themes.NewStyles(themes.Plain(), true)})
	p.SetSize(100, 10)
	data, _ := json.Marshal(map[string]any{"summary": "QA signs off Friday"})
	p.rows = []agent.Message{{Seq: 1, From: "pm-tanaka", Event: "query.completed", RelatedID: "q-1", Question: "when is the release?",
		Data: data, Priority: "high", ReceivedAt: fixedNow}}
	view := ansi.Strip(p.View())
	if !strings.Contains(view, "QA signs off Friday · re “when is the release?”") {
		t.Errorf("the row does not lead with the answer:\n%s", view)
	}
	if !strings.Contains(view, "! pm-tanaka") {
		t.Errorf("a high-priority message is not marked:\n%s", view)
	}
}

// TestErrorsAdviseThePromptCommands: advice in the core's errors is
// written as the prompt bar takes it; advice about the other machine
// stays as it is.
func TestErrorsAdviseThePromptCommands(t *testing.T) {
	whole, _ := failText("asking qa", errors.New("qa is not a known peer; pin it with `aoi peers trust qa FINGERPRINT --endpoint HOST:PORT` or run `aoi discover`"))
	if !strings.Contains(whole, "pin it with `:trust qa FINGERPRINT HOST:PORT` or run `:discover`") {
		t.Errorf("advice not for the prompt: %q", whole)
	}
	whole, _ = failText("asking qa", errors.New("qa does not trust your certificate yet: its owner runs `aoi peers trust`"))
	if !strings.Contains(whole, "its owner runs `aoi peers trust`") {
		t.Errorf("advice for the other machine rewritten: %q", whole)
	}
}

// TestExpiredApprovalIsAnnounced: a request nobody decided in time is
// said to have expired, not just gone from the pane.
func TestExpiredApprovalIsAnnounced(t *testing.T) {
	m := newLoaded(t, fixtureService(), 120, 36, true)
	m.Update(eventMsg{ev: agent.Event{Seq: 1, Kind: agent.EventApprovalExpired, ID: "a-3", Summary: "lint from eng-佐藤 expired"}})
	if !strings.Contains(m.notice.text, "lint from eng-佐藤 expired unanswered; the requester was told") {
		t.Errorf("notice %q", m.notice.text)
	}
}

// TestAnswerDialogSeesAnAnswerFromElsewhere: a question answered with the
// CLI while its answer dialog is open says so in the dialog's head.
func TestAnswerDialogSeesAnAnswerFromElsewhere(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 100, 30, true)
	press(t, m, "enter") // q-7, escalated
	if _, ok := m.topDialog().(*answerDialog); !ok {
		t.Fatalf("enter opened %T", m.topDialog())
	}
	svc.mu.Lock()
	for i := range svc.queries {
		if svc.queries[i].ID == "q-7" {
			svc.queries[i].State = agent.QueryAnswered
		}
	}
	svc.mu.Unlock()
	for _, cmd := range m.fetchCmds(dQueries) {
		pump(t, m, cmd)
	}
	if frame := screen(m); !strings.Contains(frame, "already answered (elsewhere, meanwhile)") {
		t.Errorf("the dialog does not say the question was answered:\n%s", frame)
	}
}

// TestApproveKeyWaitsAfterACancelledRequest: a peer that cancels its own
// request and sends another in its place (so the one shown no longer
// waits) still gets the new one named first; moving the cursor onto a
// row is choosing it, and y then acts at once.
func TestApproveKeyWaitsAfterACancelledRequest(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 36, true)
	svc.mu.Lock()
	svc.approvals = []agent.Approval{{ID: "a-9", TaskID: "t-9", Requester: "mallory", TaskType: "catfile",
		State: agent.TaskPending, ExpiresAt: fixedNow.Add(time.Minute)}}
	svc.mu.Unlock()
	pump(t, m, m.fetchCmds(dApprovals)[0])
	press(t, m, "y")
	if calls := svc.Calls(); len(calls) != 0 {
		t.Fatalf("y approved the request that replaced a cancelled one: %v", calls)
	}
	m.approvals.newTarget = "a-9" // arrived again: the owner goes to it instead
	press(t, m, "tab", "tab", "home", "y")
	pump(t, m, func() tea.Msg { return flushMsg{} })
	if calls := svc.Calls(); !reflect.DeepEqual(calls, []string{"approve a-9"}) {
		t.Fatalf("calls = %v, want a-9 approved once the owner selected it", calls)
	}
}

// TestARefusingPeerIsNotCountedOnline: a peer that answers but refuses
// us cannot be asked anything, so the Peers title does not count it online.
func TestARefusingPeerIsNotCountedOnline(t *testing.T) {
	p := newPeersPane(&env{now: fixedNow})
	p.rows = []agent.Peer{{AgentID: "eng-suzuki", Status: agent.PeerOnline, Trust: agent.TrustPinned, RefusesUs: true},
		{AgentID: "qa-ito", Status: agent.PeerOnline, Trust: agent.TrustPinned}}
	if got := p.onlineCount(); got != "1/2 online" {
		t.Errorf("online count %q, want 1/2 online", got)
	}
}

// TestReleaseAloneNeverPicksTheOnlyQuestion: `:release` with no id means
// every buffered question; with none buffered it says so, even when one
// escalated question would match an empty id prefix (the walk saw it
// answered with its draft).
func TestReleaseAloneNeverPicksTheOnlyQuestion(t *testing.T) {
	svc := fixtureService()
	svc.queries = []agent.Query{{ID: "q-urgent", From: "pm-tanaka", Text: "is prod login broken?", State: agent.QueryEscalated, ReceivedAt: fixedNow}}
	m := newLoaded(t, svc, 100, 30, true)
	press(t, m, ":")
	typeText(t, m, "release")
	press(t, m, "enter")
	if calls := svc.Calls(); len(calls) != 0 || !strings.Contains(m.notice.text, "nothing buffered to release") {
		t.Fatalf("calls %v, notice %q", calls, m.notice.text)
	}
}

// TestInputPaddingGoesWhateverItsCodes: the input's padding is cut before
// the list of candidates whether it is styled, plain, or wrapped in other
// codes (a real terminal's differ from the test's), and the cursor stays.
func TestInputPaddingGoesWhateverItsCodes(t *testing.T) {
	cursor := "\x1b[7m \x1b[m"
	for line, want := range map[string]string{
		"› :answer q-01" + cursor + "\x1b[38;5;7m      \x1b[m":    "› :answer q-01" + cursor + "\x1b[38;5;7m\x1b[m",
		"› :answer q-01" + cursor + "      ":                      "› :answer q-01" + cursor,
		"› :answer q-01" + cursor + "\x1b[0m      \x1b[0m\x1b[0m": "› :answer q-01" + cursor + "\x1b[0m\x1b[0m\x1b[0m",
	} {
		if got := trimPadding(line); got != want {
			t.Errorf("%q → %q, want %q", line, got, want)
		}
	}
}

// TestCandidatesOutliveACursorBlink: the list of candidates tab shows
// stays until the owner types: in a real terminal the cursor's blink
// messages reach the input at once, and cleared the list before it drew.
func TestCandidatesOutliveACursorBlink(t *testing.T) {
	m := newLoaded(t, fixtureService(), 120, 36, true)
	press(t, m, ":")
	typeText(t, m, "re")
	press(t, m, "tab")
	if m.prompt.choices == "" {
		t.Fatal("tab listed no candidates for :re")
	}
	type blink struct{}
	m.Update(blink{})
	if !strings.Contains(screen(m), "3 match: release · reload · reply") {
		t.Errorf("the candidates went with a non-key message:\n%s", screen(m))
	}
	press(t, m, "l")
	if m.prompt.choices != "" {
		t.Error("typing did not clear the candidates")
	}
}

// TestReloadDialogShowsNoRPCCode: the dialog a long reload refusal opens
// reads like the notice: no JSON-RPC code in front of the reason.
func TestReloadDialogShowsNoRPCCode(t *testing.T) {
	m := newLoaded(t, fixtureService(), 80, 24, true)
	long := "rpc error -32000 (Server error): config not reloaded, the running one stays: /ui/theme: \"neon\" is not valid — expected: auto, dark, light, high-contrast, or the path of a theme file ending in .json"
	m.handleReloaded(reloadedMsg{err: errors.New(long)})
	d, ok := m.topDialog().(*detailDialog)
	if !ok {
		t.Fatalf("a long refusal opened %T", m.topDialog())
	}
	if strings.Contains(d.body, "-32000") || !strings.Contains(d.body, "The running config stays. Fix this, then :reload:\n/ui/theme: \"neon\"") {
		t.Errorf("dialog body %q", d.body)
	}
	// Several problems: one a line, as aoi config validate prints them.
	m.popDialog()
	two := "rpc error -32000 (Server error): config not reloaded, the running one stays: config.json: /limits/rate_per_sec: -1 must be more than 0 — use a larger number\nconfig.json: /ui/theme: \"blue\" is not valid"
	m.handleReloaded(reloadedMsg{err: errors.New(two)})
	d, ok = m.topDialog().(*detailDialog)
	if !ok || !strings.Contains(d.body, "use a larger number\nconfig.json: /ui/theme") {
		t.Errorf("two problems in the dialog: %T %q", m.topDialog(), d.body)
	}
}

// TestInterruptsPreviewShowsTheDraft: the preview under Interrupts shows
// the draft that r would send, not only the question; a draft that found
// no work is shown as what it is, which r does not send.
func TestInterruptsPreviewShowsTheDraft(t *testing.T) {
	progress := 40
	found, _ := json.Marshal(map[string]any{"summary": "Redis config is 40% done.", "progress": progress})
	nothing, _ := json.Marshal(map[string]any{"summary": "No recorded work matches redis config."})
	for draft, want := range map[string]string{
		string(found):   "draft (what releasing sends): Redis config is 40% done.",
		string(nothing): "the secretary found no work (answer or decline it): No recorded work matches redis config.",
	} {
		p := newInterruptsPane(&env{now: fixedNow, styles: themes.NewStyles(themes.Plain(), true)})
		p.SetSize(120, 12)
		p.setQueries([]agent.Query{{ID: "q-1", From: "pm-tanaka", Text: "redis config?", State: agent.QueryBuffered,
			Priority: "low", Draft: json.RawMessage(draft), Confidence: 0.7, ReceivedAt: fixedNow}})
		if view := ansi.Strip(p.View()); !strings.Contains(view, want) {
			t.Errorf("the Interrupts preview lacks %q:\n%s", want, view)
		}
	}
}

// TestNoticeNamesNoKeysUnderADialog: with a dialog open (its y confirms
// it), the notice of a new request does not offer y approve.
func TestNoticeNamesNoKeysUnderADialog(t *testing.T) {
	m := newLoaded(t, fixtureService(), 120, 36, true)
	m.runAction(releaseAction{}) // the "release every buffered question" confirmation
	if _, ok := m.topDialog().(*confirmDialog); !ok {
		t.Fatalf("no confirmation open: %T", m.topDialog())
	}
	m.Update(eventMsg{ev: agent.Event{Seq: 1, Kind: agent.EventApprovalRequested, ID: "a-9", Summary: "pm-tanaka wants to run lint"}})
	m.Update(eventMsg{ev: agent.Event{Seq: 2, Kind: agent.EventAttention, ID: "a-9", Summary: "pm-tanaka wants to run lint"}})
	if strings.Contains(m.notice.text, "approve") {
		t.Errorf("the notice offers keys the dialog owns: %q", m.notice.text)
	}
}

// TestApproveKeyNeverActsOnARequestNoNoticeNamed: the daily-use walk had
// one request waiting, a second arrive (its notice naming it with y), the
// second cancelled by its requester; 2.5 s later, with the stale notice
// still on screen, y approved the first, which nothing had named. The
// notice now goes with its request, and y names the first before acting.
func TestApproveKeyNeverActsOnARequestNoNoticeNamed(t *testing.T) {
	m, svc, now := clockedModel(t)
	first := agent.Approval{ID: "a-1", TaskID: "t-1", Requester: "pm-tanaka", TaskType: "run_tests",
		Params: map[string]string{"suite": "./auth/..."}, State: agent.TaskPending, CreatedAt: *now, ExpiresAt: now.Add(time.Hour)}
	second := first
	second.ID, second.TaskID, second.Params, second.CreatedAt = "a-2", "t-2", map[string]string{"suite": "./..."}, now.Add(time.Second)
	load := func(list ...agent.Approval) { loadApprovals(t, m, svc, list...) }
	load(first)
	arrive := func(a agent.Approval) {
		m.Update(eventMsg{ev: agent.Event{Kind: agent.EventApprovalRequested, ID: a.ID}})
		m.Update(eventMsg{ev: agent.Event{Kind: agent.EventAttention, ID: a.ID, Summary: "pm-tanaka wants to run run_tests suite=" + a.Params["suite"]}})
	}
	arrive(second)
	load(first, second)
	if !strings.Contains(m.notice.text, "suite=./... — y approve") {
		t.Fatalf("the arrival's notice = %q", m.notice.text)
	}
	*now = now.Add(2500 * time.Millisecond)
	load(first) // the requester cancelled a-2
	if strings.Contains(m.notice.text, "suite=./...") {
		t.Fatalf("the notice still names the cancelled request: %q", m.notice.text)
	}
	*now = now.Add(2500 * time.Millisecond)
	press(t, m, "y")
	if calls := svc.Calls(); len(calls) != 0 || !strings.Contains(m.notice.text, "next request: run_tests from pm-tanaka (suite=./auth/...)") {
		t.Fatalf("y with no notice naming a-1: calls %v, notice %q", calls, m.notice.text)
	}
	press(t, m, "y")
	if calls := svc.Calls(); !reflect.DeepEqual(calls, []string{"approve a-1"}) {
		t.Fatalf("calls = %v, want a-1 approved once named", calls)
	}
}

// TestCoreAdviceIsWrittenForThePrompt: advice the core writes for a shell
// reads, in the interface, as the prompt bar and keys take it (the walk
// was told to pass --endpoint to :trust, which takes it positionally).
func TestCoreAdviceIsWrittenForThePrompt(t *testing.T) {
	for in, want := range map[string]string{
		`trust: endpoint "x" is not HOST:PORT; give where the peer listens, e.g. --endpoint 127.0.0.1:8443 (the address`:            "e.g. 127.0.0.1:8443 after the fingerprint",
		"fingerprint ab is already pinned for qa-sato; stop trusting qa-sato first (aoi peers refuse qa-sato), then pin it for bob": "(x on it in the Peers pane, or aoi peers refuse qa-sato)",
		"bob is not a known peer; pin it with `aoi peers trust bob FINGERPRINT --endpoint HOST:PORT` or run `aoi discover`":         "pin it with `:trust bob FINGERPRINT HOST:PORT` or run `:discover`",
	} {
		if got := promptAdvice(in); !strings.Contains(got, want) {
			t.Errorf("promptAdvice(%q) = %q; want it to hold %q", in, got, want)
		}
	}
}

// TestApproveKeyActsOnlyOnWhatIsOnScreen: the walk re-check approved a
// request it never saw with y while the window was too small, and with y
// after another notice had taken the request's place; the 2 s guard ran
// on the interface's 1 s tick, so 1.4 s could pass as 2. Now y does
// nothing under the size notice, names a request no notice shows, and
// times the guard with the real clock.
func TestApproveKeyActsOnlyOnWhatIsOnScreen(t *testing.T) {
	m, svc, now := clockedModel(t)
	a := agent.Approval{ID: "a-1", TaskID: "t-1", Requester: "pm-tanaka", TaskType: "run_tests",
		Params: map[string]string{"suite": "./hidden/..."}, State: agent.TaskPending, CreatedAt: *now, ExpiresAt: now.Add(time.Hour)}
	loadApprovals(t, m, svc) // the first load: nothing waits
	arrive := func() {
		m.Update(eventMsg{ev: agent.Event{Kind: agent.EventApprovalRequested, ID: a.ID}})
		loadApprovals(t, m, svc, a)
		m.Update(eventMsg{ev: agent.Event{Kind: agent.EventAttention, ID: a.ID, Summary: "pm-tanaka wants to run run_tests suite=./hidden/..."}})
	}
	m.Update(tea.WindowSizeMsg{Width: 50, Height: 15})
	arrive()
	*now = now.Add(3 * time.Second)
	press(t, m, "y")
	if calls := svc.Calls(); len(calls) != 0 {
		t.Fatalf("y under the size notice: %v", calls)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 36})
	// Another notice took the request's place: y names it first.
	m.Update(eventMsg{ev: agent.Event{Kind: agent.EventAttention, ID: "q-9", Summary: "question from pm-tanaka: “billing PR?”"}})
	press(t, m, "y")
	if calls := svc.Calls(); len(calls) != 0 || !strings.Contains(m.notice.text, "next request: run_tests from pm-tanaka (suite=./hidden/...)") {
		t.Fatalf("y after another notice: calls %v, notice %q", calls, m.notice.text)
	}
	// The guard's 2 s are real seconds, whatever the interface's tick.
	m.approvals.newTarget, m.approvals.newTargetAt = a.ID, *now
	*now = now.Add(1400 * time.Millisecond)
	press(t, m, "y")
	if calls := svc.Calls(); len(calls) != 0 {
		t.Fatalf("y 1.4 s after the target changed: %v", calls)
	}
	press(t, m, "y")
	if calls := svc.Calls(); !reflect.DeepEqual(calls, []string{"approve a-1"}) {
		t.Fatalf("calls = %v, want a-1 approved once named", calls)
	}
}

// clockedModel is a loaded 120×36 interface on a clock the test moves.
func clockedModel(t *testing.T) (*Model, *testService, *time.Time) {
	t.Helper()
	now := fixedNow
	svc := fixtureService()
	m := New(svc, Options{Now: func() time.Time { return now }, Location: time.UTC})
	m.subscribed = true
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 36})
	return m, svc, &now
}

// loadApprovals makes list what waits and lets the interface load it.
func loadApprovals(t *testing.T, m *Model, svc *testService, list ...agent.Approval) {
	t.Helper()
	svc.mu.Lock()
	svc.approvals = list
	svc.mu.Unlock()
	pump(t, m, m.fetchCmds(dApprovals)[0])
}

// TestTabsToCountsThePresses: the notice's way to Approvals is the
// presses it takes (the walk's "tab to Approvals" took two, or four).
func TestTabsToCountsThePresses(t *testing.T) {
	for _, c := range []struct {
		from focus
		want string
	}{{focusQueries, "tab tab"}, {focusInterrupts, "tab"}, {focusMessages, "shift+tab shift+tab"}, {focusPeers, "tab tab tab"}, {focusAudit, "shift+tab"}} {
		if got := tabsTo(c.from, focusApprovals); got != c.want {
			t.Errorf("tabsTo(%d) = %q, want %q", c.from, got, c.want)
		}
	}
}

// TestDialogTakesTheNoticesKeys: a notice naming y or t for a request
// goes when a dialog opens over it (the walk read "y again approves it"
// above a reject dialog whose field y types into).
func TestDialogTakesTheNoticesKeys(t *testing.T) {
	m, svc, now := clockedModel(t)
	a := agent.Approval{ID: "a-1", TaskID: "t-1", Requester: "pm-tanaka", TaskType: "run_tests", State: agent.TaskPending, CreatedAt: *now, ExpiresAt: now.Add(time.Hour)}
	loadApprovals(t, m, svc, a)
	press(t, m, "y") // names it
	if !strings.Contains(m.notice.text, "y again approves it") {
		t.Fatalf("notice %q", m.notice.text)
	}
	press(t, m, "n") // the reject dialog
	if m.topDialog() == nil || strings.Contains(m.notice.text, "approves it") {
		t.Errorf("under the reject dialog: dialog %T, notice %q", m.topDialog(), m.notice.text)
	}
}

// TestFinishedTaskPreviewSaysHowItEnded: the walk's completed task showed
// only its params under the list; the result needed enter. Its summary
// line now follows the params; a rejected one's reason still does.
func TestFinishedTaskPreviewSaysHowItEnded(t *testing.T) {
	p := newApprovalsPane(&env{now: fixedNow})
	p.setTasks([]agent.Task{
		{ID: "t-1", Requester: "pm-tanaka", Type: "run_tests", State: agent.TaskCompleted, Params: map[string]string{"suite": "./auth/..."},
			Output: json.RawMessage(`{"task_id":"t-1","status":"completed","summary":"run_tests completed: 2 run, 2 passed, 0 failed"}`)},
		{ID: "t-2", Requester: "pm-tanaka", Type: "run_tests", State: agent.TaskRejected, Error: "the owner rejected the request: not now",
			Output: json.RawMessage(`{"summary":"run_tests rejected: not now"}`)},
	})
	if _, text := p.previewOf(0); !strings.Contains(text, "suite=./auth/... · run_tests completed: 2 run, 2 passed, 0 failed") {
		t.Errorf("completed task preview = %q", text)
	}
	if _, text := p.previewOf(1); !strings.Contains(text, "you rejected it: not now") || strings.Contains(text, "run_tests rejected") {
		t.Errorf("rejected task preview = %q", text)
	}
}

// TestApproveKeyKeepsToTheRequestNamed: the walk pressed y, read "next
// request: … (suite=./auth/...) · y again approves it", and a second
// request arrived before the next y, which then named the newer one. The
// request the notice names is what y approves.
func TestApproveKeyKeepsToTheRequestNamed(t *testing.T) {
	m, svc, now := clockedModel(t)
	first := agent.Approval{ID: "a-1", TaskID: "t-1", Requester: "pm-tanaka", TaskType: "run_tests",
		Params: map[string]string{"suite": "./auth/..."}, State: agent.TaskPending, CreatedAt: *now, ExpiresAt: now.Add(time.Hour)}
	second := first
	second.ID, second.TaskID, second.Params, second.CreatedAt = "a-2", "t-2", map[string]string{"suite": "./ui/..."}, now.Add(time.Second)
	loadApprovals(t, m, svc, first)
	*now = now.Add(5 * time.Second)
	press(t, m, "y")
	if !strings.Contains(m.notice.text, "next request: run_tests from pm-tanaka (suite=./auth/...)") {
		t.Fatalf("the first y: notice %q", m.notice.text)
	}
	m.Update(eventMsg{ev: agent.Event{Kind: agent.EventApprovalRequested, ID: second.ID}})
	loadApprovals(t, m, svc, first, second) // arrives quietly: no attention event
	*now = now.Add(time.Second)
	press(t, m, "y")
	if calls := svc.Calls(); !reflect.DeepEqual(calls, []string{"approve a-1"}) {
		t.Fatalf("calls = %v, notice %q; want a-1, the request the notice named, approved", calls, m.notice.text)
	}
}

// TestTaskPreviewSaysWhen: a narrow Approvals pane has no WHEN column,
// and the walk's failed run_tests rows read alike; the preview under the
// list says when each last changed.
func TestTaskPreviewSaysWhen(t *testing.T) {
	p := newApprovalsPane(&env{now: fixedNow})
	p.setTasks([]agent.Task{{ID: "t-1", Requester: "pm-tanaka", Type: "run_tests", State: agent.TaskFailed, UpdatedAt: fixedNow.Add(-3 * time.Minute)}})
	if label, _ := p.previewOf(0); label != "pm-tanaka · run_tests · failed 3m ago" {
		t.Errorf("task preview label = %q", label)
	}
}
