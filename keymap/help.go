package keymap

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// Scope names a group of bindings; the help view shows the ones that apply.
type Scope string

// Scopes with their own bindings.
const (
	ScopeGlobal     Scope = "global"
	ScopeList       Scope = "list"
	ScopeApprovals  Scope = "approvals"
	ScopeQueries    Scope = "queries"
	ScopeInterrupts Scope = "interrupts"
	ScopePeers      Scope = "peers"
	ScopeDialog     Scope = "dialog"
	ScopePrompt     Scope = "prompt"
)

// helpKeys renders keys for the help view: "up/k", "ctrl+s".
func helpKeys(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.ReplaceAll(k, "shift+tab", "S-tab")
	}
	return strings.Join(out, "/")
}

// ShortHelp returns the bindings shown in the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Global.Help, k.Global.NextPane, k.Global.Command, k.Global.Ask, k.Global.Quit}
}

// FullHelp returns every binding, one column per scope.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		k.Bindings(ScopeGlobal),
		k.Bindings(ScopeList),
		k.Bindings(ScopeApprovals),
		k.Bindings(ScopeQueries),
		k.Bindings(ScopeInterrupts),
		k.Bindings(ScopePeers),
		append(k.Bindings(ScopeDialog), k.Bindings(ScopePrompt)...),
	}
}

// FullHelpTitles names FullHelp's groups, in its order: each pane's keys
// under the pane they work in (the walk could not tell whose y and r were).
// A title fits half of the help at 60 columns (28 cells): a longer one
// wraps.
var FullHelpTitles = []string{"everywhere", "lists", "Approvals (any pane)", "Queries · Interrupts", "Interrupts", "Peers", "dialogs · prompt"}

// ScopeHelp returns the bindings of a pane scope followed by the list and
// global ones, for a short help line under that pane.
func (k KeyMap) ScopeHelp(s Scope) []key.Binding {
	out := k.Bindings(s)
	return append(out, k.List.Open, k.Global.Help)
}

// Bindings returns the bindings of one scope in display order.
func (k KeyMap) Bindings(s Scope) []key.Binding {
	var out []key.Binding
	for _, e := range k.entries() {
		if e.scope == s {
			out = append(out, *e.b)
		}
	}
	return out
}
