package tui

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestReplyToNoMessageKeepsTheLine: `:reply ID text` whose ID names no
// message to reply to stays in the bar with why after it, as a mistyped
// question id does, so the ID is mended and the reply not retyped (the
// fourteenth walk's `:reply 99 …` closed the bar on its text).
func TestReplyToNoMessageKeepsTheLine(t *testing.T) {
	svc := fixtureService()
	svc.messages[2].MessageID = "m-01a23ac7989b"
	m := newLoaded(t, svc, 120, 30, true)
	for _, c := range []struct{ line, want string }{
		{"reply 9 the release is on Friday", "no message 9 in the Messages pane"},
		{"reply 2 the release is on Friday", "not a message to reply to"},
	} {
		press(t, m, ":")
		typeText(t, m, c.line)
		press(t, m, "enter")
		if !m.prompt.input.Focused() {
			t.Fatalf(":%s closed the bar:\n%s", c.line, screen(m))
		}
		if got := m.prompt.value(); got != ":"+c.line {
			t.Errorf("the bar holds %q after :%s; want the line kept", got, c.line)
		}
		if frame := screen(m); !strings.Contains(frame, c.want) {
			t.Errorf(":%s does not say %q:\n%s", c.line, c.want, frame)
		}
		for _, call := range svc.Calls() {
			if strings.HasPrefix(call, "send ") {
				t.Errorf(":%s sent a message: %s", c.line, call)
			}
		}
		press(t, m, "esc")
	}
}

// TestNoticeNamesTheWayFromThePaneFocused: the notice of a request to run
// something says how to reach Approvals from the pane focused now, not
// from where focus was when it arrived (the fourteenth walk pressed tab
// tab as it said, and read "details in Approvals (tab tab)" in Approvals;
// tab tab from there goes to Messages).
func TestNoticeNamesTheWayFromThePaneFocused(t *testing.T) {
	m := newLoaded(t, fixtureService(), 120, 30, true)
	m.setFocus(focusQueries)
	m.Update(eventMsg{ev: agent.Event{Seq: 1, Kind: agent.EventApprovalRequested, ID: "a-9", Agent: "pm-tanaka"}})
	m.Update(eventMsg{ev: agent.Event{Seq: 2, Kind: agent.EventAttention, ID: "a-9", Summary: "pm-tanaka wants to run run_tests suite=auth"}})
	if frame := screen(m); !strings.Contains(frame, "details in Approvals (tab tab)") {
		t.Fatalf("from Queries the notice does not say the way to Approvals:\n%s", frame)
	}
	press(t, m, "tab", "tab")
	if m.focus != focusApprovals {
		t.Fatalf("tab tab from Queries focused %v, not Approvals", m.focus)
	}
	frame := screen(m)
	if strings.Contains(frame, "(tab tab)") || !strings.Contains(frame, "enter for details") {
		t.Errorf("in Approvals the notice still says the way from Queries:\n%s", frame)
	}
	press(t, m, "tab")
	if frame := screen(m); !strings.Contains(frame, "details in Approvals (") || strings.Contains(frame, "(tab tab)") {
		t.Errorf("one tab past Approvals the notice does not say the way back:\n%s", frame)
	}
	if !m.noticeNames("a-9") {
		t.Errorf("the notice, named again, no longer names a-9 with its keys: y would name it first")
	}
}

// TestReleaseAllSaysWhyNothingIsSent: R when no buffered draft may be sent
// says which it is (no work found, a guess) and how many, in the number
// there are (the fourteenth walk's one buffered question, whose draft
// found no work, read "for the buffered questions, or only guessed").
func TestReleaseAllSaysWhyNothingIsSent(t *testing.T) {
	noWork, _ := json.Marshal(map[string]any{"summary": `No recorded work matches "review pr 42".`})
	for _, c := range []struct {
		name string
		keep []string // buffered questions kept: q-5 found no work, q-4 is a guess
		want string
	}{
		{"one without work", []string{"q-5"}, "nothing to send: the secretary found no work for the buffered question; answer (e) or decline (d) it"},
		{"one guess", []string{"q-4"}, "nothing to send: the secretary only guessed at the buffered question; answer (e) or decline (d) it"},
		{"both", []string{"q-5", "q-4"}, "nothing to send: the secretary found no work for 1 buffered question and only guessed at 1 other; answer (e) or decline (d) each"},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc := fixtureService()
			var qs []agent.Query
			for _, q := range svc.queries {
				if q.ID == "q-5" {
					q.Draft = noWork
				}
				if q.State != agent.QueryBuffered || slices.Contains(c.keep, q.ID) {
					qs = append(qs, q)
				}
			}
			svc.queries = qs
			m := newLoaded(t, svc, 200, 40, true)
			m.setFocus(focusInterrupts)
			press(t, m, "R")
			if got := m.notice.text; got != c.want {
				t.Errorf("R says %q; want %q", got, c.want)
			}
			if d := m.topDialog(); d != nil {
				t.Errorf("R with nothing to send opened %T", d)
			}
		})
	}
}

