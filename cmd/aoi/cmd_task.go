package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/suggest"
	"github.com/aoi-protocol/aoi/tui"
)

func (a *app) taskCmd() *cobra.Command {
	var req agent.TaskRequest
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "task AGENT TYPE [KEY=VALUE...]",
		Short: "Ask a peer to run one of its configured task types (with AGENT alone: list them)",
		Example: `  aoi task eng-suzuki                      # the task types it offers you, with their parameters
  aoi task eng-suzuki run_tests suite=./auth/...
  aoi task status eng-suzuki TASK_ID
  aoi task cancel eng-suzuki TASK_ID`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if len(argv) == 1 {
				return a.listTaskTypes(cmd.Context(), argv[0])
			}
			params, err := parseParams(argv[2:])
			if err != nil {
				return usagef(cmd, "%v", err)
			}
			req.To, req.TaskType, req.Params = argv[0], argv[1], params
			req.TimeoutSec = int(timeout.Round(time.Second) / time.Second)
			if req.Sync {
				return a.requestTaskAndWait(cmd.Context(), req, timeout)
			}
			return call(a, func(svc agent.AskingService) error {
				t, err := svc.RequestTask(cmd.Context(), req)
				if err != nil {
					return err
				}
				return a.printTicketExit(req.To, t)
			})
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&req.ContextScope, "scope", nil, "contexts the task concerns, comma separated")
	f.BoolVar(&req.Sync, "sync", false, "wait for the task to finish (up to --timeout)")
	f.DurationVar(&timeout, "timeout", 0, "with --sync, how long to wait for the result (e.g. 10m; default 5m)")
	cmd.AddCommand(a.taskStatusCmd(), a.taskCancelCmd())
	return cmd
}

// printTicketExit prints a ticket and exits 1 when the task failed or did
// not run: a script must not read it as done (the second walk's rejected
// task exited 0).
func (a *app) printTicketExit(peer string, t agent.TaskTicket) error {
	if err := a.emit(t, func(w io.Writer) { printTicket(w, peer, t) }); err != nil {
		return err
	}
	switch t.Status {
	case agent.TaskFailed, agent.TaskRejected, agent.TaskExpired, agent.TaskCanceled:
		return &exitError{code: exitFailure}
	}
	return nil
}

// defaultSyncWait is how long --sync waits without --timeout: as long as
// a peer holds a synchronous request open (an owner approving takes a
// while).
const defaultSyncWait = 5 * time.Minute

// requestTaskAndWait is `aoi task --sync`: the request goes async, so the
// peer answers at once that it queued the task, and only then does the
// command say it waits (the seventh walk read "waiting for approval"
// before the peer had accepted anything, then a refusal); then it waits
// for the task's result message, as `aoi query --wait` does. A peer that
// cannot be reached is an error: nothing is left queued.
func (a *app) requestTaskAndWait(ctx context.Context, req agent.TaskRequest, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = defaultSyncWait
	}
	req.Sync, req.NoQueue = false, true
	return call(a, func(svc agent.Service) error {
		cursor, err := lastMessageSeq(ctx, svc)
		if err != nil {
			return err
		}
		t, err := svc.RequestTask(ctx, req)
		if err != nil {
			return err
		}
		if taskOver(t.Status) {
			return a.printTicketExit(req.To, t)
		}
		fmt.Fprintf(a.stderr, "%s queued %s (task %s); %s…\n", cell(req.To, 0), cell(req.TaskType, 0), cell(t.TaskID, 0), waitingFor(t.Status))
		m, err := waitForAnswer(ctx, svc, t.RequestID, cursor, timeout)
		var late *noAnswerError
		if errors.As(err, &late) {
			return a.syncGaveUp(req, t, timeout)
		}
		if err != nil {
			return err
		}
		return a.printTicketExit(req.To, finishedTicket(t, m))
	})
}

// syncGaveUp ends a --sync wait that ran out, in one sentence after the
// line that said what it waits for: the ticket printed here too said
// "pending", "waiting for the owner's approval" and where the result goes,
// and the error said that again (a leftover of the eighth walk). A script (--json) still
// gets the ticket, with the task id.
func (a *app) syncGaveUp(req agent.TaskRequest, t agent.TaskTicket, waited time.Duration) error {
	if a.jsonOut {
		if err := a.printJSON(t); err != nil {
			return err
		}
	}
	peer, id := cell(req.To, 0), cell(t.TaskID, 0)
	return fmt.Errorf("stopped waiting after %s: %s's %s (task %s) has not finished; its result will arrive in your inbox (`aoi inbox`), and `aoi task status %s %s` shows where it is",
		shortDuration(waited), peer, cell(req.TaskType, 0), id, peer, id)
}

