package tui

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"

	"github.com/charmbracelet/x/ansi"
)

var goldenSizes = [][2]int{{80, 24}, {60, 20}}

// TestPanes renders the whole frame with each pane focused, at every size
// and theme, and compares it with the golden files.
func TestPanes(t *testing.T) {
	panes := []struct {
		name string
		f    focus
	}{
		{"Peers", focusPeers}, {"Queries", focusQueries}, {"Interrupts", focusInterrupts},
		{"Approvals", focusApprovals}, {"Audit", focusAudit}, {"Messages", focusMessages},
	}
	for _, p := range panes {
		t.Run(p.name, func(t *testing.T) {
			forEachSize(t, func(t *testing.T, m *Model, w, h int) {
				m.setFocus(p.f)
				checkFrame(t, screen(m), w, h)
				requireThemedGolden(t, m)
			})
		})
	}
}

// forEachSize runs fn as subtests "<w>x<h>-<theme>" on a loaded model.
func forEachSize(t *testing.T, fn func(t *testing.T, m *Model, w, h int)) {
	for _, sz := range goldenSizes {
		for _, theme := range []string{"dark", "light"} {
			t.Run(fmt.Sprintf("%dx%d-%s", sz[0], sz[1], theme), func(t *testing.T) {
				m := newLoaded(t, fixtureService(), sz[0], sz[1], theme == "dark")
				fn(t, m, sz[0], sz[1])
			})
		}
	}
}

// TestScreens covers dialogs, the prompt bar and the help view.
func TestScreens(t *testing.T) {
	cases := []struct {
		name string
		keys []string
	}{
		{"Help", []string{"?"}},
		{"AnswerDialog", []string{"enter"}},
		{"DeclineDialog", []string{"d"}},
		{"RejectDialog", []string{"tab", "tab", "n"}},
		{"ApprovalDetail", []string{"tab", "tab", "down", "enter"}},
		{"PromptOpen", []string{"@", "p", "m"}},
		{"AuditDetail", []string{"tab", "tab", "tab", "enter"}},
		{"TrustDialog", []string{"shift+tab", "t"}},
		{"RefuseConfirm", []string{"shift+tab", "x"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forEachSize(t, func(t *testing.T, m *Model, w, h int) {
				press(t, m, c.keys...)
				checkFrame(t, screen(m), w, h)
				if c.name != "PromptOpen" {
					checkDialogMargins(t, screen(m))
				}
				requireThemedGolden(t, m)
			})
		})
	}
}

// checkDialogMargins fails when a dialog's text touches its frame: every
// line inside the box keeps a blank cell on each side.
func checkDialogMargins(t *testing.T, frame string) {
	t.Helper()
	inside := 0
	for _, l := range strings.Split(frame, "\n") {
		first, last := strings.Index(l, "┃"), strings.LastIndex(l, "┃")
		if first < 0 || first == last {
			continue
		}
		inside++
		text := l[first+len("┃") : last]
		if !strings.HasPrefix(text, " ") || !strings.HasSuffix(text, " ") {
			t.Errorf("dialog text touches its frame: %q", l)
		}
	}
	if inside == 0 {
		t.Errorf("no dialog frame on the screen:\n%s", frame)
	}
}

// TestHostileQueryGolden opens the query whose text carries OSC 52, a
// screen clear, a carriage return and a bidi override: the frame keeps its
// shape and none of the controls reach the output.
func TestHostileQueryGolden(t *testing.T) {
	forEachSize(t, func(t *testing.T, m *Model, w, h int) {
		press(t, m, "tab") // interrupts: q-5, then the hostile q-4
		press(t, m, "down", "enter")
		raw := m.Render()
		for _, bad := range []string{"\x1b]52", "\x1b[2J", "\r", "\u202e", "\a"} {
			if strings.Contains(raw, bad) {
				t.Errorf("raw frame contains %q", bad)
			}
		}
		frame := screen(m)
		if !strings.Contains(frame, "APPROVED by owner") {
			t.Errorf("the query text is not shown:\n%s", frame)
		}
		checkFrame(t, frame, w, h)
		requireThemedGolden(t, m)
	})
}

// TestThemesDiffer guards the themed goldens: the dark and light frames
// have the same text but not the same colours.
func TestThemesDiffer(t *testing.T) {
	dark := newLoaded(t, fixtureService(), 80, 24, true).Render()
	light := newLoaded(t, fixtureService(), 80, 24, false).Render()
	if ansi.Strip(dark) != ansi.Strip(light) {
		t.Error("the text of the frame depends on the theme")
	}
	if dark == light {
		t.Error("dark and light frames have the same colours")
	}
}

// TestLayouts checks the wide two-column layout and the too-small notice.
func TestLayouts(t *testing.T) {
	for _, sz := range [][2]int{{120, 36}, {120, 30}, {59, 20}, {100, 19}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := newLoaded(t, fixtureService(), sz[0], sz[1], true)
			frame := screen(m)
			checkFrame(t, frame, sz[0], sz[1])
			requireGolden(t, frame)
		})
	}
}

