package keymap

import (
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
)

// entry ties a user-facing action name to its binding and scope.
type entry struct {
	name  string
	scope Scope
	b     *key.Binding
}

// entries is the one name → binding registry. The pointers point into k, so
// callers must use it on a copy they own.
func (k *KeyMap) entries() []entry {
	return []entry{
		{"quit", ScopeGlobal, &k.Global.Quit},
		{"help", ScopeGlobal, &k.Global.Help},
		{"next_pane", ScopeGlobal, &k.Global.NextPane},
		{"prev_pane", ScopeGlobal, &k.Global.PrevPane},
		{"command", ScopeGlobal, &k.Global.Command},
		{"ask", ScopeGlobal, &k.Global.Ask},
		{"filter", ScopeGlobal, &k.Global.Filter},
		{"up", ScopeList, &k.List.Up},
		{"down", ScopeList, &k.List.Down},
		{"page_up", ScopeList, &k.List.PageUp},
		{"page_down", ScopeList, &k.List.PageDown},
		{"home", ScopeList, &k.List.Home},
		{"end", ScopeList, &k.List.End},
		{"open", ScopeList, &k.List.Open},
		{"approve", ScopeApprovals, &k.Approvals.Approve},
		{"reject", ScopeApprovals, &k.Approvals.Reject},
		{"answer", ScopeQueries, &k.Queries.Answer},
		{"decline", ScopeQueries, &k.Queries.Decline},
		{"release", ScopeQueries, &k.Queries.Release},
		{"release_all", ScopeInterrupts, &k.Interrupts.ReleaseAll},
		{"trust", ScopePeers, &k.Peers.Trust},
		{"refuse", ScopePeers, &k.Peers.Refuse},
		{"submit", ScopeDialog, &k.Dialog.Submit},
		{"cancel", ScopeDialog, &k.Dialog.Cancel},
		{"clear", ScopeDialog, &k.Dialog.Clear},
		{"use_guess", ScopeDialog, &k.Dialog.UseGuess},
		{"history_prev", ScopePrompt, &k.Prompt.HistoryPrev},
		{"history_next", ScopePrompt, &k.Prompt.HistoryNext},
		{"complete", ScopePrompt, &k.Prompt.Complete},
		{"prompt_submit", ScopePrompt, &k.Prompt.Submit},
		{"prompt_cancel", ScopePrompt, &k.Prompt.Cancel},
	}
}

// Actions lists every action name that Apply accepts, sorted.
func Actions() []string {
	k := Default()
	var names []string
	for _, e := range k.entries() {
		names = append(names, e.name)
	}
	sort.Strings(names)
	return names
}

// Apply returns a copy of k with the overrides applied. Each override maps an
// action name ("approve") to one key or a comma-separated list ("y,ctrl+y").
// An unknown action, an empty key list, or two actions sharing a key where
// they are active together is an error naming them.
func (k KeyMap) Apply(overrides map[string]string) (KeyMap, error) {
	out := k
	byName := map[string]entry{}
	for _, e := range out.entries() {
		byName[e.name] = e
	}
	names := make([]string, 0, len(overrides))
	for n := range overrides {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		e, ok := byName[name]
		if !ok {
			return k, fmt.Errorf("keymap: unknown action %q in ui.keys; known actions: %s",
				name, strings.Join(Actions(), ", "))
		}
		keys := splitKeys(overrides[name])
		if len(keys) == 0 {
			return k, fmt.Errorf("keymap: action %q in ui.keys has no key; give one such as \"ctrl+y\"", name)
		}
		e.b.SetKeys(keys...)
		e.b.SetHelp(helpKeys(keys), e.b.Help().Desc)
	}
	if err := out.Validate(); err != nil {
		return k, err
	}
	return out, nil
}

func splitKeys(s string) []string {
	var keys []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			keys = append(keys, p)
		}
	}
	return keys
}

// activeTogether lists the scope sets whose keys are read at the same time:
// a pane's own keys, the list keys and the global keys. Approve and reject
// act from every pane (a waiting request is one keypress away), so the
// approvals scope is active with each pane's, and the Interrupts pane
// takes the queries keys (answer, decline, release) besides its own.
func activeTogether() [][]Scope {
	return [][]Scope{
		{ScopeGlobal, ScopeList, ScopeApprovals},
		{ScopeGlobal, ScopeList, ScopeApprovals, ScopeQueries},
		{ScopeGlobal, ScopeList, ScopeApprovals, ScopeQueries, ScopeInterrupts},
		{ScopeGlobal, ScopeList, ScopeApprovals, ScopePeers},
		{ScopeDialog},
		{ScopePrompt},
	}
}

// Validate reports the first key bound to two actions that are active at
// the same time.
func (k KeyMap) Validate() error {
	all := k.entries()
	for _, group := range activeTogether() {
		owner := map[string]string{}
		for _, e := range all {
			if !inScopes(e.scope, group) {
				continue
			}
			for _, key := range e.b.Keys() {
				if prev, ok := owner[key]; ok && prev != e.name {
					return fmt.Errorf("keymap: key %q is bound to both %q and %q in the %s scope; change one of them in ui.keys",
						key, prev, e.name, group[len(group)-1])
				}
				owner[key] = e.name
			}
		}
	}
	return nil
}

func inScopes(s Scope, group []Scope) bool {
	for _, g := range group {
		if g == s {
			return true
		}
	}
	return false
}
