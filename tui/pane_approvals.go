package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// approvalsPane lists pending approvals (soonest expiry first), then the
// tasks this agent runs or ran for peers (newest first).
type approvalsPane struct {
	paneBase
	approvals []agent.Approval
	tasks     []agent.Task
	// arrived is the id of a request that arrived and is not loaded yet:
	// the next load selects it, so approve acts on the newest request.
	arrived string
	// newTarget is the request a load (not the owner) made the target of
	// approve, and when: a y pressed just then was meant for the one
	// before, so it names the new one instead of approving it.
	newTarget   string
	newTargetAt time.Time
	loaded      bool // the first load is done
	// widths are the columns before PARAMS, sized to the rows on screen
	// by View before it lays them out (columnWidths).
	widths []int
}

// settleFor is how long a request that a load made the target waits
// before y approves it without a second press.
const settleFor = 2 * time.Second

// noteTarget records that a load (not the owner) changed the target of
// approve: a request arrived, or took the place of one decided, cancelled
// or expired. Whatever the reason, the owner has not had it on screen, and
// a y pressed then was meant for what was shown before (a peer can cancel
// its own request and send another to race the key). The first load, at
// start, only shows what waits.
func (p *approvalsPane) noteTarget(before string, now time.Time) {
	if !p.loaded {
		p.loaded = true
		return
	}
	if a, ok := p.target(); ok && a.ID != before {
		p.newTarget, p.newTargetAt = a.ID, now
	}
}

// unsettled reports whether id became the target by a load less than
// settleFor ago, and marks it seen: the next press acts on it.
func (p *approvalsPane) unsettled(id string, now time.Time) bool {
	if id != p.newTarget || now.Sub(p.newTargetAt) >= settleFor {
		return false
	}
	p.newTarget = ""
	return true
}

func newApprovalsPane(e *env) *approvalsPane {
	return &approvalsPane{paneBase: paneBase{env: e, previewed: true}}
}

func (p *approvalsPane) n() int { return len(p.approvals) + len(p.tasks) }

// keys names each row for listState.reselect: approvals, then tasks.
func (p *approvalsPane) keys() []string {
	keys := make([]string, 0, p.n())
	for _, a := range p.approvals {
		keys = append(keys, "a"+a.ID)
	}
	for _, t := range p.tasks {
		keys = append(keys, "t"+t.ID)
	}
	return keys
}

func (p *approvalsPane) setApprovals(as []agent.Approval) {
	old := p.keys()
	var rows []agent.Approval
	for _, a := range as {
		if a.State == "" || a.State == agent.TaskPending {
			rows = append(rows, a)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ExpiresAt.Before(rows[j].ExpiresAt) })
	decided := p.selectedDecided(rows)
	p.approvals = rows
	if p.arrived != "" && p.selectApproval(p.arrived) {
		p.arrived = ""
		return
	}
	if decided && len(rows) > 0 { // the owner goes on to the next request
		p.list.cursor = 0
		return
	}
	p.list.reselect(old, p.keys())
}

// selectedDecided reports whether the selected row is a pending request
// that is no longer pending in rows: the owner (or another front end)
// just decided it.
func (p *approvalsPane) selectedDecided(rows []agent.Approval) bool {
	c := p.list.cursor
	if c >= len(p.approvals) {
		return false
	}
	id := p.approvals[c].ID
	return !slices.ContainsFunc(rows, func(a agent.Approval) bool { return a.ID == id })
}

// selectApproval moves the cursor to the pending approval id.
func (p *approvalsPane) selectApproval(id string) bool {
	for i, a := range p.approvals {
		if a.ID == id {
			p.list.cursor = i
			p.list.clamp(p.n())
			return true
		}
	}
	return false
}

// onPending reports whether the cursor is on a pending request.
func (p *approvalsPane) onPending() bool { return p.list.cursor < len(p.approvals) }

// targetID is the id of target, or "".
// byID finds a request still waiting for the owner.
func (p *approvalsPane) byID(id string) (agent.Approval, bool) {
	i := slices.IndexFunc(p.approvals, func(a agent.Approval) bool { return a.ID == id })
	if i < 0 {
		return agent.Approval{}, false
	}
	return p.approvals[i], true
}