// TestAskingYourselfSaysSo: `@ME …` or `:task ME …` with this agent's own
// id says that it is this agent, not that no such peer is here (the
// fourteenth walk's `:task eng-suzuki say_hi`, typed on eng-suzuki, read
// "no peer eng-suzuki here … :discover looks for new ones").
func TestAskingYourselfSaysSo(t *testing.T) {
	m := newLoaded(t, fixtureService(), 120, 30, true)
	for _, c := range []struct{ line, want string }{
		{"@eng-suzuki is the release branch green?", "eng-suzuki is this agent: @ asks a peer"},
		{":task eng-suzuki run_tests suite=auth", "eng-suzuki is this agent: :task asks a peer"},
	} {
		press(t, m, c.line[:1])
		typeText(t, m, c.line[1:])
		press(t, m, "enter")
		frame := screen(m)
		if !strings.Contains(frame, c.want) || strings.Contains(frame, "no peer eng-suzuki") {
			t.Errorf("%s does not say %q:\n%s", c.line, c.want, frame)
		}
		if !m.prompt.input.Focused() {
			t.Errorf("%s closed the bar", c.line)
		}
		press(t, m, "esc")
	}
	if calls := m.svc.(*testService).Calls(); len(calls) != 0 {
		t.Errorf("asking yourself made the calls %q", calls)
	}
}

// TestTrustDialogKeepsABadRole: a role the core would refuse ("q a", with
// a space) keeps the trust dialog open saying why, with what was typed, and
// trusts nobody (the fourteenth walk's dialog closed on "trusting qa-ito
// failed: that role is not valid", and t had to be pressed and the role
// typed again).
func TestTrustDialogKeepsABadRole(t *testing.T) {
	for _, c := range []struct{ role, want, fixed string }{
		{"q a", "not a role: use lower-case letters", "qa"},
		{"QA", "roles are lower-case: use qa", "qa"},
	} {
		svc := fixtureService()
		m := newLoaded(t, svc, 60, 20, true)
		press(t, m, "shift+tab", "t")
		d, ok := m.topDialog().(*trustDialog)
		if !ok {
			t.Fatalf("t opened %T; want the trust dialog", m.topDialog())
		}
		d.id.SetValue("qa-ito")
		press(t, m, "tab")
		typeText(t, m, c.role)
		press(t, m, "enter")
		if m.topDialog() != d {
			t.Fatalf("role %q closed the trust dialog:\n%s", c.role, screen(m))
		}
		frame := screen(m)
		checkFrame(t, frame, 60, 20)
		if !strings.Contains(d.problem, c.want) || !strings.Contains(frame, c.want[:10]) {
			t.Errorf("role %q: the dialog does not say %q:\n%s", c.role, c.want, frame)
		}
		if calls := svc.Calls(); len(calls) != 0 {
			t.Errorf("role %q made the calls %v", c.role, calls)
		}
		d.role.SetValue("")
		typeText(t, m, c.fixed)
		press(t, m, "enter")
		if got := svc.Calls(); len(got) != 1 || !strings.HasPrefix(got[0], "trust qa-ito ") || !strings.HasSuffix(got[0], " role=qa") {
			t.Errorf("after mending the role, calls = %v; want qa-ito trusted with role qa", got)
		}
	}
}

// TestHelpNeverStartsALineWithASeparator: the help's list of prompt
// commands breaks between commands, leaving "·" at the end of a line,
// never alone at the start of the next (the fourteenth walk's help read
// "· :help · :quit" and "· :quit" at 60 and 120 columns).
func TestHelpNeverStartsALineWithASeparator(t *testing.T) {
	for _, sz := range [][2]int{{60, 20}, {80, 24}, {100, 30}, {120, 35}, {140, 45}} {
		m := newLoaded(t, fixtureService(), sz[0], sz[1], true)
		press(t, m, "?")
		screen(m) // the help's pages are known once it is drawn
		press(t, m, "end")
		frame := screen(m)
		checkFrame(t, frame, sz[0], sz[1])
		for _, l := range strings.Split(frame, "\n") {
			inner := strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "┃"))
			if strings.HasPrefix(inner, "·") {
				t.Errorf("%dx%d: a line of the help starts with a separator: %q\n%s", sz[0], sz[1], l, frame)
			}
		}
		if !strings.Contains(frame, ":quit") {
			t.Errorf("%dx%d: the help's last page does not end with :quit:\n%s", sz[0], sz[1], frame)
		}
	}
}
