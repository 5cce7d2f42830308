package agent

import (
	"reflect"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/config"
)

// TestConfigChangesWordsEachEdit: every kind of edit is named, secrets are
// not shown, and settings read only at start are listed apart.
func TestConfigChangesWordsEachEdit(t *testing.T) {
	old := config.Default("eng", "engineer", "me")
	old.Tasks = map[string]config.TaskType{"lint": {Command: []string{"make", "lint"}}, "test": {Command: []string{"go", "test"}}}
	cur := config.Default("eng", "engineer", "me")
	cur.ACL.Rules = append(cur.ACL.Rules, config.Rule{ID: "no-pm", AgentID: "pm", ScopeType: "repository", ScopePattern: "**", Permission: "none"})
	cur.Tasks = map[string]config.TaskType{"test": {Command: []string{"go", "test", "./..."}}, "docs": {Command: []string{"make", "docs"}}}
	cur.Secretary.InterruptControl.AutoRespondThreshold = 0.7
	cur.Secretary.LLM.APIKey = "sk-very-secret"
	cur.Network.ListenAddr = "127.0.0.1:9999"
	cur.UI.Theme = "light"
	old.Peers = []config.Peer{{AgentID: "pm", Fingerprint: strings.Repeat("ab", 32), Role: "pm"}, {AgentID: "qa"}}
	cur.Peers = []config.Peer{{AgentID: "pm", Fingerprint: strings.Repeat("ab", 32), Role: "viewer"}}

	changes, restart := configChanges(old, cur)
	all := strings.Join(changes, "\n")
	for _, want := range []string{
		"acl: 1 rule → 2 (+no-pm)",
		"tasks: +docs ~test -lint",
		"secretary.interrupt_control.auto_respond_threshold 0.8 → 0.7",
		"secretary.llm.api_key changed",
		`ui.theme "auto" → "light"`,
		"peers: ~pm -qa",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("changes lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "sk-very-secret") {
		t.Error("a secret reached the report")
	}
	if !reflect.DeepEqual(restart, []string{`network.listen_addr "` + old.Network.ListenAddr + `" → "127.0.0.1:9999"`}) {
		t.Errorf("restart = %q", restart)
	}
	if c, r := configChanges(old, old); len(c) != 0 || len(r) != 0 {
		t.Errorf("an unchanged config reports %q, %q", c, r)
	}
	rep := ReloadReport{Changes: changes[:1], Restart: restart}
	if got := rep.String(); !strings.HasPrefix(got, "config reloaded: acl: 1 rule → 2 (+no-pm); restart aoi to apply: network.listen_addr") {
		t.Errorf("String() = %q", got)
	}
}

// TestACLChangeNamesRulesAndOrder: an ACL edit names the rules by id, and
// a reorder, which changes what the first matching rule decides, is said.
func TestACLChangeNamesRulesAndOrder(t *testing.T) {
	a := config.Rule{ID: "a", ScopeType: "repository", ScopePattern: "x", Permission: "read"}
	b := config.Rule{ID: "b", ScopeType: "repository", ScopePattern: "x", Permission: "none"}
	c := config.Rule{ID: "c", ScopeType: "repository", ScopePattern: "y", Permission: "read"}
	wider := a
	wider.ScopePattern = "**"
	for _, tc := range []struct {
		old, cur []config.Rule
		want     string
	}{
		{[]config.Rule{a, b, c}, []config.Rule{c, a, b}, "acl: 3 rules → 3 (reordered)"},
		{[]config.Rule{a, b}, []config.Rule{wider, b, c}, "acl: 2 rules → 3 (~a +c)"},
		{[]config.Rule{a, b, c}, []config.Rule{b, a}, "acl: 3 rules → 2 (-c, reordered)"},
		{[]config.Rule{a}, nil, "acl: 1 rule → 0 (-a)"},
	} {
		if got := aclChange(tc.old, tc.cur); got != tc.want {
			t.Errorf("aclChange = %q, want %q", got, tc.want)
		}
	}
}

// TestRedactionChangeNeedsRestart: the redactor is built once, so a new
// pattern is reported as needing a restart, not as applied.
func TestRedactionChangeNeedsRestart(t *testing.T) {
	old := config.Default("eng", "engineer", "me")
	cur := config.Default("eng", "engineer", "me")
	cur.Secretary.Redaction.Patterns = []config.RedactionPattern{{ID: "ticket", Regex: "TICKET-[0-9]+"}}
	changes, restart := configChanges(old, cur)
	if len(changes) != 0 || !reflect.DeepEqual(restart, []string{"redaction: 0 patterns → 1"}) {
		t.Errorf("changes %q, restart %q", changes, restart)
	}
}
