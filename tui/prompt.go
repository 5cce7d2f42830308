package tui

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/internal/suggest"
)

// maxHistory bounds the prompt history, as the core does what it keeps.
const maxHistory = agent.PromptHistoryKeep

// promptBar is the one-line command and ask field with history and
// completion.
type promptBar struct {
	env      *env
	input    textinput.Model
	hist     []string
	histAt   int // len(hist) when not browsing
	draft    string
	returnTo focus
	// choices, when tab found several candidates and could complete no
	// further, lists them after the input until the next key.
	choices string
	// problem, when enter found the line malformed, says why after the
	// input until the next key.
	problem string
}

func newPromptBar(e *env) *promptBar {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = 4000
	p := &promptBar{env: e, input: in}
	p.restyle()
	return p
}

func (p *promptBar) restyle() {
	st := p.input.Styles()
	st.Focused.Text = p.env.styles.Text
	st.Blurred.Text = p.env.styles.Muted
	p.input.SetStyles(st)
}

func (p *promptBar) setWidth(w int) { p.input.SetWidth(max(1, w-4)) }

// open focuses the field with a prefix (":" or "@").
func (p *promptBar) open(prefix string, back focus) tea.Cmd {
	p.returnTo = back
	p.input.SetValue(prefix)
	p.input.CursorEnd()
	p.histAt = len(p.hist)
	return p.input.Focus()
}

// close blurs the field and returns the pane to focus again.
func (p *promptBar) close() focus {
	p.input.Blur()
	p.input.SetValue("")
	p.choices, p.problem = "", ""
	return p.returnTo
}

func (p *promptBar) value() string { return strings.TrimSpace(p.input.Value()) }

// typed reports whether the owner wrote anything after the prefix the
// prompt bar opened with.
func (p *promptBar) typed() bool {
	v := p.value()
	return v != "" && v != ":" && v != "@"
}

func (p *promptBar) updateInput(msg tea.Msg) tea.Cmd {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg:
		p.choices = "" // typing answers them; a cursor blink does not
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd
}

// remember adds a line to the history, skipping repeats. It reports
// whether the line was added (and so is worth storing).
func (p *promptBar) remember(line string) bool {
	if blankPrompt(line) {
		return false
	}
	if n := len(p.hist); n > 0 && p.hist[n-1] == line {
		return false
	}
	p.hist = append(p.hist, line)
	p.trimHistory()
	p.histAt = len(p.hist)
	return true
}

// restore puts the lines stored by earlier sessions (oldest first) before
// whatever was typed since this one started.
func (p *promptBar) restore(stored []string) {
	browsing := p.histAt < len(p.hist)
	old := make([]string, 0, len(stored))
	for _, l := range stored {
		if l = Sanitize(l); l != "" {
			old = append(old, l)
		}
	}
	p.hist = append(old, p.hist...)
	p.trimHistory()
	if browsing {
		p.histAt = min(len(p.hist), p.histAt+len(old))
	} else {
		p.histAt = len(p.hist)
	}
}

func (p *promptBar) trimHistory() {
	if len(p.hist) > maxHistory {
		cut := len(p.hist) - maxHistory
		p.hist = p.hist[cut:]
		p.histAt = max(0, p.histAt-cut)
	}
}

// history moves through earlier lines (dir -1 older, +1 newer).
func (p *promptBar) history(dir int) {
	if len(p.hist) == 0 {
		return
	}
	if p.histAt == len(p.hist) {
		p.draft = p.input.Value()
	}
	p.histAt = max(0, min(len(p.hist), p.histAt+dir))
	if p.histAt == len(p.hist) {
		p.input.SetValue(p.draft)
	} else {
		p.input.SetValue(p.hist[p.histAt])
	}
	p.input.CursorEnd()
}

// completions is what the prompt bar completes from.
type completions struct {
	peers []agent.Peer
	// waiting are the ids of the questions waiting for the owner (the
	// ones :answer and :decline take); releasable, those :release takes
	// (the buffered ones, and the escalated ones whose draft found work).
	waiting, releasable []string
	// askers names who asked each of those questions, for the list of
	// candidates (their ids differ only late: they start with the time).
	askers map[string]string
}