// shortDuration writes d without trailing zero units: 5m, not 5m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// waitingFor says what a task the peer just queued waits for.
func waitingFor(status string) string {
	if status == agent.TaskPending {
		return "waiting for its owner to approve it"
	}
	return "waiting for it to run"
}

// taskOver reports whether a task status is final.
func taskOver(status string) bool {
	switch status {
	case agent.TaskCompleted, agent.TaskFailed, agent.TaskRejected, agent.TaskExpired, agent.TaskCanceled:
		return true
	}
	return false
}

// finishedTicket is the ticket of a task whose result message m arrived:
// the message carries the task's outcome, which the ticket holds as a
// synchronous answer did (under "output", with its error beside it).
func finishedTicket(t agent.TaskTicket, m agent.Message) agent.TaskTicket {
	var o struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	_ = json.Unmarshal(m.Data, &o) // a result without them still prints its output
	if o.Status != "" {
		t.Status = o.Status
	}
	t.Result = wire.MustJSON(map[string]any{"task_id": t.TaskID, "status": t.Status, "output": m.Data, "error": o.Error})
	return t
}

// listTaskTypes prints the task types a peer told this agent it may ask
// for, with their parameters (what its announcement said: `aoi discover`
// refreshes it).
func (a *app) listTaskTypes(ctx context.Context, peer string) error {
	return call(a, func(svc agent.PeerService) error {
		peers, err := svc.Peers(ctx)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(peers, func(p agent.Peer) bool { return p.AgentID == peer })
		if i < 0 {
			ids := make([]string, len(peers))
			for j, p := range peers {
				ids[j] = p.AgentID
			}
			if near := suggest.Closest(peer, ids, 2); near != "" {
				return fmt.Errorf("%s is not a known peer; did you mean %s? (`aoi peers` lists them)", cell(peer, 64), near)
			}
			return fmt.Errorf("%s is not a known peer; `aoi peers` lists them", cell(peer, 64))
		}
		p := peers[i]
		return a.emit(p.TaskParams, func(w io.Writer) {
			if len(p.TaskTypes) == 0 {
				fmt.Fprintf(w, "%s offers you no task types (as it last announced; `aoi discover` asks again)\n", cell(peer, 0))
				return
			}
			for _, t := range p.TaskTypes {
				fmt.Fprintf(w, "%s\n", cell(t, 0))
				for _, pa := range p.TaskParams[t] {
					fmt.Fprintf(w, "  %s\n", cell(paramLine(pa), 0))
				}
			}
			fmt.Fprintf(w, "ask with: %s\n", askLine(p))
		})
	})
}

// askLine is the `aoi task` command that asks p for a task: for a peer
// offering one type, that type with its parameters (a generic TYPE
// KEY=VALUE… left the owner to copy the name from the line above).
func askLine(p agent.Peer) string {
	line := "aoi task " + cell(p.AgentID, 0)
	if len(p.TaskTypes) != 1 {
		return line + " TYPE KEY=VALUE…"
	}
	t := p.TaskTypes[0]
	line += " " + cell(t, 0)
	for _, pa := range p.TaskParams[t] {
		line += " " + cell(paramArg(pa), 0)
	}
	return line
}

// paramArg is one parameter as an argument of askLine: "suite=auth|billing"
// for its values, "dir=VALUE" for any, bracketed when it is optional.
func paramArg(p wire.TaskParam) string {
	value := strings.Join(p.Enum, "|")
	if value == "" {
		value = "VALUE"
	}
	if p.Required {
		return p.Name + "=" + value
	}
	return "[" + p.Name + "=" + value + "]"
}

// paramLine describes one task parameter: "suite=auth|billing (required)
// which suite". An optional one with a list of values says "optional":
// the list alone reads as a choice that must be made.
func paramLine(p wire.TaskParam) string {
	s := p.Name + "=" + strings.Join(p.Enum, "|")
	var notes []string
	switch {
	case p.Required:
		notes = append(notes, "required")
	case len(p.Enum) > 0:
		notes = append(notes, "optional")
	}
	if p.Default != "" {
		notes = append(notes, "default "+p.Default)
	}
	if p.Type == config.ParamTypePath {
		notes = append(notes, "a path in the task's directory")
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, ", ") + ")"
	}
	if p.Description != "" {
		s += "  " + p.Description
	}
	return s
}

// parseParams reads KEY=VALUE arguments.
func parseParams(kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("task parameter %q: write it as KEY=VALUE", kv)
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("task parameter %q given twice", k)
		}
		out[k] = v
	}
	return out, nil
}