func (p *approvalsPane) targetID() string {
	a, _ := p.target()
	return a.ID
}

// target is the approval that approve and reject act on from any pane: the
// selected one when the cursor is on a pending request, else the newest.
func (p *approvalsPane) target() (agent.Approval, bool) {
	if c := p.list.cursor; c < len(p.approvals) {
		return p.approvals[c], true
	}
	if len(p.approvals) == 0 {
		return agent.Approval{}, false
	}
	newest := p.approvals[0]
	for _, a := range p.approvals[1:] {
		if a.CreatedAt.After(newest.CreatedAt) {
			newest = a
		}
	}
	return newest, true
}

func (p *approvalsPane) setTasks(ts []agent.Task) {
	old := p.keys()
	var rows []agent.Task
	for _, t := range ts {
		if t.State != agent.TaskPending { // pending ones show as approvals
			rows = append(rows, t)
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].UpdatedAt.After(rows[j].UpdatedAt) })
	p.tasks = rows
	p.list.reselect(old, p.keys())
}

func (p *approvalsPane) Title() string {
	running := 0
	for _, t := range p.tasks {
		if t.State == agent.TaskInProgress || t.State == agent.TaskApproved {
			running++
		}
	}
	return "Approvals · " + itoa(len(p.approvals)) + " pending · " + itoa(running) + " running" + p.scrollMarker(p.n())
}

func (p *approvalsPane) Update(k tea.KeyPressMsg) action {
	if p.list.move(k, p.env.keys.List, p.n()) {
		p.newTarget = "" // the owner chose the row: y acts on what they see
		return nil
	}
	// Approve and reject are global keys (Model.decideKey): they reach
	// the target approval from any pane.
	c := p.list.cursor
	if c < len(p.approvals) && key.Matches(k, p.env.keys.List.Open) {
		return openApproval{a: p.approvals[c]}
	}
	if c < p.n() && key.Matches(k, p.env.keys.List.Open) {
		t := p.tasks[c-len(p.approvals)]
		return showDetail{title: "Task " + Sanitize(t.ID), body: taskDetail(t, p.env)}
	}
	return nil
}

func (p *approvalsPane) View() string {
	if p.n() == 0 {
		return p.empty("No approvals waiting and no tasks. Task requests from peers appear here.")
	}
	start, end := p.list.window(p.n())
	p.widths = p.columnWidths(start, end)
	lines := []string{p.header(p.columns(approvalCells{"", "FROM", "TASK", "STATE", "WHEN", "PARAMS"}))}
	for i := start; i < end; i++ {
		lines = append(lines, p.rowStyled(p.columns(p.cellsAt(i)), i == p.list.cursor, p.styleAt(i)))
	}
	label, text := p.previewOf(p.list.cursor)
	lines = p.preview(lines, label, text)
	return strings.Join(lines, "\n")
}

// previewOf is what the preview under the list shows for row i: who asks
// for what, and the parameters whole (a row cuts them), with the rule that
// allowed a request or how a task ended.
func (p *approvalsPane) previewOf(i int) (label, text string) {
	if i < len(p.approvals) {
		a := p.approvals[i]
		text = "params: " + orDefault(paramsText(a.Params), "none")
		if a.MatchedRule != "" {
			text += " · rule " + Sanitize(a.MatchedRule)
		}
		if unconfined(a) { // first, so a narrow preview cannot cut it off
			text = unconfinedShort + " · " + text
		}
		return Sanitize(a.Requester) + " · " + Sanitize(a.TaskType) + " · waits for you", text
	}
	t := p.tasks[i-len(p.approvals)]
	text = "params: " + orDefault(paramsText(t.Params), "none")
	if e := ownerError(t); e != "" {
		text += " · " + Sanitize(e)
	} else if sum := outputSummary(t.Output); sum != "" {
		text += " · " + Sanitize(sum) // how it ended: "2 run, 2 passed"
	}
	// When it last changed: a narrow pane has no WHEN column, and two runs
	// of one type read alike (the walk's failed run_tests rows).
	return Sanitize(t.Requester) + " · " + Sanitize(t.Type) + " · " + taskStateLabel(t.State) + " " + ago(p.env.now, t.UpdatedAt), text
}

