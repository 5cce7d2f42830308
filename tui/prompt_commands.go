package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/internal/suggest"
	"github.com/charmbracelet/x/ansi"
)

// promptCommand is a parsed prompt line.
type promptCommand struct {
	name  string // ask, task, focus, trust, answer, decline, release, note, reply, discover, reload, outbox, errors, help, quit
	ask   agent.AskRequest
	task  agent.TaskRequest
	on    bool
	trust agent.TrustRequest
	id    string
	text  string
}

func commandNames() []string {
	return []string{"answer", "decline", "discover", "errors", "focus", "help", "note", "outbox", "quit", "release", "reload", "reply", "task", "trust"}
}

// reloadErrorTitle names the dialog listing why a reload was refused.
const reloadErrorTitle = "Config not reloaded"

// promptUsage is shown for :help and after a mistake.
const promptUsage = "@AGENT [!low|!high|!critical] [--scope a,b] question · :task AGENT TYPE k=v… · :focus on|off · :trust AGENT FINGERPRINT [ENDPOINT [ROLE]] · " +
	":answer ID text · :decline ID reason · :release [ID] · :note text · :reply ID text · :discover · :reload · :outbox · :errors · :help · :quit"

// parsePrompt parses one prompt line. Errors say how to write it instead.
func parsePrompt(line string) (promptCommand, error) {
	line = strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "@"):
		to, text, _ := strings.Cut(line[1:], " ")
		scope, text, err := askScope(strings.TrimSpace(text))
		if err != nil {
			return promptCommand{}, err
		}
		priority, text, err := askPriority(text)
		if err != nil {
			return promptCommand{}, err
		}
		if len(scope) == 0 {
			if scope, text, err = askScope(text); err != nil { // after the priority too
				return promptCommand{}, err
			}
		}
		if to == "" || text == "" {
			return promptCommand{}, errors.New("write @AGENT followed by the question, e.g. @eng-suzuki how is auth going? (!low first for one that can wait)")
		}
		// Agent ids are lower-case: @ENG means eng.
		return promptCommand{name: "ask", ask: agent.AskRequest{To: strings.ToLower(to), Query: text, Priority: priority, Async: true, ContextScope: scope}}, nil
	case strings.HasPrefix(line, ":"):
		return parseColon(strings.Fields(line[1:]), line)
	}
	return promptCommand{}, errors.New("start with @ to ask a peer or : for a command (:help lists them)")
}

// askScope takes a leading "--scope a,b" (or "--scope=a,b") off a
// question: the contexts or folders it is about, as `aoi query --scope`
// takes them (a peer a folder rule lets into part of a context must name
// it; the second walk's QA could not from the interface). A --scope that
// names nothing is refused with how to write it (the fourteenth walk's
// got the general usage line).
func askScope(text string) (scope []string, rest string, err error) {
	word, after, _ := strings.Cut(text, " ")
	value, inline := strings.CutPrefix(word, "--scope=")
	if !inline {
		if word != "--scope" {
			return nil, text, nil
		}
		value, after, _ = strings.Cut(strings.TrimSpace(after), " ")
	}
	for _, s := range strings.Split(value, ",") {
		if s = strings.TrimSpace(s); s != "" {
			scope = append(scope, s)
		}
	}
	if len(scope) == 0 {
		return nil, text, errors.New("--scope names the contexts or folders the question is about, before it: @eng-suzuki --scope acme/webapp how is auth going?")
	}
	return scope, strings.TrimSpace(after), nil
}

// askPriority takes a leading "!low", "!normal", "!high" or "!critical"
// off a question: during the peer's focus hours a low one that its
// secretary cannot answer waits instead of ringing it ("" when none).
// Any case is taken (!LOW); another word after "!" is refused, not sent
// as part of the question at normal priority.
func askPriority(text string) (priority, rest string, err error) {
	word, after, _ := strings.Cut(text, " ")
	p, marked := strings.CutPrefix(word, "!")
	if !marked || p == "" {
		return "", text, nil
	}
	switch p = strings.ToLower(p); p {
	case "low", "normal", "high", "critical":
		return p, strings.TrimSpace(after), nil
	}
	return "", text, fmt.Errorf("!%s is no priority: use !low, !high or !critical (or none, for normal)", p)
}