func printTicket(w io.Writer, peer string, t agent.TaskTicket) {
	if t.TaskID == "" {
		// Queued for a peer that is offline: it has no task id until the
		// peer takes it (the walk read "task  on eng-suzuki" and was told
		// to run `aoi task status eng-suzuki ` with no id).
		fmt.Fprintf(w, "task request %s to %s: %s\n", cell(t.RequestID, 0), cell(peer, 0), cell(t.Status, 0))
		if line := ticketLine(t.Result); line != "" {
			fmt.Fprintln(w, line)
		}
		fmt.Fprintf(w, "the result will arrive in your inbox (`aoi inbox`); until it goes out `aoi outbox` lists it, and `aoi outbox drop %s` withdraws it\n",
			cell(t.RequestID, 0))
		return
	}
	fmt.Fprintf(w, "task %s on %s: %s\n", cell(t.TaskID, 0), cell(peer, 0), cell(t.Status, 0))
	if !printFinished(w, t.Result) {
		if line := ticketLine(t.Result); line != "" {
			fmt.Fprintln(w, line)
		}
	}
	switch t.Status {
	case agent.TaskCompleted, agent.TaskFailed, agent.TaskRejected, agent.TaskExpired, agent.TaskCanceled:
	default:
		fmt.Fprintf(w, "the result will arrive in your inbox (`aoi inbox`); check on it with `aoi task status %s %s`\n",
			cell(peer, 0), cell(t.TaskID, 0))
	}
}

// printFinished prints the outcome a finished task's answer (--sync)
// carries under "output" as `aoi task status` does, not as JSON (the
// walk's case); false when it carries none.
func printFinished(w io.Writer, raw json.RawMessage) bool {
	var done struct {
		Output  json.RawMessage `json:"output"`
		Error   string          `json:"error"`
		Summary string          `json:"summary"`
	}
	if json.Unmarshal(raw, &done) != nil {
		return false
	}
	// Why it did not run or failed (a rejection's reason), which the
	// outcome does not say.
	said := false
	for _, s := range []string{done.Error, done.Summary} {
		if s != "" {
			fmt.Fprintln(w, sanitize(s, true))
			said = true
			break
		}
	}
	return (len(done.Output) > 0 && printOutcome(w, done.Output, true)) || said
}

// ticketLine is what a peer's answer to a task request says, in words
// (its summary or message; the JSON only when it has neither).
func ticketLine(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var r struct{ Summary, Message string }
	if json.Unmarshal(raw, &r) == nil {
		for _, s := range []string{r.Summary, r.Message} {
			if s != "" {
				return sanitize(s, true)
			}
		}
	}
	return sanitize(string(raw), true)
}

func (a *app) taskStatusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status [AGENT] TASK_ID",
		Short: "Ask a peer for the state of a task it runs for you; with only TASK_ID, a coordination task from messages",
		Args:  args(cobra.RangeArgs(1, 2)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return call(a, func(svc asker) error {
				if len(argv) == 1 {
					ts, err := svc.CoordTasks(cmd.Context(), agent.CoordTasksRequest{TaskID: argv[0]})
					if err != nil {
						return err
					}
					if len(ts) == 0 {
						return fmt.Errorf("no coordination task %s here; to ask a peer about a task it runs for you, give its agent id first", cell(argv[0], 64))
					}
					return a.emit(ts, func(w io.Writer) { printCoordTasks(w, ts) })
				}
				t, err := svc.RemoteTaskStatus(cmd.Context(), agent.RemoteTaskRef{Peer: argv[0], TaskID: argv[1]})
				if err != nil {
					return err
				}
				return a.emit(t, func(w io.Writer) { printTask(w, t) })
			})
		},
	}
}

func (a *app) taskCancelCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "cancel AGENT TASK_ID",
		Short: "Cancel a task a peer runs for you",
		Args:  args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			return call(a, func(svc agent.AskingService) error {
				if err := svc.CancelRemoteTask(cmd.Context(), agent.RemoteTaskRef{Peer: argv[0], TaskID: argv[1]}); err != nil {
					return err
				}
				return a.done("asked %s to cancel task %s", argv[0], argv[1])
			})
		},
	}
}