// ownerError is how a task ended, told to the owner. The task's error is
// written for its requester ("the owner did not approve run_tests before
// …; ask again when they are around"); an expired or rejected request was
// the owner's own doing, so it says so in the owner's terms, with the
// reason given on rejecting.
func ownerError(t agent.Task) string {
	switch t.State {
	case agent.TaskExpired:
		return "you did not approve it before it expired"
	case agent.TaskRejected:
		if _, reason, ok := strings.Cut(t.Error, ": "); ok && reason != "" {
			return "you rejected it: " + reason
		}
		return "you rejected it"
	}
	return t.Error
}

// narrowApprovals is the pane width under which the Approvals pane drops
// its WHEN column: a half of a screen up to 142 columns wide, or a whole
// one under 72.
const narrowApprovals = 70

// approvalCells are the cells of a row of the pane.
type approvalCells struct{ glyph, from, task, state, when, params string }

// columns lays out a row of the pane: pending requests and tasks share
// the columns, so their parameters line up. A narrow pane has no WHEN
// column, so the parameters, which tell two requests of one type apart,
// keep most of the width.
func (p *approvalsPane) columns(c approvalCells) string {
	if p.w < narrowApprovals {
		return columns(p.w, p.widths, c.glyph, c.from, c.task, c.state, c.params)
	}
	return columns(p.w, p.widths, c.glyph, c.from, c.task, c.state, c.when, c.params)
}

// columnWidths sizes FROM, TASK, STATE and WHEN to the rows start..end,
// as Queries and Messages size theirs, so PARAMS gets what they leave
// (textFirst): fixed widths of 12 for FROM and WHEN left it short beside
// a column of "pm-tanaka" and "3h ago".
func (p *approvalsPane) columnWidths(start, end int) []int {
	fromW, stateW, whenW := width("FROM"), width("STATE"), width("WHEN")
	for i := start; i < end; i++ {
		c := p.cellsAt(i)
		fromW, stateW, whenW = max(fromW, width(c.from)), max(stateW, width(c.state)), max(whenW, width(c.when))
	}
	taskW := p.taskColumnW(start, end)
	if p.w < narrowApprovals {
		return textFirst(p.w, []int{1, fromW, taskW, stateW}, []int{1, fromGiveWayW, taskW, stateW})
	}
	return textFirst(p.w, []int{1, fromW, taskW, stateW, whenW}, []int{1, fromGiveWayW, taskW, stateW, whenW})
}

// The TASK column's width: at least what a short type name needs (9
// narrow, 10 wide), more when a type on screen is longer, up to a cap
// that leaves PARAMS its room. A fixed width cut the walk's list_files to
// "list_fil…" beside an empty PARAMS column.
const (
	approvalTaskW          = 10
	approvalTaskNarrowW    = 9
	approvalTaskMaxW       = 20
	approvalTaskNarrowMaxW = 14
)

// taskColumnW sizes the TASK column for rows start..end.
func (p *approvalsPane) taskColumnW(start, end int) int {
	w, most := approvalTaskW, approvalTaskMaxW
	if p.w < narrowApprovals {
		w, most = approvalTaskNarrowW, approvalTaskNarrowMaxW
	}
	for i := start; i < end; i++ {
		w = max(w, width(Sanitize(p.taskTypeAt(i))))
	}
	return min(w, most)
}

// taskTypeAt is the task type of row i: a pending request, then a task.
func (p *approvalsPane) taskTypeAt(i int) string {
	if i < len(p.approvals) {
		return p.approvals[i].TaskType
	}
	return p.tasks[i-len(p.approvals)].Type
}

// cellsAt is what row i shows: a pending request, then a task.
func (p *approvalsPane) cellsAt(i int) approvalCells {
	if i < len(p.approvals) {
		return p.approvalCells(p.approvals[i])
	}
	return p.taskCells(p.tasks[i-len(p.approvals)])
}

