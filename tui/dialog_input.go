package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/inbox"
)

type keyBinding = key.Binding

// reasonDialog asks for one line of text (a reason, a filter).
type reasonDialog struct {
	title, hint string
	input       textinput.Model
	submit      func(string) action
	emptyOK     bool
	required    string // shown when enter is pressed on an empty field
	problem     string
	about       string // what the text is for (the question declined, the filter syntax), above the field
	aboutName   string // what the scroll hint calls it: "the question", as the answer dialog's does
	aboutWin    textWindow
	verb        string // what enter does: "send" unless set
	env         *env
}

func newReasonDialog(title, hint string, submit func(string) action, e *env) *reasonDialog {
	in := textinput.New()
	in.Prompt = "› "
	in.CharLimit = 1000
	in.Placeholder = hint
	in.Focus()
	return &reasonDialog{title: title, hint: hint, input: in, submit: submit, env: e}
}

func (d *reasonDialog) withValue(v string) *reasonDialog {
	d.input.SetValue(v)
	d.input.CursorEnd()
	return d
}

func (d *reasonDialog) allowEmpty() *reasonDialog { d.emptyOK = true; return d }

// withAbout shows text above the field that stays while the owner types
// (the placeholder goes with the first key); name is what the hint of a
// text too long for the dialog calls it ("pgup/pgdown scroll the
// question"), worded as the answer dialog words its own.
func (d *reasonDialog) withAbout(text, name string) *reasonDialog {
	d.about, d.aboutName = text, name
	return d
}

// withVerb names what enter does ("apply" for a filter).
func (d *reasonDialog) withVerb(verb string) *reasonDialog { d.verb = verb; return d }

// requireText makes an empty submit show why it was refused.
func (d *reasonDialog) requireText(why string) *reasonDialog { d.required = why; return d }

func (d *reasonDialog) Update(msg tea.Msg) (action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case cancels(k, d.env.keys.Dialog):
			return closeDialog{}, nil
		case d.aboutWin.scroll(k):
			return nil, nil
		case matches(k, d.env.keys.Dialog.Clear):
			d.input.SetValue("") // a filter clears to show every row again
			d.problem = ""
			return nil, nil
		case k.String() == "enter" || matches(k, d.env.keys.Dialog.Submit):
			v := strings.TrimSpace(d.input.Value())
			if v == "" && !d.emptyOK {
				d.problem = d.required
				if d.problem == "" {
					d.problem = "write something here first (esc cancels)"
				}
				return nil, nil
			}
			return d.submit(v), nil
		}
	}
	var cmd tea.Cmd
	d.input, cmd = d.input.Update(msg)
	return nil, cmd
}

func (d *reasonDialog) View(w, h int, env *env) string {
	tw, _ := dialogSize(w, h)
	d.input.SetWidth(tw - 4)
	// Why the last enter did nothing, whole: a narrow dialog cut the
	// walk's "a reason is required: the requester reads it (esc cance…".
	problem, more := "", 0
	if d.problem != "" {
		lines := wrap(d.problem, tw)
		problem, more = env.styles.Error.Render(strings.Join(lines, "\n")), len(lines)-1
	}
	about := ""
	if d.about != "" {
		// Whatever the field leaves of the screen, at least 4 lines.
		lines := d.aboutWin.show(strings.Split(wrapBlock(d.about, tw), "\n"), max(4, h-10-more), tw, d.aboutName, env)
		about = env.styles.Muted.Render(strings.Join(lines, "\n")) + "\n"
	}
	verb := d.verb
	if verb == "" {
		verb = env.keys.Dialog.Submit.Help().Desc
	}
	body := about + "\n" + d.input.View() + "\n" + problem + "\n" +
		env.styles.Muted.Render("enter "+verb+" · "+helpKeys(env.keys.Dialog.Clear)+" · "+
			env.keys.Dialog.Cancel.Help().Key+" "+env.keys.Dialog.Cancel.Help().Desc)
	return dialogFrame(d.title, body, w, h, 7+more+strings.Count(about, "\n"), env)
}

// answerDialog shows a received query and a text area pre-filled with the
// secretary's draft; submit sends it as the owner's answer, and clear
// empties the text area to write one from scratch. A question
// longer than half the dialog scrolls with pgup/pgdown (the text area
// keeps the focus and every other key), so all of it can be read before
// answering.
type answerDialog struct {
	q        agent.Query
	area     textarea.Model
	env      *env
	question textWindow
	opened   string // the text it opened with: esc keeps anything else
	problem  string // why the last send did nothing
	guess    string // a weak draft, shown above the text area, not in it
}

func newAnswerDialog(q agent.Query, unsent string, e *env) *answerDialog {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.CharLimit = 8000
	ta.Placeholder = "Write the answer…"
	guess := ""
	switch d := draftText(q.Draft); {
	case unsent != "":
		ta.SetValue(unsent) // what the owner wrote last time, which could not be sent
	case d != "" && inbox.Releasable(q.Draft, q.Confidence): // not a guess (inbox.WeakDraft)
		ta.SetValue(d + "\n") // the owner's words start on their own line, after the draft
	case d != "" && inbox.DraftFoundWork(q.Draft):
		// A guess (the walk's draft at 0.25 was about something else):
		// typing would add to it, so it is shown above, to read from.
		guess = d
		ta.Placeholder = "Write the answer… (the secretary's guess above is not sent)"
	case d != "":
		// "No recorded work matches …" is no start for an answer: typing
		// would only add to it.
		ta.Placeholder = "Write the answer… (the secretary found no work that matches)"
	}
	return &answerDialog{q: q, area: ta, env: e, opened: ta.Value(), guess: guess}
}