// offeredTasks says what task types a peer offers this agent, with their
// parameters (the second walk's `:task eng` got the usage line).
func offeredTasks(peers []agent.Peer, id string) string {
	i := slices.IndexFunc(peers, func(p agent.Peer) bool { return Sanitize(p.AgentID) == id })
	switch {
	case i < 0:
		return "no peer " + id + " here (tab completes ids)"
	case len(peers[i].TaskTypes) == 0:
		return id + " offers you no task types (as it last announced; :discover asks again)"
	}
	return id + " offers: " + Sanitize(taskTypesText(peers[i])) + " · :task " + id + " TYPE key=value…"
}

// questionProblem says why the id after :answer, :decline or :release
// names no one question ("" when it does, or when the interface has not
// read them all and cannot tell): the start of several ids, or of none. The core
// answered both with "no query", and the bar closed on the answer typed
// after the id (the fifth walk's `:answer q-01a2372 …`, a start tab had
// left, shared by 34 questions).
func questionProblem(c promptCommand, p *queriesPane) string {
	qs := p.rows
	if !p.loaded || c.id == "" || (c.name != "answer" && c.name != "decline" && c.name != "release") {
		return ""
	}
	if _, ok := agent.QueryByIDStart(qs, c.id); ok {
		return ""
	}
	switch n := agent.QueriesStartingWith(qs, c.id); {
	case n > 1:
		return c.id + " starts the ids of " + itoa(n) + " questions: type more of it (tab lists them)"
	case len(qs) < queryLimit: // the list is whole: the core has none either
		return "no question's id starts with " + c.id + ": tab completes the id of one waiting for you"
	}
	return ""
}

// unknownPeer says why the peer a command asks is not one this agent
// knows ("" when it is, or when no peer list has been read yet): the bar
// stays open with the line, to mend the id rather than retype it.
func unknownPeer(c promptCommand, peers []agent.Peer, self string) string {
	to := c.ask.To
	switch c.name {
	case "task":
		to = c.task.To
	case "tasktypes":
		to = c.id
	}
	if (c.name != "ask" && c.name != "task" && c.name != "tasktypes") || len(peers) == 0 {
		return ""
	}
	ids := agentIDs(peers)
	if slices.Contains(ids, to) {
		return ""
	}
	if to == self && self != "" { // the fourteenth walk's :task eng-suzuki, from eng-suzuki
		return to + " is this agent: " + map[bool]string{true: "@", false: ":task"}[c.name == "ask"] +
			" asks a peer (tab completes their ids)"
	}
	if near := suggest.LooseAll(to, ids); len(near) > 0 { // @engg, @suzuki: eng-suzuki (and eng-sato)
		return "no peer " + to + " here — did you mean " + oneOf(near) + "? (tab completes ids)"
	}
	return "no peer " + to + " here (tab completes ids; :discover looks for new ones)"
}

// maxOffered is how many ids a "did you mean" names before it counts
// the rest: the line must fit the bar at 60 columns.
const maxOffered = 3

// oneOf names candidates as a choice: "a", "a or b", "a, b or c", and
// past maxOffered "a, b, c or 2 more" (tab lists them all).
func oneOf(cands []string) string {
	if len(cands) > maxOffered {
		return strings.Join(cands[:maxOffered], ", ") + " or " + itoa(len(cands)-maxOffered) + " more"
	}
	if len(cands) == 1 {
		return cands[0]
	}
	return strings.Join(cands[:len(cands)-1], ", ") + " or " + cands[len(cands)-1]
}

// taskProblem says why the peer would refuse a `:task` line's parameters,
// by what it last announced of them (agent.Peer.TaskRequestProblem): the
// bar stays open with the line to mend, rather than the refusal coming
// back after the round trip ("" when nothing is wrong or it cannot tell).
func taskProblem(c promptCommand, peers []agent.Peer) string {
	i := slices.IndexFunc(peers, func(p agent.Peer) bool { return p.AgentID == c.task.To })
	if c.name != "task" || i < 0 {
		return ""
	}
	if problem := peers[i].TaskRequestProblem(c.task.TaskType, c.task.Params); problem != "" {
		return Sanitize(problem) + " — by what it last announced; :discover asks again"
	}
	return ""
}