// styleAt is the style of row i unselected: a pending request waits for
// the owner; a task shows how it ended.
func (p *approvalsPane) styleAt(i int) lipgloss.Style {
	if i < len(p.approvals) {
		return p.env.styles.Warn
	}
	switch p.tasks[i-len(p.approvals)].State {
	case agent.TaskCompleted:
		return p.env.styles.OK
	case agent.TaskFailed, agent.TaskRejected, agent.TaskExpired, agent.TaskCanceled:
		return p.env.styles.Error
	}
	return p.env.styles.Text
}

// approvalCells is a pending request: "pending" and the time left before
// it expires (in a narrow pane, the time left in its STATE), and its
// parameters with the rule that allowed it.
func (p *approvalsPane) approvalCells(a agent.Approval) approvalCells {
	state, left := agent.TaskPending, countdown(p.env.now, a.ExpiresAt)+" left"
	switch {
	case !a.ExpiresAt.After(p.env.now):
		state, left = agent.TaskExpired, ""
	case p.w < narrowApprovals:
		state, left = left, ""
	}
	params := paramsText(a.Params)
	if a.MatchedRule != "" { // after the parameters; alone when there are none
		params = strings.TrimSpace(params + " [" + Sanitize(a.MatchedRule) + "]")
	}
	glyph := "◆"
	if unconfined(a) {
		glyph = "⚠" // runs without Landlock; the preview says so
	}
	return approvalCells{glyph, Sanitize(a.Requester), Sanitize(a.TaskType), state, left, params}
}

// taskCells is a task run or running for a peer: its state, when it last
// changed (not in a narrow pane: the preview under the list and enter show
// it), and its parameters (two runs of one type differ there).
func (p *approvalsPane) taskCells(t agent.Task) approvalCells {
	return approvalCells{taskGlyph(t.State), Sanitize(t.Requester), Sanitize(t.Type),
		taskStateLabel(t.State), ago(p.env.now, t.UpdatedAt), paramsText(t.Params)}
}

// taskStateLabel is a task's state as the STATE column shows it: a task
// in progress is "running", as the title counts it.
func taskStateLabel(s string) string {
	if s == agent.TaskInProgress {
		return "running"
	}
	return Sanitize(s)
}

func taskGlyph(s string) string {
	switch s {
	case agent.TaskInProgress, agent.TaskApproved:
		return "▶"
	case agent.TaskCompleted:
		return "✓"
	case agent.TaskReview:
		return "…"
	}
	return "✗"
}

// paramsText renders task params as sorted k=v pairs; one left out (an
// optional parameter the request did not give) is not shown as "mode=".
func paramsText(ps map[string]string) string {
	keys := make([]string, 0, len(ps))
	for k, v := range ps {
		if v != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = Sanitize(k) + "=" + QuoteHidden(ps[k])
	}
	return strings.Join(parts, " ")
}

// unconfinedShort and unconfinedWarning tell the owner that approving a
// request runs its command without Landlock (tasks.NAME.unconfined):
// the pane and its detail said nothing of it, and the owner approved
// with one key what could write anywhere they can (the twelfth walk).
const (
	unconfinedShort   = "⚠ UNCONFINED: no Landlock"
	unconfinedWarning = "⚠ UNCONFINED: this task type runs without Landlock confinement (tasks.%s.unconfined in your config): " +
		"its command can write anywhere you can and signal aoi. Approve only what you would run yourself."
)

// unconfined reports whether approving a would run its command
// unconfined.
func unconfined(a agent.Approval) bool {
	return a.Plan != nil && a.Plan.Unconfined && a.Plan.Problem == ""
}

