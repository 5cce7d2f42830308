package keymap

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "ctrl+y":
		return tea.KeyPressMsg{Code: 'y', Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

func TestDefaultIsValidAndMatches(t *testing.T) {
	k := Default()
	if err := k.Validate(); err != nil {
		t.Fatalf("default keymap: %v", err)
	}
	if !key.Matches(press("y"), k.Approvals.Approve) {
		t.Error("y does not approve")
	}
	if !key.Matches(press("R"), k.Interrupts.ReleaseAll) || key.Matches(press("R"), k.Queries.Release) {
		t.Error("R must release all and only that")
	}
	if !key.Matches(press("r"), k.Queries.Release) {
		t.Error("r does not send the selected question's draft")
	}
	if !key.Matches(press("enter"), k.List.Open) {
		t.Error("enter does not open")
	}
}

func TestApplyOverride(t *testing.T) {
	k, err := Default().Apply(map[string]string{"approve": "a, ctrl+y", "reject": "N"})
	if err != nil {
		t.Fatal(err)
	}
	if !key.Matches(press("a"), k.Approvals.Approve) || !key.Matches(press("ctrl+y"), k.Approvals.Approve) {
		t.Errorf("approve keys = %v", k.Approvals.Approve.Keys())
	}
	if key.Matches(press("y"), k.Approvals.Approve) {
		t.Error("old key y still approves")
	}
	if got := k.Approvals.Approve.Help(); got.Key != "a/ctrl+y" || got.Desc != "approve" {
		t.Errorf("help = %+v", got)
	}
	if d := Default(); !key.Matches(press("y"), d.Approvals.Approve) {
		t.Error("Apply changed the defaults")
	}
}

func TestApplyErrors(t *testing.T) {
	cases := []struct {
		name string
		ov   map[string]string
		want []string
	}{
		{"unknown", map[string]string{"aprove": "y"}, []string{`"aprove"`, "unknown action"}},
		{"empty", map[string]string{"approve": " , "}, []string{`"approve"`, "no key"}},
		{"clash in pane scope", map[string]string{"approve": "n"}, []string{`"n"`, `"approve"`, `"reject"`}},
		{"clash with global", map[string]string{"release": "q"}, []string{`"q"`, `"quit"`, `"release"`}},
		{"clash in dialog", map[string]string{"submit": "esc"}, []string{`"esc"`, `"submit"`, `"cancel"`}},
		{"clear clashes with send", map[string]string{"clear": "ctrl+s"}, []string{`"ctrl+s"`, `"submit"`, `"clear"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Default().Apply(c.ov)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
		})
	}
}

func TestSameKeyInSeparateScopesIsAllowed(t *testing.T) {
	// "r" releases in the interrupts pane; trusting with "r" in the peers
	// pane does not clash because the two panes are never active together.
	if _, err := Default().Apply(map[string]string{"trust": "r"}); err != nil {
		t.Fatal(err)
	}
}

func TestHelpCoversEveryAction(t *testing.T) {
	k := Default()
	n := 0
	for _, col := range k.FullHelp() {
		for _, b := range col {
			if b.Help().Desc == "" || b.Help().Key == "" {
				t.Errorf("binding %v has no help", b.Keys())
			}
			n++
		}
	}
	if n != len(Actions()) {
		t.Errorf("full help shows %d bindings, registry has %d", n, len(Actions()))
	}
	if len(k.ShortHelp()) == 0 || len(k.ScopeHelp(ScopeApprovals)) < 3 {
		t.Error("short help empty")
	}
}