func parseColon(f []string, line string) (promptCommand, error) {
	if len(f) == 0 {
		return promptCommand{}, errors.New("type a command after ':' — :help lists them")
	}
	rest := func(n int) string { return restAfter(line, n) }
	switch f[0] {
	case "task":
		return parseTask(f[1:])
	case "focus":
		if len(f) != 2 || (f[1] != "on" && f[1] != "off") {
			return promptCommand{}, errors.New("write :focus on or :focus off")
		}
		return promptCommand{name: "focus", on: f[1] == "on"}, nil
	case "trust":
		return parseTrust(f[1:])
	case "answer", "decline":
		// The asker reads the text: an answer, or why there is none.
		if len(f) < 3 {
			return promptCommand{}, questionUsage{cmd: f[0]}
		}
		return promptCommand{name: f[0], id: f[1], text: rest(2)}, nil
	case "release":
		if len(f) > 2 {
			return promptCommand{}, errors.New("write :release for all buffered queries or :release QUERY-ID")
		}
		c := promptCommand{name: "release"}
		if len(f) == 2 {
			c.id = f[1]
		}
		return c, nil
	case "note":
		if len(f) < 2 {
			return promptCommand{}, errors.New("write :note followed by the note")
		}
		return promptCommand{name: "note", text: rest(1)}, nil
	case "reply":
		// The colleague's assistant reads it: a message, by its ID.
		if len(f) < 3 {
			return promptCommand{}, errors.New("write :reply ID text, ID being the message's ID (its detail shows it, as aoi messages and aoi inbox do)")
		}
		return promptCommand{name: "reply", id: f[1], text: rest(2)}, nil
	case "discover", "reload", "outbox", "errors", "help", "quit", "q":
		name := f[0]
		if name == "q" {
			name = "quit"
		}
		return promptCommand{name: name}, nil
	}
	if near := suggest.Typo(f[0], commandNames()); near != "" {
		return promptCommand{}, fmt.Errorf("unknown command :%s — did you mean :%s? (:help lists the commands)", f[0], near)
	}
	return promptCommand{}, fmt.Errorf("unknown command :%s — :help lists the commands", f[0])
}

// parseTrust reads AGENT FINGERPRINT [ENDPOINT [ROLE]]. The fingerprint
// may be pasted as the Peers pane shows it, in several groups: the words
// after AGENT are taken as the fingerprint until they hold its 64 hex
// digits.
func parseTrust(f []string) (promptCommand, error) {
	const usage = "write :trust AGENT FINGERPRINT [ENDPOINT [ROLE]] (the fingerprint as `aoi id` or the Peers pane shows it)"
	if len(f) < 2 {
		return promptCommand{}, errors.New(usage)
	}
	fp, n := fingerprintWords(f[1:])
	if digits := hexDigitsLeading(f[1:]); len(fp) != 64 && digits > 0 && digits != 64 {
		return promptCommand{}, fmt.Errorf("that fingerprint has %d hex digits, not 64: paste it whole, all eight groups, as the Peers pane or `aoi id` shows it", digits)
	}
	rest := f[1+n:]
	if len(rest) > 2 {
		return promptCommand{}, errors.New(usage)
	}
	req := agent.TrustRequest{AgentID: f[0], Fingerprint: fp, Announce: true}
	if len(rest) >= 1 {
		req.Endpoint = rest[0]
	}
	if len(rest) == 2 {
		req.Role = rest[1]
	}
	return promptCommand{name: "trust", trust: req}, nil
}

// fingerprintWords joins the leading words that make up one fingerprint
// (64 hex digits, grouped or not) and says how many it took. When they do
// not add up to one, the first word is the fingerprint, and the core says
// what is wrong with it.
func fingerprintWords(f []string) (string, int) {
	for n := 1; n <= len(f); n++ {
		if fp, err := agent.NormalizeFingerprint(strings.Join(f[:n], " ")); err == nil {
			return fp, n
		}
	}
	return f[0], 1
}

