package tui

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

func TestMain(m *testing.M) {
	// teatest's golden package defines -update; define it only if absent so
	// `go test ./tui/... -update` (make golden) works either way.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
	os.Exit(m.Run())
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// requireGolden compares got with testdata/<test name>.golden.
func requireGolden(t *testing.T, got string) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file %s (run make golden): %v", path, err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// requireThemedGolden compares the frame with its colours (one golden per
// theme), and on a difference shows the text of both, which is what a
// person can read, saying when only the colours changed.
func requireThemedGolden(t *testing.T, m *Model) {
	t.Helper()
	got := m.Render()
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".golden")
	if updating() {
		requireGolden(t, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file %s (run make golden): %v", path, err)
	}
	if string(want) == got {
		return
	}
	if ansi.Strip(string(want)) == ansi.Strip(got) {
		t.Errorf("%s: same text, different colours (run make golden if the theme changed on purpose)", path)
		return
	}
	t.Errorf("%s differs from the golden file:\n--- want\n%s\n--- got\n%s", path, ansi.Strip(string(want)), ansi.Strip(got))
}

// newLoaded builds a model on svc at size w×h with every fetch applied, the
// way Init would, but synchronously and without the event subscription.
func newLoaded(t testing.TB, svc *testService, w, h int, dark bool) *Model {
	m := New(svc, Options{Now: clock, Location: time.UTC, DarkBackground: dark})
	m.subscribed = true // the status bar otherwise says "offline"
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.setBackground(dark)
	for _, c := range m.fetchCmds(dAll) {
		pump(t, m, c)
	}
	return m
}

// pump runs cmd and feeds its messages back into m, like the program loop,
// skipping commands that wait (ticks, event waits) longer than a moment.
func pump(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	pumpDepth(t, m, cmd, 0)
}

func pumpDepth(t testing.TB, m *Model, cmd tea.Cmd, depth int) {
	if cmd == nil || depth > 25 {
		return
	}
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	var msg tea.Msg
	select {
	case msg = <-done:
	case <-time.After(100 * time.Millisecond):
		return // a tick or a wait: not part of this step
	}
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			pumpDepth(t, m, c, depth+1)
		}
	case tickMsg, tea.QuitMsg:
	default:
		_, next := m.Update(msg)
		pumpDepth(t, m, next, depth+1)
	}
}

// press sends keys to m and runs what they trigger. Named keys are
// "enter", "esc", "tab", "shift+tab", "up", "down", "ctrl+s", "ctrl+x", "backspace".
func press(t testing.TB, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		pump(t, m, cmd)
	}
}

func typeText(t testing.TB, m *Model, s string) {
	for _, r := range s {
		_, cmd := m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		pump(t, m, cmd)
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	named := map[string]tea.KeyPressMsg{
		"enter":     {Code: tea.KeyEnter},
		"esc":       {Code: tea.KeyEscape},
		"tab":       {Code: tea.KeyTab},
		"shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
		"up":        {Code: tea.KeyUp},
		"down":      {Code: tea.KeyDown},
		"pgdown":    {Code: tea.KeyPgDown},
		"pgup":      {Code: tea.KeyPgUp},
		"home":      {Code: tea.KeyHome},
		"end":       {Code: tea.KeyEnd},
		"backspace": {Code: tea.KeyBackspace},
		"ctrl+s":    {Code: 's', Mod: tea.ModCtrl},
		"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
		"ctrl+x":    {Code: 'x', Mod: tea.ModCtrl},
	}
	if m, ok := named[k]; ok {
		return m
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

// screen is the rendered frame without escape sequences.
func screen(m *Model) string {
	return ansi.Strip(m.Render())
}

// checkFrame fails when the frame is not exactly w×h cells.
func checkFrame(t *testing.T, frame string, w, h int) {
	t.Helper()
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		t.Errorf("frame has %d lines; want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Errorf("line %d is %d cells wide; want %d: %q", i, got, w, l)
		}
	}
}