func printTask(w io.Writer, t agent.Task) {
	fmt.Fprintf(w, "task %s (%s) for %s: %s\n", cell(t.ID, 0), cell(t.Type, 0), cell(t.Requester, 0), cell(t.State, 0))
	if len(t.Params) > 0 {
		fmt.Fprintf(w, "params: %s\n", cell(formatParams(t.Params), 0))
	}
	if t.ExitCode != nil {
		fmt.Fprintf(w, "exit code: %d\n", *t.ExitCode)
	}
	if t.Error != "" {
		fmt.Fprintf(w, "error: %s\n", sanitize(t.Error, true))
	}
	if len(t.Output) > 0 && string(t.Output) != "null" && !printOutcome(w, t.Output, t.ExitCode == nil) {
		fmt.Fprintf(w, "output:\n%s\n", sanitize(string(t.Output), true))
	}
	fmt.Fprintf(w, "created %s, updated %s\n", when(t.CreatedAt), when(t.UpdatedAt))
}

// printOutcome prints a finished task's outcome as a person reads it: how
// long it took, the test counts and failures, and the output's last lines
// as lines (the JSON string held them as \n), and its exit code when
// withExit (the task record had none). It reports false when the
// output is not an outcome, to be printed as it is.
func printOutcome(w io.Writer, raw json.RawMessage, withExit bool) bool {
	var o struct {
		Status     string `json:"status"`
		ExitCode   *int   `json:"exit_code"`
		DurationMS int64  `json:"duration_ms"`
		Counts     *struct {
			Run      int `json:"tests_run"`
			Passed   int `json:"tests_passed"`
			Failed   int `json:"tests_failed"`
			Skipped  int `json:"tests_skipped"`
			Failures []struct {
				Test, Package, Message string
			} `json:"failures"`
		} `json:"output"`
		Tail      *string `json:"output_tail"`
		Truncated bool    `json:"output_truncated"`
	}
	if json.Unmarshal(raw, &o) != nil || o.Status == "" && o.ExitCode == nil && o.Tail == nil && o.DurationMS == 0 {
		return false
	}
	if withExit && o.ExitCode != nil { // a peer's task status carries it only here
		fmt.Fprintf(w, "exit code: %d\n", *o.ExitCode)
	}
	if o.DurationMS > 0 {
		fmt.Fprintf(w, "took: %s\n", time.Duration(o.DurationMS)*time.Millisecond)
	}
	if c := o.Counts; c != nil {
		fmt.Fprintf(w, "tests: %d run, %d passed, %d failed, %d skipped\n", c.Run, c.Passed, c.Failed, c.Skipped)
		for _, f := range c.Failures {
			fmt.Fprintf(w, "  FAIL %s\n", cell(strings.TrimSpace(f.Package+" "+f.Test), 0))
		}
	}
	if o.Tail != nil && *o.Tail != "" {
		head := "output:"
		if o.Truncated {
			head = "output (its last lines):"
		}
		fmt.Fprintf(w, "%s\n%s\n", head, strings.TrimRight(sanitize(*o.Tail, true), "\n"))
	}
	return true
}

// formatParams renders params as sorted KEY=VALUE pairs, without the ones
// left out. A value holding
// characters a terminal would hide is shown quoted with them escaped: the
// owner approves what runs, not a cleaned-up look-alike.
func formatParams(p map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		if p[k] != "" { // left out: an optional parameter the request did not give
			parts = append(parts, k+"="+tui.QuoteHidden(p[k]))
		}
	}
	return strings.Join(parts, " ")
}

func (a *app) tasksCmd() *cobra.Command {
	var f agent.TaskFilter
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "List tasks this agent runs for peers",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return call(a, func(svc agent.ApprovalService) error {
				ts, err := svc.Tasks(cmd.Context(), f)
				if err != nil {
					return err
				}
				return a.emit(ts, func(w io.Writer) { printTasks(w, ts) })
			})
		},
	}
	cmd.Flags().StringVar(&f.State, "state", "", "only tasks in this state (pending, in_progress, completed, …)")
	cmd.Flags().IntVar(&f.Limit, "limit", 50, "how many to show")
	return cmd
}

func printTasks(w io.Writer, ts []agent.Task) {
	if len(ts) == 0 {
		fmt.Fprintln(w, "no tasks")
		return
	}
	rows := make([][]string, 0, len(ts))
	for _, t := range ts {
		exit := "-"
		if t.ExitCode != nil {
			exit = strconv.Itoa(*t.ExitCode)
		}
		rows = append(rows, []string{
			cell(t.ID, 0), cell(t.Requester, 20), cell(t.Type, 20), cell(t.State, 12), exit,
			when(t.CreatedAt), when(t.UpdatedAt),
		})
	}
	table(w, []string{"TASK", "REQUESTER", "TYPE", "STATE", "EXIT", "CREATED", "UPDATED"}, rows)
}