// hexDigitsLeading counts the hex digits in the leading words that look
// like parts of a fingerprint (hex, maybe with colons, dashes or a
// "sha256:" prefix), so a fingerprint pasted short is named as such
// instead of being taken for an endpoint.
func hexDigitsLeading(f []string) int {
	digits := 0
	for _, w := range f {
		w = strings.NewReplacer(":", "", "-", "").Replace(strings.TrimPrefix(strings.ToLower(w), "sha256:"))
		if w == "" || strings.Trim(w, "0123456789abcdef") != "" {
			break
		}
		digits += len(w)
	}
	return digits
}

// restAfter returns line after its first n space-separated words, keeping
// the spacing inside the remainder.
func restAfter(line string, n int) string {
	s := strings.TrimSpace(line)
	for i := 0; i < n; i++ {
		_, s, _ = strings.Cut(s, " ")
		s = strings.TrimLeft(s, " ")
	}
	return strings.TrimSpace(s)
}

// errTaskUsage is parseTask's answer to `:task` alone, with an example
// that names no peer in particular: the model says taskUsage instead,
// with a peer it knows and a task type that peer offers.
var errTaskUsage = errors.New("write :task AGENT TYPE key=value…, e.g. :task eng-suzuki run_tests suite=./auth/...")

// noTaskOffered is taskUsage with no peer known to offer a task type.
const noTaskOffered = "write :task AGENT TYPE key=value… — no peer has offered you a task type yet " +
	"(as each last announced; :discover asks again, :task AGENT lists what one offers)"

// taskUsage says how to write a task request, with an example of a peer
// that offers this agent a task type (an online one first), its first
// type and that type's required parameters (the walk read "e.g. :task
// eng-suzuki …" inside eng-suzuki's own interface). When no peer is known
// to offer one it says so rather than give errTaskUsage's example, which
// names eng-suzuki too (the fifth walk's eng-suzuki read it again).
func taskUsage(peers []agent.Peer) string {
	best := -1
	for i, p := range peers {
		if p.Trust == agent.TrustPending || p.AgentID == "" || len(p.TaskTypes) == 0 {
			continue
		}
		if best < 0 || (peers[best].Status == agent.PeerOffline && p.Status != agent.PeerOffline) {
			best = i
		}
	}
	if best < 0 {
		return noTaskOffered
	}
	p := peers[best]
	example := ":task " + Sanitize(p.AgentID) + " " + Sanitize(p.TaskTypes[0])
	for _, tp := range p.TaskParams[p.TaskTypes[0]] {
		if !tp.Required {
			continue
		}
		value := "…"
		if len(tp.Enum) > 0 {
			value = tp.Enum[0]
		}
		example += " " + Sanitize(tp.Name) + "=" + Sanitize(value)
	}
	return "write :task AGENT TYPE key=value…, e.g. " + example + " (:task AGENT lists what a peer offers)"
}

func parseTask(f []string) (promptCommand, error) {
	if len(f) == 1 {
		// ":task AGENT": what it offers, as `aoi task AGENT` lists it.
		return promptCommand{name: "tasktypes", id: strings.ToLower(f[0])}, nil
	}
	if len(f) < 2 {
		return promptCommand{}, errTaskUsage
	}
	req := agent.TaskRequest{To: strings.ToLower(f[0]), TaskType: f[1]}
	for _, kv := range f[2:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return promptCommand{}, fmt.Errorf("task parameter %q is not key=value", kv)
		}
		if req.Params == nil {
			req.Params = map[string]string{}
		}
		req.Params[k] = v
	}
	return promptCommand{name: "task", task: req}, nil
}

// askedMsg is the immediate outcome of an ad hoc query.
type askedMsg struct {
	req agent.AskRequest
	res agent.AskResult
	err error
}

// taskRequestedMsg is the immediate outcome of a task request.
type taskRequestedMsg struct {
	req    agent.TaskRequest
	ticket agent.TaskTicket
	err    error
}

// blankPrompt reports whether line holds nothing past the bar's prefix.
func blankPrompt(line string) bool { return line == "" || line == ":" || line == "@" }

// questionUsage is parseColon's answer to :answer or :decline without an
// id and a text.
type questionUsage struct{ cmd string }