// TestFirstRunDialog: the first run opens on what it created, with the
// fingerprint to give colleagues; esc closes it onto the panes.
func TestFirstRunDialog(t *testing.T) {
	m := New(fixtureService(), Options{Now: clock, Location: time.UTC, DarkBackground: true,
		FirstRun: &FirstRun{AgentID: "eng-suzuki", Fingerprint: "SHA256:9c:41:d2:07", ConfigPath: "/home/u/.config/aoi/config.json", DataDir: "/home/u/.local/share/aoi"}})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	frame := screen(m)
	for _, want := range []string{"Welcome to aoi", "agent id: eng-suzuki", "fingerprint: SHA256:9c:41:d2:07", "config: /home/u/.config/aoi/config.json", "aoi peers trust"} {
		if !strings.Contains(frame, want) {
			t.Errorf("first-run dialog lacks %q:\n%s", want, frame)
		}
	}
	checkFrame(t, frame, 80, 24)
	requireGolden(t, frame)
	press(t, m, "esc")
	if m.topDialog() != nil {
		t.Error("esc did not close the first-run dialog")
	}
}

// TestFirstRunDialogFillsTheTrustCommand: the first-run dialog's trust
// command carries this agent's fingerprint and, once the status says
// where the core listens, its address, with what to change when that is
// loopback (colleagues on other machines cannot reach it).
func TestFirstRunDialogFillsTheTrustCommand(t *testing.T) {
	svc := fixtureService()
	full := svc.status.Fingerprint
	g := strings.Fields(agent.GroupFingerprint(full))
	fp := strings.Join(g[4:], " ") + `"` // the second line of the grouped, quoted fingerprint
	m := New(svc, Options{Now: clock, Location: time.UTC, DarkBackground: true,
		FirstRun: &FirstRun{AgentID: "eng-suzuki", Role: "engineer", Fingerprint: full, ConfigPath: "/c.json", DataDir: "/d"}})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	if frame := screen(m); !strings.Contains(frame, fp+` \`) || !strings.Contains(frame, "--endpoint HOST:PORT") ||
		!strings.Contains(frame, "HOST:PORT is the address this aoi listens on") {
		t.Errorf("before the status: the fingerprint, and what HOST:PORT stands for:\n%s", frame)
	}
	for _, c := range m.fetchCmds(dStatus) {
		pump(t, m, c)
	}
	frame := screen(m)
	for _, want := range []string{"aoi peers trust eng-suzuki \\", fp + ` \`, "--endpoint 127.0.0.1:8443 --role engineer", "127.0.0.1 reaches this machine only"} {
		if !strings.Contains(frame, want) {
			t.Errorf("the trust command lacks %q:\n%s", want, frame)
		}
	}
	checkFrame(t, frame, 80, 30)
	tailnet := agent.Status{ListenAddr: ":8443", Tailnet: &agent.Tailnet{Addresses: []string{"100.64.0.3", "fd7a:115c:a1e0::3"}}}
	if got := tailnet.Endpoint(); got != "100.64.0.3:8443" {
		t.Errorf("tailnet endpoint %q; want the node's tailnet address with the port", got)
	}
}

// TestFirstRunTrustCommandSurvivesANarrowTerminal: at 60 columns the
// trust command the first-run dialog gives is still one a shell runs with
// the whole fingerprint (the walk found it broken mid-hex there), and it
// shows the fingerprint grouped as the Peers pane does.
func TestFirstRunTrustCommandSurvivesANarrowTerminal(t *testing.T) {
	fp := strings.Repeat("9c41d2075be8aa13", 4)
	text := firstRunText(FirstRun{AgentID: "eng-suzuki", Fingerprint: fp, DataDir: "/d"}, "127.0.0.1:8443")
	start := strings.Index(text, "aoi peers trust")
	end := strings.Index(text, "--endpoint")
	if start < 0 || end < start {
		t.Fatalf("no trust command in:\n%s", text)
	}
	for _, line := range strings.Split(text[start:end], "\n") {
		if w := len([]rune(line)); w > 56 { // a 60-column dialog's body
			t.Errorf("the trust command's line %q is %d wide", line, w)
		}
	}
	// Run it through a shell, printing the arguments it would get.
	out, err := exec.Command("bash", "-c", "printf '%s\\0' "+strings.TrimPrefix(text[start:end], "aoi peers trust")).Output()
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(args) != 2 || args[0] != "eng-suzuki" {
		t.Fatalf("the shell got %q", args)
	}
	if got, err := agent.NormalizeFingerprint(args[1]); err != nil || got != fp {
		t.Errorf("the fingerprint argument %q reads as %q, %v", args[1], got, err)
	}
	if !strings.Contains(text, "fingerprint: 9c41d207 5be8aa13 ") {
		t.Errorf("the fingerprint is not grouped:\n%s", text)
	}
}