func approvalDetail(a agent.Approval, e *env) string {
	rule := a.MatchedRule
	if rule == "" {
		rule = "(none named: the task type's approval setting)"
	}
	fields := [][2]string{
		{"requester", a.Requester}, {"task type", a.TaskType}, {"params", paramsText(a.Params)},
	}
	fields = append(fields, planFields(a.Plan)...)
	fields = append(fields, [][2]string{
		{"allowed by rule", rule}, {"requested", ago(e.now, a.CreatedAt)},
		{"expires in", countdown(e.now, a.ExpiresAt)}, {"approval id", a.ID}, {"task id", a.TaskID},
	}...)
	body := detailFields(fields) + "\n\n" + approvalKeysLine(e)
	if unconfined(a) { // above everything, and again by the keys
		warning := fmt.Sprintf(unconfinedWarning, Sanitize(a.TaskType))
		body = warning + "\n\n" + detailFields(fields) + "\n\n" + unconfinedShort + " · " + approvalKeysLine(e)
	}
	return body
}

// approvalKeysLine is the approval detail's last line.
func approvalKeysLine(e *env) string {
	k := e.keys.Approvals
	return k.Approve.Help().Key + " approve · " + k.Reject.Help().Key + " reject"
}

// planFields says what approving will run: the exact argv, where, how
// isolated, for how long.
func planFields(p *agent.TaskPlan) [][2]string {
	switch {
	case p == nil:
		return nil
	case p.Problem != "":
		return [][2]string{{"cannot run", p.Problem}}
	}
	run := [2]string{"will run", argvText(p.Argv)}
	if p.MCPTool != "" {
		run = [2]string{"will call", "MCP tool " + p.MCPTool + " on the coding assistant"}
	}
	where := p.Context
	if p.RepoPath != "" {
		where += " (" + p.RepoPath + ")"
	}
	isolation := "none: runs in the repository's own directory"
	switch {
	case p.Branch != "" && p.Ref != "":
		at := ""
		if p.RefCommit != "" {
			at = " at " + Sanitize(p.RefCommit[:min(12, len(p.RefCommit))])
		}
		isolation = "a fresh git worktree of " + Sanitize(p.Ref) + at + " (the requester's ref, as it was when asked: its code runs as you) on branch " + p.Branch
	case p.Branch != "":
		isolation = "a fresh git worktree on branch " + p.Branch
	case p.RepoPath == "":
		isolation = "a scratch directory"
	}
	timeout := "none"
	if p.TimeoutSec > 0 {
		timeout = (time.Duration(p.TimeoutSec) * time.Second).String()
	}
	return [][2]string{run, {"repository", where}, {"isolation", isolation}, {"timeout", timeout}}
}

// argvText shows argv as a person would type it: arguments with spaces or
// quotes are quoted, so element boundaries stay visible.
func argvText(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t'\"\\$`") || QuoteHidden(a) != a {
			a = strconv.Quote(a)
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}

func taskDetail(t agent.Task, e *env) string {
	exit := ""
	if t.ExitCode != nil {
		exit = itoa(*t.ExitCode)
	}
	body := detailFields([][2]string{
		{"id", t.ID}, {"requester", t.Requester}, {"type", t.Type}, {"params", paramsText(t.Params)},
		{"state", taskStateLabel(t.State)}, {"exit code", exit}, {"error", ownerError(t)}, {"updated", clockAt(e, t.UpdatedAt)},
	})
	if out := withoutShown(t.Output); len(out) > 0 {
		body += "\n\n" + payloadText(json.RawMessage(truncateBytes(string(out), 64<<10)))
	}
	return body
}

// outputSummary is the one line a task's output opens with ("run_tests
// completed: 2 run, 2 passed, 0 failed"), or "".
func outputSummary(output json.RawMessage) string {
	var o struct {
		Summary string `json:"summary"`
	}
	if len(output) == 0 || json.Unmarshal(output, &o) != nil {
		return ""
	}
	return o.Summary
}

// withoutShown is a task's output without what the fields above it already
// say (id, state, error), so none of it is printed twice; nil when nothing
// else is left.
func withoutShown(output json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if len(output) == 0 || json.Unmarshal(output, &m) != nil {
		return output
	}
	for _, k := range []string{"task_id", "status", "error"} {
		delete(m, k)
	}
	if len(m) == 0 {
		return nil
	}
	out, err := json.Marshal(m)
	if err != nil {
		return output
	}
	return out
}

// truncateBytes bounds text shown from a payload.
func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + ellipsis
}