func (e questionUsage) Error() string {
	return fmt.Sprintf("write :%s QUERY-ID %s", e.cmd, map[string]string{
		"answer": "text", "decline": "reason (the asker reads it)"}[e.cmd])
}

// promptProblem is what the bar says of a line parsePrompt refused.
func (m *Model) promptProblem(err error) string {
	if errors.Is(err, errTaskUsage) {
		return taskUsage(m.knownPeers)
	}
	var usage questionUsage
	if errors.As(err, &usage) && len(m.completions().waiting) == 0 {
		// How to write it would not help: there is nothing to answer.
		return noQuestionWaiting(usage.cmd)
	}
	return err.Error()
}

// noQuestionWaiting says that no question waits for :answer or :decline,
// and where one will show.
func noQuestionWaiting(cmd string) string {
	return "no question is waiting for you to " + cmd + ": a colleague's question shows in Queries (Interrupts in focus time) " +
		"when it arrives, and :" + cmd + " then takes its id (tab completes it)"
}

// runPrompt executes a prompt line.
func (m *Model) runPrompt(line string) tea.Cmd {
	if blankPrompt(line) {
		return nil
	}
	c, err := parsePrompt(line)
	if err != nil {
		m.failAction(m.promptProblem(err), nil)
		return nil
	}
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	switch c.name {
	case "ask":
		req := c.ask
		m.info("asking " + req.To + "…")
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, to)
			defer cancel()
			res, err := svc.Ask(ctx, req)
			return askedMsg{req: req, res: res, err: err}
		}
	case "tasktypes":
		m.info(offeredTasks(m.knownPeers, c.id))
		return nil
	case "task":
		req := c.task
		m.info("asking " + req.To + " to run " + req.TaskType + "…")
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(ctx, to)
			defer cancel()
			t, err := svc.RequestTask(ctx, req)
			return taskRequestedMsg{req: req, ticket: t, err: err}
		}
	case "help":
		m.pushDialog(newHelpDialog())
		return nil
	case "errors":
		m.pushDialog(newDetailDialog("Errors, newest first", m.errorsText()))
		return nil
	case "quit":
		return tea.Quit
	}
	return m.simpleCommand(c)
}

// simpleCommand runs the prompt commands that are one service call.
func (m *Model) simpleCommand(c promptCommand) tea.Cmd {
	switch c.name {
	case "focus":
		word := map[bool]string{true: "on", false: "off"}[c.on]
		return m.callAs("focus mode "+word, "turning focus mode "+word, dStatus, func(ctx context.Context, s Service) error {
			return s.SetFocus(ctx, agent.FocusRequest{On: c.on})
		})
	case "trust":
		return m.runAction(trustAction{p: agent.Peer{AgentID: c.trust.AgentID, Fingerprint: c.trust.Fingerprint, Endpoint: c.trust.Endpoint, Role: c.trust.Role}})
	case "answer":
		return m.runAction(answerAction{q: m.queries.byID(c.id), text: c.text})
	case "decline":
		return m.runAction(declineAction{q: m.queries.byID(c.id), reason: c.text})
	case "release":
		return m.runAction(releaseAction{q: m.queries.byID(c.id)})
	case "note":
		return m.callAs("note saved", "saving the note", 0, func(ctx context.Context, s Service) error {
			_, err := s.Note(ctx, agent.NoteRequest{Text: c.text})
			return err
		})
	case "reply":
		return m.reply(c.id, c.text)
	case "discover":
		return m.discover()
	case "outbox":
		return m.showOutbox()
	case "reload":
		return m.reloadConfig()
	}
	return nil
}

// discover announces to the known peers and says what it found.
func (m *Model) discover() tea.Cmd {
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	m.info("discovering peers…")
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, to)
		defer cancel()
		peers, err := svc.Discover(ctx)
		trusted, online := 0, 0
		for _, p := range peers {
			if p.Trust == agent.TrustPending {
				continue // a caller asking for trust is no peer yet
			}
			trusted++
			if p.Status != agent.PeerOffline && !p.RefusesUs {
				online++
			}
		}
		return doneMsg{what: fmt.Sprintf("discovery done: %s, %d online", countOf(trusted, "peer", "peers"), online),
			failed: "discovering peers", err: err, refresh: dPeers | dStatus}
	}
}

