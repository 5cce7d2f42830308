package tui

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// confirmDialog asks yes or no before an action that cannot be undone from
// the interface. y or enter confirms; n or esc cancels.
type confirmDialog struct {
	title, body string
	yes         action
	env         *env
	// quitKeys makes the quit keys confirm too (quitting asked first:
	// pressing q twice quits), but for ctrl+c, which cancels a dialog.
	quitKeys bool
}

func newConfirmDialog(title, body string, yes action, e *env) *confirmDialog {
	return &confirmDialog{title: title, body: body, yes: yes, env: e}
}

func (d *confirmDialog) Update(msg tea.Msg) (action, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, nil
	}
	if d.quitKeys && matches(k, d.env.keys.Global.Quit) && !cancels(k, d.env.keys.Dialog) {
		return d.yes, nil // q again; ctrl+c cancels, as in every dialog
	}
	switch k.String() {
	case "y", "enter":
		return d.yes, nil
	case "n":
		return noticeAction{text: "cancelled: " + d.title}, nil
	}
	if cancels(k, d.env.keys.Dialog) {
		return noticeAction{text: "cancelled: " + d.title}, nil
	}
	return nil, nil
}

func (d *confirmDialog) View(w, h int, env *env) string {
	tw, _ := dialogSize(w, h)
	body := wrapBlock(d.body, tw) + "\n\n" + env.styles.Muted.Render("y/enter confirm · n/"+
		env.keys.Dialog.Cancel.Help().Key+" cancel")
	return dialogFrame(d.title, body, w, h, strings.Count(body, "\n")+3, env)
}

// trustDialog pins a caller that asked for trust. It shows the fingerprint
// to compare with the one the colleague reads out from `aoi id`, and
// takes the agent id (pre-filled with the one the caller announced; the
// owner decides the name the ACL will use) and the role the ACL's rules
// match (the owner's to give: what a peer announces is never trusted).
// tab moves between the two fields.
type trustDialog struct {
	p        agent.Peer
	id, role textinput.Model
	onRole   bool // the role field has the focus
	problem  string
	env      *env
}

func newTrustDialog(p agent.Peer, e *env) *trustDialog {
	id := textinput.New()
	id.Prompt = "agent id › "
	id.CharLimit = 64
	id.Placeholder = "the colleague's agent id, e.g. eng-suzuki"
	id.SetValue(Sanitize(p.AgentID))
	id.CursorEnd()
	role := textinput.New()
	role.Prompt = "role     › "
	role.CharLimit = 64
	role.SetValue(Sanitize(p.Role))
	return &trustDialog{p: p, id: id, role: role, env: e}
}

// placeholderFor is the first of the placeholders that fits a field w
// cells wide, else the last cut at a word: the role field at 60 columns
// read "e.g. pm: rules by role apply only once it h".
func placeholderFor(w int, placeholders ...string) string {
	for _, p := range placeholders {
		if width(p) <= w {
			return p
		}
	}
	return truncateWords(placeholders[len(placeholders)-1], w)
}

func (d *trustDialog) focusCmd() tea.Cmd { return d.id.Focus() }

func (d *trustDialog) Update(msg tea.Msg) (action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case cancels(k, d.env.keys.Dialog):
			return noticeAction{text: "trust cancelled"}, nil
		case k.String() == "tab" || k.String() == "shift+tab":
			return nil, d.switchField()
		case k.String() == "enter" || matches(k, d.env.keys.Dialog.Submit):
			id := strings.TrimSpace(d.id.Value())
			switch {
			case id == "":
				d.problem = "an agent id is required: ask the colleague for theirs (aoi id shows it)"
				return nil, nil
			case !wire.ValidAgentID(id):
				d.problem = "not an agent id: use lower-case letters, digits, '.', '_' or '-' (e.g. eng-suzuki)"
				return nil, nil
			}
			role := strings.TrimSpace(d.role.Value())
			if problem := roleProblem(role); problem != "" {
				// The dialog stays open on the role to mend (the
				// fourteenth walk's "q a" closed it on a failure).
				d.problem = problem
				if !d.onRole {
					return nil, d.switchField()
				}
				return nil, nil
			}
			p := d.p
			p.AgentID, p.Role = id, role
			return trustAction{p: p}, nil
		}
	}
	var cmd tea.Cmd
	if d.onRole {
		d.role, cmd = d.role.Update(msg)
	} else {
		d.id, cmd = d.id.Update(msg)
	}
	return nil, cmd
}

// roleProblem says why role cannot be a peer's role ("" when it can, or
// is left empty), as the core would refuse it.
func roleProblem(role string) string {
	switch {
	case role == "" || wire.ValidAgentID(role):
		return ""
	case wire.ValidAgentID(strings.ToLower(role)):
		return "roles are lower-case: use " + strings.ToLower(role)
	}
	return "not a role: use lower-case letters, digits, '.', '_' or '-', no spaces (e.g. pm, qa), or leave it empty"
}

// switchField moves the focus to the other field.
func (d *trustDialog) switchField() tea.Cmd {
	d.onRole = !d.onRole
	if d.onRole {
		d.id.Blur()
		return d.role.Focus()
	}
	d.role.Blur()
	return d.id.Focus()
}

func (d *trustDialog) View(w, h int, env *env) string {
	tw, _ := dialogSize(w, h)
	d.id.SetWidth(tw - 14)
	d.role.SetWidth(tw - 14)
	d.role.Placeholder = placeholderFor(tw-14, "e.g. pm: rules by role apply only once it has one", "e.g. pm (rules by role need one)")
	fields := detailFields([][2]string{
		{"fingerprint", agent.GroupFingerprint(d.p.Fingerprint)}, {"endpoint", orDefault(d.p.Endpoint, noEndpoint(d.p))},
		{"calls from", d.p.Source}, {"announced role", d.p.AnnouncedRole},
	})
	body := wrapBlock("Compare this fingerprint with the one your colleague reads from `aoi id` on their machine. Trust only if they match.", tw) +
		"\n\n" + wrapBlock(fields, tw) + "\n\n" + d.id.View() + "\n" + d.role.View()
	if d.problem != "" {
		body += "\n" + env.styles.Error.Render(wrapBlock(d.problem, tw))
	}
	body += "\n\n" + env.styles.Muted.Render("enter trust · tab next field · "+env.keys.Dialog.Cancel.Help().Key+" cancel")
	return dialogFrame("Trust "+peerLabel(d.p), body, w, h, strings.Count(body, "\n")+3, env)
}

// peerLabel names a peer, or a caller that has not said who it is by its
// fingerprint.
func peerLabel(p agent.Peer) string {
	if p.AgentID != "" {
		return Sanitize(p.AgentID)
	}
	return "caller " + shortFP(p.Fingerprint)
}