// complete completes the word before the cursor from agent ids and task
// types known from discovery, or the ids of the questions waiting.
func (p *promptBar) complete(c completions) {
	next, ok, several := completeLine(p.input.Value(), c)
	if ok {
		p.input.SetValue(next)
		p.input.CursorEnd()
	}
	p.choices = ""
	if len(several) > 1 {
		p.choices = fmt.Sprintf("%d match: %s", len(several), strings.Join(labelled(several, c.askers), " · "))
	}
}

// labelled shows candidates that are question ids by what tells them
// apart: the characters after the part they share, between dots because
// the id goes on both sides ("…ece698… pm-tanaka": type ece6 next; the
// walk read "…ece698" as the id's end), and who asked. Other candidates
// stay as they are.
func labelled(cands []string, askers map[string]string) []string {
	shared := len(commonPrefix(cands))
	out := make([]string, len(cands))
	for i, c := range cands {
		who, ok := askers[c]
		if !ok {
			out[i] = c
			continue
		}
		tail := c[shared:]
		if len(tail) > 6 {
			tail = tail[:6] + "…"
		}
		out[i] = "…" + tail + " " + who
	}
	return out
}

// completeLine completes the last word of line: an agent id after "@", as
// the first argument of :task and :trust, a task type as :task's second, or
// a question's id as the first argument of :answer, :decline and :release.
// When several candidates remain it also returns them, to be shown.
func completeLine(line string, c completions) (next string, ok bool, several []string) {
	fields := strings.Fields(line)
	if len(fields) == 0 || strings.HasSuffix(line, " ") {
		fields = append(fields, "")
	}
	word := fields[len(fields)-1]
	head := line[:len(line)-len(word)]
	var cands []string
	prefix, ids := "", false
	switch {
	case len(fields) == 1 && strings.HasPrefix(word, "@"):
		prefix, word, ids = "@", word[1:], true
		cands = agentIDs(c.peers)
	case len(fields) == 1 && strings.HasPrefix(word, ":"):
		prefix, word = ":", word[1:]
		cands = commandNames()
	case len(fields) == 2 && (fields[0] == ":task" || fields[0] == ":trust"):
		cands, ids = agentIDs(c.peers), true
	case len(fields) == 2 && (fields[0] == ":answer" || fields[0] == ":decline"):
		cands = c.waiting
	case len(fields) == 2 && fields[0] == ":release":
		cands = c.releasable
	case len(fields) == 3 && fields[0] == ":task":
		cands = taskTypes(c.peers, fields[1])
	case len(fields) >= 4 && fields[0] == ":task":
		cands = paramCandidates(c.peers, fields[1], fields[2], fields[3:len(fields)-1], word)
	}
	match := matching(cands, word)
	if len(match) == 0 && ids {
		return looseCompletion(head+prefix, line, word, cands)
	}
	if len(match) == 0 {
		return line, false, nil
	}
	done := commonPrefix(match)
	if len(match) == 1 && !strings.HasSuffix(done, "=") { // a parameter's value comes next
		done += " "
	} else if len(match) > 1 {
		several = match
	}
	if done == word {
		return line, false, several
	}
	return head + prefix + done, true, several
}

// looseCompletion completes an agent id typed mistyped or from its middle
// (@engg, @suzuki) from the ids it fits as well as any (suggest.LooseAll):
// the one there is, else what they share, listing them to pick from; with
// none the line stays as it is. head is the line before the id.
func looseCompletion(head, line, word string, ids []string) (next string, ok bool, several []string) {
	match := suggest.LooseAll(word, ids)
	switch len(match) {
	case 0:
		return line, false, nil
	case 1:
		return head + match[0] + " ", true, nil
	}
	if shared := commonPrefix(match); shared != "" && shared != word {
		return head + shared, true, match // @engg: @eng-, then eng-sato · eng-suzuki
	}
	return line, false, match
}

func agentIDs(peers []agent.Peer) []string {
	var ids []string
	for _, p := range peers {
		if p.AgentID != "" {
			ids = append(ids, Sanitize(p.AgentID))
		}
	}
	sort.Strings(ids)
	return ids
}