// reloadConfig asks the core to re-read its config and shows what changed,
// or why the file was refused (the running config then stays).
func (m *Model) reloadConfig() tea.Cmd {
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	m.info("reloading the config…")
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, to)
		defer cancel()
		rep, err := svc.Reload(ctx)
		if err != nil {
			return reloadedMsg{err: err}
		}
		return reloadedMsg{text: rep.String()}
	}
}

// reloadedMsg is the outcome of :reload.
type reloadedMsg struct {
	text string
	err  error
}

// handleReloaded shows what the reload changed or why the file was
// refused. A validation error names a JSON path and the fix, and a reload
// may list several changes: when that does not fit the notice line it is
// shown whole in a dialog as well, so it can be read.
func (m *Model) handleReloaded(msg reloadedMsg) tea.Cmd {
	title, text := "Config reloaded", Sanitize(msg.text)
	if msg.err != nil {
		// One problem a line, as aoi config validate prints them: the
		// notice runs them together, the dialog must not.
		var lines []string
		for _, l := range strings.Split(msg.err.Error(), "\n") {
			l = errGist(Sanitize(l))
			if _, rest, found := strings.Cut(l, "config not reloaded, the running one stays: "); found {
				l = rest // the title and first line say it
			}
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
		title, text = reloadErrorTitle, "The running config stays. Fix this, then :reload:\n"+strings.Join(lines, "\n")
		// The dialog below lists the problems; the notice line would
		// only say them a second time. :errors keeps the error whole.
		m.logError("reload failed: " + msg.err.Error())
		// Not "reloading the config…" under a dialog saying it failed.
		m.info("config not reloaded: the running one stays")
	} else {
		m.info(text)
	}
	if ansi.StringWidth(text) > m.width || strings.Contains(text, "\n") {
		m.pushDialog(newDetailDialog(title, text))
	}
	if msg.err != nil {
		return nil
	}
	return m.markDirty(dAll)
}

// handleAsked shows an immediate answer, or remembers the query so its
// answer is shown when the peer's message arrives, however late.
func (m *Model) handleAsked(msg askedMsg) tea.Cmd {
	to := Sanitize(msg.req.To)
	if msg.err != nil {
		m.failAction("asking "+to+" failed", msg.err)
		return nil
	}
	var r struct {
		Completed bool           `json:"completed"`
		Status    string         `json:"status"`
		Metadata  map[string]any `json:"metadata"`
	}
	_ = json.Unmarshal(msg.res.Result, &r)
	if r.Completed {
		m.peerNotice("↩ " + to + ": " + messageText(msg.res.Result))
		return nil
	}
	m.asks[msg.res.QueryID] = truncateWords(Sanitize(msg.req.Query), 40)
	if r.Metadata["state"] == agent.AskQueued {
		m.info(to + " is offline: the question is queued and goes out when it is back; the answer will show in Messages")
	} else {
		m.info("asked " + to + "; the answer will show in Messages when it arrives")
	}
	return m.markDirty(dMessages | dStatus) // the status lists it as waiting
}

func (m *Model) handleTaskRequested(msg taskRequestedMsg) {
	to := Sanitize(msg.req.To)
	if msg.err != nil {
		m.failAction("task request to "+to+" failed", msg.err)
		return
	}
	m.asks[msg.ticket.RequestID] = Sanitize(msg.req.Label())
	m.info(taskRequestedText(to, Sanitize(msg.req.TaskType), Sanitize(msg.ticket.Status)))
}

// taskRequestedText says where a task request stands, the status first
// (the task id is in the result when it comes): "waiting for" is not
// "accepted".
func taskRequestedText(to, taskType, status string) string {
	switch status {
	case agent.AskQueued:
		return to + " is offline: " + taskType + " is queued and goes out when it is back; the result will show in Messages"
	case agent.TaskPending:
		return taskType + " on " + to + " waits for approval; the result will show in Messages"
	case agent.TaskApproved, agent.TaskInProgress:
		return taskType + " on " + to + " is running; the result will show in Messages"
	}
	return taskType + " on " + to + ": " + status + "; the result will show in Messages"
}
