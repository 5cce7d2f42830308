package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// dialogFrame draws a dialog box centred in a w×h area. Its width adapts to
// the terminal: up to 76 cells, never wider than the area.
func dialogFrame(title, content string, w, h int, env *env) string {
	bw, bh := dialogSize(w, h)
	b := box(title, content, bw, bh, true, env)
	return fitBlock(lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, b), w, h)
}

// dialogSize is the box size for a w×h area; the inside is 2 smaller.
func dialogSize(w, h int) (int, int) {
	return min(w, 76), h
}

// helpDialog shows every binding, built from the keymap.
type helpDialog struct{}

func newHelpDialog() *helpDialog { return &helpDialog{} }

func (d *helpDialog) Update(msg tea.Msg) (action, tea.Cmd) {
	if _, ok := msg.(tea.KeyPressMsg); ok {
		return closeDialog{}, nil // any key closes help
	}
	return nil, nil
}

func (d *helpDialog) View(w, h int, env *env) string {
	bw, _ := dialogSize(w, h)
	hm := help.New()
	hm.SetWidth(bw - 4)
	st := env.styles
	hm.Styles = help.Styles{
		ShortKey: st.HelpKey, ShortDesc: st.HelpDesc, ShortSeparator: st.HelpSep,
		FullKey: st.HelpKey, FullDesc: st.HelpDesc, FullSeparator: st.HelpSep, Ellipsis: st.HelpSep,
	}
	cols := env.keys.FullHelp()
	var blocks []string
	names := []string{"everywhere", "lists", "panes", "dialogs · prompt"}
	for i, c := range cols {
		blocks = append(blocks, st.Header.Render(names[i])+"\n"+hm.FullHelpView([][]keyBinding{c}))
	}
	body := strings.Join(blocks, "\n\n")
	if lipgloss.Height(body) > h-3 && bw >= 70 {
		left := strings.Join(blocks[:2], "\n\n")
		right := strings.Join(blocks[2:], "\n\n")
		body = lipgloss.JoinHorizontal(lipgloss.Top, lipgloss.NewStyle().Width((bw-4)/2).Render(left), right)
	}
	body += "\n\n" + st.Muted.Render("Prompt: "+promptUsage)
	return dialogFrame("Help · any key closes", wrapBlock(body, bw-2), w, h, env)
}

// wrapBlock wraps every line of s to w cells.
func wrapBlock(s string, w int) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, wrap(l, w)...)
	}
	return strings.Join(out, "\n")
}

// detailDialog shows sanitised text, scrollable with the list keys.
type detailDialog struct {
	title, body string
	offset      int
	env         *env
}

func newDetailDialog(title, body string) *detailDialog {
	return &detailDialog{title: title, body: body}
}

func (d *detailDialog) Update(msg tea.Msg) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || d.env == nil {
		return nil, nil
	}
	keys := d.env.keys
	switch {
	case matches(k, keys.Dialog.Cancel, keys.List.Open, keys.Global.Quit):
		return closeDialog{}, nil
	case matches(k, keys.List.Down):
		d.offset++
	case matches(k, keys.List.Up):
		d.offset = max(0, d.offset-1)
	case matches(k, keys.List.PageDown):
		d.offset += 10
	case matches(k, keys.List.PageUp):
		d.offset = max(0, d.offset-10)
	case matches(k, keys.List.Home):
		d.offset = 0
	}
	return nil, nil
}

func (d *detailDialog) View(w, h int, env *env) string {
	d.env = env
	bw, bh := dialogSize(w, h)
	lines := strings.Split(wrapBlock(d.body, bw-2), "\n")
	room := bh - 3
	d.offset = max(0, min(d.offset, len(lines)-room))
	lines = lines[d.offset:]
	if len(lines) > room {
		lines = append(lines[:room], env.styles.Muted.Render("↓ more"))
	} else {
		lines = append(lines, env.styles.Muted.Render(env.keys.Dialog.Cancel.Help().Key+" close"))
	}
	return dialogFrame(d.title, strings.Join(lines, "\n"), w, h, env)
}