func taskTypes(peers []agent.Peer, id string) []string {
	var out []string
	for _, p := range peers {
		if Sanitize(p.AgentID) == id {
			for _, t := range p.TaskTypes {
				out = append(out, Sanitize(t))
			}
		}
	}
	sort.Strings(out)
	return out
}

// paramCandidates are what may follow `:task PEER TYPE …`: "name=" for
// each parameter the peer said TYPE takes and the line does not set yet,
// or, once word has its "=", "name=value" for each value it allows.
func paramCandidates(peers []agent.Peer, id, taskType string, set []string, word string) []string {
	i := slices.IndexFunc(peers, func(p agent.Peer) bool { return Sanitize(p.AgentID) == id })
	if i < 0 {
		return nil
	}
	given := map[string]bool{}
	for _, f := range set {
		name, _, _ := strings.Cut(f, "=")
		given[name] = true
	}
	var out []string
	for _, p := range peers[i].TaskParams[taskType] {
		name := Sanitize(p.Name)
		if before, _, hasValue := strings.Cut(word, "="); hasValue {
			if before == name {
				for _, v := range p.Enum {
					out = append(out, name+"="+Sanitize(v))
				}
			}
			continue
		}
		if !given[name] {
			out = append(out, name+"=")
		}
	}
	sort.Strings(out)
	return out
}

func matching(cands []string, word string) []string {
	var out []string
	for _, c := range cands {
		if strings.HasPrefix(c, word) {
			out = append(out, c)
		}
	}
	return out
}

func commonPrefix(ss []string) string {
	p := []rune(ss[0])
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, string(p)) {
			p = p[:len(p)-1]
		}
	}
	return string(p)
}

// lineTail is the end of a rendered line that shows nothing but spaces:
// spaces and style codes.
var lineTail = regexp.MustCompile("(?: |\x1b\\[[0-9;]*m)+$")

// trimPadding cuts the run of spaces a text input pads itself with from
// the end of line, styled or not (terminals differ in the codes around
// it). The codes stay, so styles still end where they did, and so does the
// cursor: a single reverse-video space.
func trimPadding(line string) string {
	loc := lineTail.FindStringIndex(line)
	if loc == nil {
		return line
	}
	return line[:loc[0]] + runOfSpaces.ReplaceAllString(line[loc[0]:], "")
}

var runOfSpaces = regexp.MustCompile(" {2,}")

// view renders the open prompt bar.

func (p *promptBar) view(w int) string {
	return strings.Join(p.viewLines(w), "\n")
}

// maxProblemLines is the most lines a problem with the line, or tab's
// candidates, take below the bar when they do not fit after what was
// typed.
const maxProblemLines = 3

// viewLines is the bar's lines: one, or, when what is wrong with the line
// (or tab's list of candidates) does not fit after it, the line and then
// the problem wrapped below (the third walk read "…as the P…" and could
// not find the rest).
func (p *promptBar) viewLines(w int) []string {
	line := p.env.styles.Prompt.Render("›") + " " + p.input.View()
	// The input pads itself to the bar's width; what it says goes after
	// what was typed.
	switch {
	case p.problem != "":
		return besideOrBelow(line, "✗ "+Sanitize(p.problem), p.env.styles.Error, w)
	case p.choices != "":
		return besideOrBelow(line, Sanitize(p.choices), p.env.styles.Muted, w)
	}
	return []string{fit(line, w)}
}

// besideOrBelow is the bar's line with note after what was typed, or,
// when it does not fit there, the line and then note wrapped below in up
// to maxProblemLines lines. Tab's candidates go there as a problem does:
// cut on the line, the walk's two waiting questions showed one and "·…".
func besideOrBelow(line, note string, st lipgloss.Style, w int) []string {
	typed := trimPadding(line)
	if w <= 0 || width(typed)+3+width(note) <= w {
		return []string{fit(typed+"   "+st.Render(note), w)}
	}
	lines := wrap(note, w)
	if len(lines) > maxProblemLines {
		lines = append(lines[:maxProblemLines-1], truncateWords(strings.Join(lines[maxProblemLines-1:], " "), w))
	}
	out := []string{fit(line, w)}
	for _, l := range lines {
		out = append(out, st.Render(fit(l, w)))
	}
	return out
}
