package tui

import (
	"context"
	"errors"

	tea "charm.land/bubbletea/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

func TestParsePrompt(t *testing.T) {
	cases := []struct {
		in   string
		want promptCommand
	}{
		{"@eng-suzuki how is auth going?", promptCommand{name: "ask", ask: agent.AskRequest{To: "eng-suzuki", Query: "how is auth going?", Async: true}}},
		// A priority first: a low one waits out the peer's focus hours.
		{"@eng-suzuki !low any news on the dark mode?", promptCommand{name: "ask", ask: agent.AskRequest{To: "eng-suzuki", Query: "any news on the dark mode?", Priority: "low", Async: true}}},
		{"@eng-suzuki !high prod is down", promptCommand{name: "ask", ask: agent.AskRequest{To: "eng-suzuki", Query: "prod is down", Priority: "high", Async: true}}},
		{"@eng-suzuki !LOW is CI green?", promptCommand{name: "ask", ask: agent.AskRequest{To: "eng-suzuki", Query: "is CI green?", Priority: "low", Async: true}}},
		{":task eng-suzuki run_tests suite=./auth/... verbose=1", promptCommand{name: "task", task: agent.TaskRequest{
			To: "eng-suzuki", TaskType: "run_tests", Params: map[string]string{"suite": "./auth/...", "verbose": "1"}}}},
		{":task pm lint", promptCommand{name: "task", task: agent.TaskRequest{To: "pm", TaskType: "lint"}}},
		{":focus on", promptCommand{name: "focus", on: true}},
		{":focus off", promptCommand{name: "focus"}},
		{":trust pm-tanaka SHA256:" + fpAB + " 127.0.0.1:8444", promptCommand{name: "trust", trust: agent.TrustRequest{AgentID: "pm-tanaka", Fingerprint: fpAB, Endpoint: "127.0.0.1:8444", Announce: true}}},
		{":trust pm-tanaka " + fpAB + " 127.0.0.1:8444 pm", promptCommand{name: "trust", trust: agent.TrustRequest{AgentID: "pm-tanaka", Fingerprint: fpAB, Endpoint: "127.0.0.1:8444", Role: "pm", Announce: true}}},
		// Not hex: the core says what is wrong with it.
		{":trust pm-tanaka fingerprint 127.0.0.1:8444", promptCommand{name: "trust", trust: agent.TrustRequest{AgentID: "pm-tanaka", Fingerprint: "fingerprint", Endpoint: "127.0.0.1:8444", Announce: true}}},
		{":answer q-7 done by  Friday", promptCommand{name: "answer", id: "q-7", text: "done by  Friday"}},
		{":decline q-7 ask in standup", promptCommand{name: "decline", id: "q-7", text: "ask in standup"}},
		// The fingerprint as the Peers pane groups it, then the endpoint and role.
		{":trust qa-sato abababab abababab abababab abababab abababab abababab abababab abababab 127.0.0.1:8445 qa",
			promptCommand{name: "trust", trust: agent.TrustRequest{AgentID: "qa-sato", Fingerprint: "abababababababababababababababababababababababababababababababab", Endpoint: "127.0.0.1:8445", Role: "qa", Announce: true}}},
		{":trust qa-sato ABABABAB:abababab:abababab:abababab:abababab:abababab:abababab:abababab",
			promptCommand{name: "trust", trust: agent.TrustRequest{AgentID: "qa-sato", Fingerprint: "abababababababababababababababababababababababababababababababab", Announce: true}}},
		{":release", promptCommand{name: "release"}},
		{":release q-5", promptCommand{name: "release", id: "q-5"}},
		{":note spike on caching", promptCommand{name: "note", text: "spike on caching"}},
		{":help", promptCommand{name: "help"}},
		{":reload", promptCommand{name: "reload"}},
		{":q", promptCommand{name: "quit"}},
	}
	for _, c := range cases {
		got, err := parsePrompt(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("parsePrompt(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
}

// fpAB is a well-formed fingerprint for the prompt's tests.
var fpAB = strings.Repeat("ab", 32)

func TestParsePromptErrors(t *testing.T) {
	for in, want := range map[string]string{
		"hello":                                  "start with @",
		"@":                                      "@AGENT",
		"@eng":                                   "@AGENT",
		":task":                                  ":task AGENT TYPE",
		":task eng t suite":                      `"suite" is not key=value`,
		":focus maybe":                           ":focus on",
		":trust eng":                             ":trust AGENT FINGERPRINT",
		":answer q-7":                            ":answer QUERY-ID",
		"@eng-suzuki !urgent prod is down":       "!urgent is no priority: use !low, !high or !critical",
		":decline q-7":                           ":decline QUERY-ID reason (the asker reads it)",
		":answr q-7 yes":                         "did you mean :answer?",
		":trust eng ab ab ab ab 127.0.0.1:1 r x": "has 8 hex digits, not 64",
		// Pasted short: named as such, not taken for an endpoint.
		":trust qa 9c41d207 5be8aa13 127.0.0.1:8445": "has 16 hex digits, not 64: paste it whole",
		":trust qa SHA256:9c41d207":                  "has 8 hex digits",
		":frobnicate":                                "unknown command :frobnicate",
		":release a b":                               ":release",
		":":                                          "type a command",
	} {
		_, err := parsePrompt(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parsePrompt(%q) error = %v; want it to mention %q", in, err, want)
		}
	}
}

func TestCompleteLine(t *testing.T) {
	peers := fixtureService().peers
	cases := []struct{ in, want string }{
		{"@pm", "@pm-tanaka "},
		{"@eng", "@eng-佐藤 "},
		{"@", "@"}, // several candidates with no common prefix: unchanged
		{":ta", ":task "},
		{":task p", ":task pm-tanaka "},
		{":task pm-tanaka r", ":task pm-tanaka run_tests "},
		{":task pm-tanaka ", ":task pm-tanaka "}, // lint and run_tests share nothing
		// The parameters pm-tanaka said run_tests takes, then a value it
		// allows; a parameter already set is not offered again.
		{":task pm-tanaka run_tests ", ":task pm-tanaka run_tests "},
		{":task pm-tanaka run_tests s", ":task pm-tanaka run_tests suite="},
		{":task pm-tanaka run_tests suite=b", ":task pm-tanaka run_tests suite=billing "},
		{":task pm-tanaka run_tests suite=auth ", ":task pm-tanaka run_tests suite=auth verbose="},
		{":task pm-tanaka lint ", ":task pm-tanaka lint "},
		{":trust q", ":trust qa-ito "},
		{"@zz", "@zz"},
	}
	for _, c := range cases {
		got, _, _ := completeLine(c.in, completions{peers: peers})
		if got != c.want {
			t.Errorf("completeLine(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

// TestTabCompletesQuestionIDs: tab after :answer, :decline or :release
// completes the id of a question waiting for the owner (the walk had to
// copy "q-0195f3…" from the Queries pane by eye); answered questions are
// not offered, and :release offers only those it can send (buffered, or
// waiting with a draft that found work).
func TestTabCompletesQuestionIDs(t *testing.T) {
	svc := fixtureService()
	svc.queries = []agent.Query{
		{ID: "q-0195f3a1c2d4e5f6a7b8c9d0", From: "pm-tanaka", Text: "auth?", State: agent.QueryEscalated, ReceivedAt: fixedNow},
		{ID: "q-0195f3a1c2d4e5f6a7b8ffff", From: "qa-ito", Text: "done?", State: agent.QueryAnswered, ReceivedAt: fixedNow},
		{ID: "q-0195f3b7000000000000aaaa", From: "qa-ito", Text: "suite?", State: agent.QueryBuffered, ReceivedAt: fixedNow},
	}
	m := newLoaded(t, svc, 100, 30, true)
	for _, c := range []struct{ typed, want string }{
		{"answer q-0195f3a", ":answer q-0195f3a1c2d4e5f6a7b8c9d0 "},
		{"decline q-", ":decline q-0195f3"}, // two wait: their common prefix, and both are listed
		{"release ", ":release q-0195f3b7000000000000aaaa "},
	} {
		press(t, m, ":")
		typeText(t, m, c.typed)
		press(t, m, "tab")
		if got := m.prompt.input.Value(); got != c.want {
			t.Errorf("tab after %q = %q; want %q", ":"+c.typed, got, c.want)
		}
		if frame := screen(m); strings.HasPrefix(c.typed, "decline") && !strings.Contains(frame, "2 match: …a1c2d4… pm-tanaka “auth?” · …b70000… qa-ito “suite?”") {
			t.Errorf("the two candidates are not listed:\n%s", frame)
		}
		press(t, m, "esc")
	}
	// The shared start of an id is enough when only one waiting question
	// has it; answered questions do not count.
	press(t, m, ":")
	typeText(t, m, "answer q-0195f3a1 tests pass now")
	press(t, m, "enter")
	if got := svc.Calls(); len(got) == 0 || !strings.Contains(got[len(got)-1], "q-0195f3a1c2d4e5f6a7b8c9d0") {
		t.Errorf("answering by the start of the id: calls %v", got)
	}
}

func TestPromptTabHistoryAndRun(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, "@")
	typeText(t, m, "pm")
	press(t, m, "tab")
	typeText(t, m, "status?")
	if got := m.prompt.input.Value(); got != "@pm-tanaka status?" {
		t.Fatalf("after tab: %q", got)
	}
	press(t, m, "enter")
	press(t, m, ":")
	typeText(t, m, "focus on")
	press(t, m, "enter")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"ask pm-tanaka status?", "focus true"}) {
		t.Fatalf("calls = %v", got)
	}
	press(t, m, ":", "up")
	if got := m.prompt.input.Value(); got != ":focus on" {
		t.Errorf("history up = %q", got)
	}
	press(t, m, "up")
	if got := m.prompt.input.Value(); got != "@pm-tanaka status?" {
		t.Errorf("history up twice = %q", got)
	}
	press(t, m, "down", "down")
	if got := m.prompt.input.Value(); got != ":" {
		t.Errorf("history back to the draft = %q", got)
	}
	press(t, m, "esc")
	if m.focus == focusPrompt {
		t.Error("esc left the prompt open")
	}
}

// TestPromptReloadShowsWhatChanged: :reload reports the core's summary of
// the changes, and a refused config the reason it was refused.
func TestPromptReloadShowsWhatChanged(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 36, true)
	press(t, m, ":")
	typeText(t, m, "reload")
	press(t, m, "enter")
	if got := svc.Calls(); !reflect.DeepEqual(got, []string{"reload"}) {
		t.Fatalf("calls = %v", got)
	}
	if frame := screen(m); !strings.Contains(frame, "config reloaded: acl: 1 rule → 2 (+pm-read)") {
		t.Errorf("the report is not shown:\n%s", frame)
	}
	svc.failWith = errors.New("config not reloaded, the running one stays: acl.rules[0].permission: bad")
	press(t, m, ":")
	typeText(t, m, "reload")
	press(t, m, "enter")
	// Said once, in the dialog that lists the problems (the walk saw it
	// in the dialog and on the notice line under it); :errors keeps it.
	frame := screen(m)
	if !strings.Contains(frame, "Config not reloaded") || !strings.Contains(frame, "acl.rules[0].permission: bad") {
		t.Errorf("the refusal is not shown:\n%s", frame)
	}
	if n := strings.Count(frame, "acl.rules[0].permission: bad"); n != 1 {
		t.Errorf("the refusal is shown %d times:\n%s", n, frame)
	}
	if !strings.Contains(m.errorsText(), "reload failed: config not reloaded") {
		t.Errorf(":errors lacks the refusal:\n%s", m.errorsText())
	}
}

// TestAskToAnOfflinePeerSaysQueued: a question the core queued for a
// peer it cannot reach is said to be queued, not "asked".
func TestAskToAnOfflinePeerSaysQueued(t *testing.T) {
	svc := fixtureService()
	svc.askQueued = true
	m := newLoaded(t, svc, 100, 24, true)
	press(t, m, "@")
	typeText(t, m, "pm-tanaka how is auth going?")
	press(t, m, "enter")
	if frame := screen(m); !strings.Contains(frame, "pm-tanaka is offline: the question is queued and goes out when it is back") {
		t.Fatalf("no queued note:\n%s", frame)
	}
}

// TestAskAnswerArrivesLater: the answer to an ad hoc query is shown when the
// matching message arrives, after unrelated messages.
func TestAskAnswerArrivesLater(t *testing.T) {
	svc := fixtureService()
	svc.messages = []agent.Message{{Seq: 1, From: "old", Event: "query.completed", Data: []byte(`{"summary":"old news"}`)}}
	m := newLoaded(t, svc, 80, 24, true)
	if strings.Contains(screen(m), "old news") {
		t.Fatal("backlog message shown as new")
	}
	press(t, m, "@")
	typeText(t, m, "pm-tanaka how is auth going?")
	press(t, m, "enter")
	if !strings.Contains(screen(m), "the answer will show in Messages") {
		t.Fatalf("no pending note:\n%s", screen(m))
	}
	svc.deliver("qa-ito", "unrelated", "something else")
	svc.deliver("pm-tanaka", "ask-1", "auth is 70% done\x1b[2J")
	m.Update(eventMsg{ev: agent.Event{Seq: 9, Kind: agent.EventMessageReceived}})
	pump(t, m, m.markDirty(dMessages))
	m.flushing = false
	pump(t, m, func() tea.Msg { return flushMsg{} })
	frame := screen(m)
	if !strings.Contains(frame, "pm-tanaka re “how is auth going?”: auth is 70% done") {
		t.Errorf("answer not shown:\n%s", frame)
	}
	if strings.Contains(m.Render(), "\x1b[2J") {
		t.Error("answer text not sanitised")
	}
}

// TestPromptHistoryOutlivesTheInterface: what was typed is handed to the
// core, and a new interface on the same core finds it with up, before
// what it typed itself.
func TestPromptHistoryOutlivesTheInterface(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, ":")
	typeText(t, m, "focus on")
	press(t, m, "enter", ":")
	typeText(t, m, "focus on")
	press(t, m, "enter")
	if got, _ := svc.PromptHistory(context.Background()); !reflect.DeepEqual(got, []string{":focus on"}) {
		t.Fatalf("stored history = %q, want the line once", got)
	}
	next := newLoaded(t, svc, 80, 24, true)
	press(t, next, "@")
	typeText(t, next, "pm-tanaka status?")
	press(t, next, "enter", ":", "up")
	if got := next.prompt.input.Value(); got != "@pm-tanaka status?" {
		t.Errorf("up in the new interface = %q, want its own line first", got)
	}
	press(t, next, "up")
	if got := next.prompt.input.Value(); got != ":focus on" {
		t.Errorf("up twice = %q, want the line typed in the interface before", got)
	}
}

// TestMalformedCommandKeepsTheBarOpen: a command the bar cannot run (a
// decline without its reason) says why and leaves the line in the open
// bar, to finish rather than retype; nothing is called.
func TestMalformedCommandKeepsTheBarOpen(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 80, 24, true)
	press(t, m, ":")
	typeText(t, m, "decline q-7")
	press(t, m, "enter")
	if m.focus != focusPrompt || m.prompt.input.Value() != ":decline q-7" {
		t.Fatalf("after a malformed command: focus %v, bar %q; want the bar open with the line", m.focus, m.prompt.input.Value())
	}
	if frame := screen(m); !strings.Contains(frame, ":decline QUERY-ID reason") {
		t.Errorf("the usage is not shown:\n%s", frame)
	}
	typeText(t, m, " not mine")
	press(t, m, "enter")
	if got := svc.Calls(); len(got) != 1 || !strings.Contains(got[0], "not mine") {
		t.Errorf("calls = %q, want the decline with its reason", got)
	}
}

// TestPeerDetailListsTaskParameters: a peer's detail names each task
// type's parameters the way `:task` takes them, so the owner can find out
// what to send (the walk could not).
func TestPeerDetailListsTaskParameters(t *testing.T) {
	pm := fixtureService().peers[0]
	if got, want := taskTypesText(pm), "lint; run_tests (suite=auth|billing required, verbose=)"; got != want {
		t.Errorf("task types read %q; want %q", got, want)
	}
}

// TestOptionalEnumParamSaysOptional: a parameter the peer lists values
// for but does not require reads as optional in the Peers detail and in
// `:task AGENT` (the daily-use walk read "mode=fast|full" as a choice it
// had to make).
func TestOptionalEnumParamSaysOptional(t *testing.T) {
	svc := fixtureService()
	svc.peers[0].TaskParams["run_tests"] = append(svc.peers[0].TaskParams["run_tests"],
		wire.TaskParam{Name: "mode", Enum: []string{"fast", "full"}})
	want := "run_tests (suite=auth|billing required, verbose=, mode=fast|full optional)"
	if got := taskTypesText(svc.peers[0]); !strings.HasSuffix(got, want) {
		t.Errorf("task types read %q; want %q", got, want)
	}
	m := newLoaded(t, svc, 200, 30, true)
	press(t, m, ":")
	typeText(t, m, "task pm-tanaka")
	press(t, m, "enter")
	if !strings.Contains(m.notice.text, want) {
		t.Errorf(":task pm-tanaka says %q; want %q", m.notice.text, want)
	}
}

// TestUnknownPeerKeepsTheLine: the walk's "@engg hello?" closed the bar
// and dropped the line. An id no peer has keeps the line open with the
// nearest id; an id in capitals is the lower-case one.
func TestUnknownPeerKeepsTheLine(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 120, 30, true)
	press(t, m, "@")
	typeText(t, m, "pm-tanak how is auth going?")
	press(t, m, "enter")
	if m.focus != focusPrompt || m.prompt.value() != "@pm-tanak how is auth going?" {
		t.Fatalf("the bar closed or lost the line: %q", m.prompt.value())
	}
	if frame := screen(m); !strings.Contains(frame, "no peer pm-tanak here — did you mean pm-tanaka?") {
		t.Errorf("no hint at the id:\n%s", frame)
	}
	press(t, m, "esc")
	press(t, m, "@")
	typeText(t, m, "PM-TANAKA how is auth going?")
	pump(t, m, m.promptKey(tea.KeyPressMsg{Code: tea.KeyEnter}))
	if calls := svc.Calls(); len(calls) == 0 || calls[len(calls)-1] != "ask pm-tanaka how is auth going?" {
		t.Errorf("calls %q; want the question asked of pm-tanaka", calls)
	}
}

// TestFirstRunNamesTheDataDirInAoiID: the walk started aoi with
// --data-dir, typed `aoi id` as the welcome said, and read the default
// data dir's missing config. The welcome names the data dir in the command.
func TestFirstRunNamesTheDataDirInAoiID(t *testing.T) {
	text := firstRunText(FirstRun{AgentID: "eng", DataDir: "/tmp/walk2/data/eng"}, "127.0.0.1:8443")
	if !strings.Contains(text, "`aoi --data-dir /tmp/walk2/data/eng id` prints this command") {
		t.Errorf("welcome text:\n%s", text)
	}
}

// TestAskTakesAScope: a peer a folder rule lets into part of a context
// must name it; the second walk's QA could not from the prompt bar.
// "--scope a,b" after the agent (or after the priority) names it.
func TestAskTakesAScope(t *testing.T) {
	for line, want := range map[string][]string{
		"@eng --scope acme/webapp/billing is the invoice test fixed?":      {"acme/webapp/billing"},
		"@eng !high --scope=acme/webapp/billing,acme/api is it fixed?":     {"acme/webapp/billing", "acme/api"},
		"@eng --scope acme/webapp/billing !low is the invoice test fixed?": {"acme/webapp/billing"},
	} {
		c, err := parsePrompt(line)
		if err != nil || !slices.Equal(c.ask.ContextScope, want) || strings.Contains(c.ask.Query, "--scope") || strings.HasPrefix(c.ask.Query, "!") {
			t.Errorf("%q → %+v, %v; want scope %v and the question alone", line, c.ask, err, want)
		}
	}
	// A --scope naming nothing says how to write it, not the general
	// usage line (the fourteenth walk).
	for _, line := range []string{"@eng --scope", "@eng --scope=", "@eng !high --scope", "@eng --scope=, is it fixed?"} {
		if _, err := parsePrompt(line); err == nil || !strings.Contains(err.Error(), "--scope names the contexts or folders") {
			t.Errorf("%q → %v; want how to write --scope", line, err)
		}
	}
}

// TestTaskToAPeerOfferingNoneIsNotSent: qa-ito described itself and
// listed no task types, so `:task qa-ito run_tests` is not sent (the
// fourteenth walk's came back refused): the bar says so and keeps the
// line to mend.
func TestTaskToAPeerOfferingNoneIsNotSent(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 200, 30, true)
	press(t, m, ":")
	typeText(t, m, "task qa-ito run_tests")
	press(t, m, "enter")
	if frame := screen(m); !strings.Contains(frame, "qa-ito offers you no task types — by what it last announced; :discover asks again") {
		t.Errorf("a task for a peer offering none:\n%s", frame)
	}
	if calls := svc.Calls(); slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "task ") }) {
		t.Errorf("the request was sent: %q", calls)
	}
}

// TestTaskWithAgentAloneListsItsTypes: ":task AGENT" lists what the peer
// offers, with the parameters, as `aoi task AGENT` does (the second walk
// got the usage line).
func TestTaskWithAgentAloneListsItsTypes(t *testing.T) {
	svc := fixtureService()
	m := newLoaded(t, svc, 200, 30, true)
	press(t, m, ":")
	typeText(t, m, "task pm-tanaka")
	press(t, m, "enter")
	if !strings.Contains(m.notice.text, "pm-tanaka offers: lint; run_tests (suite=auth|billing required, verbose=)") {
		t.Errorf("notice %q; want pm-tanaka's task types listed", m.notice.text)
	}
}
