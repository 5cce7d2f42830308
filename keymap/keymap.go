// Package keymap holds every key binding of the aoi terminal interface,
// grouped by the scope in which it is active, with help text for the help
// view and user overrides from the config file.
package keymap

import "charm.land/bubbles/v2/key"

// KeyMap is the complete set of bindings, one field per scope. Global and
// List bindings are active together with the scope of the focused pane.
type KeyMap struct {
	Global     Global
	List       List
	Approvals  Approvals
	Queries    Queries
	Interrupts Interrupts
	Peers      Peers
	Dialog     Dialog
	Prompt     Prompt
}

// Global bindings work everywhere except inside a text field.
type Global struct {
	Quit     key.Binding
	Help     key.Binding
	NextPane key.Binding
	PrevPane key.Binding
	Command  key.Binding // opens the prompt bar with ":"
	Ask      key.Binding // opens the prompt bar with "@"
	Filter   key.Binding
}

// List bindings move the selection in any pane.
type List struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Home     key.Binding
	End      key.Binding
	Open     key.Binding
}

// Approvals bindings decide the selected approval.
type Approvals struct {
	Approve key.Binding
	Reject  key.Binding
}

// Queries bindings act on the selected received query, in the Queries
// and the Interrupts pane alike: Release sends it the secretary's draft
// as the answer (a buffered question's, or an escalated one's, as `aoi
// release ID` does).
type Queries struct {
	Answer  key.Binding
	Decline key.Binding
	Release key.Binding
}

// Interrupts bindings release every buffered query; the Queries bindings
// answer, decline and release one there too.
type Interrupts struct {
	ReleaseAll key.Binding
}

// Peers bindings decide a pending trust request.
type Peers struct {
	Trust  key.Binding
	Refuse key.Binding
}

// Dialog bindings work in any open dialog, except Clear and UseGuess,
// which work in the answer dialog.
type Dialog struct {
	Submit key.Binding
	Cancel key.Binding
	// Clear empties the answer's text area, the secretary's draft with
	// it, so the owner can write an answer from scratch.
	Clear key.Binding
	// UseGuess puts a weak draft, shown above the answer dialog's text
	// area and not in it, into the area to edit.
	UseGuess key.Binding
}

// Prompt bindings work while the prompt bar has focus.
type Prompt struct {
	HistoryPrev key.Binding
	HistoryNext key.Binding
	Complete    key.Binding
	Submit      key.Binding
	Cancel      key.Binding
}

func bind(help string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKeys(keys), help))
}

// Default returns the built-in bindings. Each call returns a fresh value.
func Default() KeyMap {
	return KeyMap{
		Global: Global{
			Quit:     bind("quit", "q", "ctrl+c"),
			Help:     bind("help", "?"),
			NextPane: bind("next pane", "tab"),
			PrevPane: bind("previous pane", "shift+tab"),
			Command:  bind("command", ":"),
			Ask:      bind("ask a peer", "@"),
			Filter:   bind("filter audit", "/"),
		},
		List: List{
			Up:       bind("up", "up", "k"),
			Down:     bind("down", "down", "j"),
			PageUp:   bind("page up", "pgup"),
			PageDown: bind("page down", "pgdown"),
			Home:     bind("first", "home", "g"),
			End:      bind("last", "end", "G"),
			Open:     bind("open", "enter"),
		},
		Approvals:  Approvals{Approve: bind("approve", "y"), Reject: bind("reject", "n")},
		Queries:    Queries{Answer: bind("answer", "e"), Decline: bind("decline", "d"), Release: bind("send draft", "r")},
		Interrupts: Interrupts{ReleaseAll: bind("send all drafts", "R")},
		Peers:      Peers{Trust: bind("trust", "t"), Refuse: bind("refuse", "x")},
		Dialog: Dialog{Submit: bind("send", "ctrl+s"), Cancel: bind("cancel", "esc"), Clear: bind("clear", "ctrl+x"),
			UseGuess: bind("use the guess", "ctrl+g")},
		// The help lists these under the dialogs' keys: each says it acts
		// on the prompt bar's line, or "enter run" read as a dialog's send
		// and "esc close" beside "esc cancel" as a second meaning.
		Prompt: Prompt{
			HistoryPrev: bind("older line", "up"),
			HistoryNext: bind("newer line", "down"),
			Complete:    bind("complete a word", "tab"),
			Submit:      bind("run the line", "enter"),
			Cancel:      bind("close the bar", "esc"),
		},
	}
}