// maxGuessLines is the least of the weak draft the answer dialog shows,
// and minAnswerLines what it leaves the answer at the least.
const (
	maxGuessLines  = 3
	minAnswerLines = 4
)

func (d *answerDialog) focusCmd() tea.Cmd { return d.area.Focus() }

func (d *answerDialog) Update(msg tea.Msg) (action, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		d.problem = ""
		switch {
		case cancels(k, d.env.keys.Dialog):
			if v := d.area.Value(); v != d.opened && strings.TrimSpace(v) != "" {
				return keepAnswer{q: d.q, text: v}, nil
			}
			return closeDialog{}, nil
		case matches(k, d.env.keys.Dialog.Submit):
			text := strings.TrimSpace(d.area.Value())
			if text == "" {
				d.problem = "write an answer first (esc closes; " + d.env.keys.Queries.Decline.Help().Key + " on the list declines)"
				return nil, nil
			}
			return answerAction{q: d.q, text: text}, nil
		case matches(k, d.env.keys.Dialog.Clear):
			d.area.Reset()
			return nil, nil
		case d.guess != "" && matches(k, d.env.keys.Dialog.UseGuess):
			// The guess to edit, above whatever was typed already.
			d.area.SetValue(strings.TrimSpace(d.guess+"\n"+d.area.Value()) + "\n")
			return nil, nil
		case d.question.scroll(k):
			return nil, nil
		}
	}
	var cmd tea.Cmd
	d.area, cmd = d.area.Update(msg)
	return nil, cmd
}

func (d *answerDialog) View(w, h int, env *env) string {
	inner, bh := dialogSize(w, h)
	state := d.q.State
	if d.q.State == agent.QueryAnswered || d.q.State == agent.QueryDeclined {
		state = "already " + d.q.State + " (elsewhere, meanwhile)"
	}
	head := env.styles.Muted.Render(truncate(Sanitize(d.q.From)+" · "+priorityLabel(d.q.Priority)+" · "+
		state+" · "+ago(env.now, d.q.ReceivedAt), inner))
	k := env.keys
	parts := []string{helpKeys(k.Dialog.Submit), helpKeys(k.Dialog.Clear), helpKeys(k.Dialog.Cancel),
		k.Queries.Decline.Help().Key + " on the list declines"}
	if d.guess != "" {
		parts = append([]string{helpKeys(k.Dialog.UseGuess)}, parts...)
	}
	foot := env.styles.Muted.Render(truncate(fitParts(parts, inner), inner))
	if d.problem != "" { // whole, as in reasonDialog
		foot = env.styles.Error.Render(strings.Join(wrap(d.problem, inner), "\n"))
	}
	// The head, the "Answer" heading and the keys line (or the problem)
	// always show; the rest is shared: the question takes up to half of
	// it (a third beside a guess), the guess what leaves the answer its
	// few lines, the answer the rest.
	free := max(0, bh-2-3-strings.Count(foot, "\n"))
	qRoom := free / 2
	if d.guess != "" {
		qRoom = free / 3
	}
	question := d.question.show(wrap(Sanitize(d.q.Text), inner), max(2, qRoom), inner, "the question", env)
	left := free - len(question)
	guess := ""
	if d.guess != "" {
		// Its heading and at least maxGuessLines, or as much as leaves
		// the answer minAnswerLines; never the answer's last line (a
		// short terminal drops the guess first: ctrl+g still takes it).
		lines := wrap(Sanitize(d.guess), inner)
		if most := min(max(maxGuessLines, left-1-minAnswerLines), left-2); most >= 1 {
			if len(lines) > most {
				lines = append(lines[:most-1], truncate(lines[most-1]+" …", inner))
			}
			guess = env.styles.Header.Render("The secretary's guess (not sent)") + "\n" +
				env.styles.Muted.Render(strings.Join(lines, "\n")) + "\n"
		}
	}
	areaH := max(1, left-strings.Count(guess, "\n"))
	d.area.SetWidth(inner)
	d.area.SetHeight(areaH)
	body := head + "\n" + strings.Join(question, "\n") + "\n" + guess + env.styles.Header.Render("Answer") + "\n" +
		d.area.View() + "\n" + foot
	return dialogFrame("Answer query "+Sanitize(d.q.ID), body, w, h, h, env)
}

// textWindow shows wrapped lines in at most room lines. When there are
// more, a window of them shows from top, with a last line saying which
// lines those are, and pgup/pgdown move it. The keys themselves, not the
// list's page bindings: those may be rebound to letters, which the
// dialog's field takes as text.
type textWindow struct {
	// top is the first line shown; page is how many the last frame
	// showed (0: everything fit), set by show since only View knows the size.
	top, page int
}

// scroll moves the window a page for pgup/pgdown and reports whether k
// was one of them while there was something to scroll.
func (t *textWindow) scroll(k tea.KeyPressMsg) bool {
	switch {
	case t.page == 0:
		return false
	case k.String() == "pgdown":
		t.top += t.page // show clamps it
	case k.String() == "pgup":
		t.top = max(0, t.top-t.page)
	default:
		return false
	}
	return true
}

// show returns the lines to draw, what names the text in the hint.
func (t *textWindow) show(lines []string, room, w int, what string, env *env) []string {
	if len(lines) <= room {
		t.top, t.page = 0, 0
		return lines
	}
	t.page = room - 1
	t.top = max(0, min(t.top, len(lines)-t.page))
	shown := lines[t.top : t.top+t.page]
	hint := fmt.Sprintf("lines %d–%d of %d · pgup/pgdown scroll %s", t.top+1, t.top+t.page, len(lines), what)
	return append(shown, env.styles.Muted.Render(truncate(hint, w)))
}
