package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// queryOutput is `aoi query --json`: the peer's immediate result and, with
// --wait, the answer message that followed.
type queryOutput struct {
	agent.AskResult
	Answer *agent.Message `json:"answer,omitempty"`
	// TimedOut says --wait ended before the answer came; the result above
	// is the pending one and the answer will still arrive in the inbox.
	TimedOut bool `json:"timed_out,omitempty"`
}

func (a *app) queryCmd() *cobra.Command {
	var req agent.AskRequest
	var wait time.Duration
	cmd := &cobra.Command{
		Use:   "query AGENT TEXT...",
		Short: "Ask a colleague's secretary a question",
		// "aoi ask" is what people type first: the interface says "@ ask a
		// peer".
		SuggestFor: []string{"ask"},
		Example: `  aoi query eng-suzuki "how is auth going? any blockers?"
  aoi query eng-suzuki --scope acme/webapp --priority high --wait 2m "is the release branch green?"`,
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			req.To, req.Query = argv[0], strings.Join(argv[1:], " ")
			if strings.TrimSpace(req.Query) == "" {
				return usagef(cmd, "the question is empty: write it after the agent (aoi query %s \"how is auth going?\")", sanitize(req.To, false))
			}
			if req.Priority != "" && !slices.Contains(priorities, req.Priority) {
				return usagef(cmd, "--priority %q: use one of %s", req.Priority, strings.Join(priorities, ", "))
			}
			c, err := a.service()
			if err != nil {
				return err
			}
			defer c.Close()
			return a.ask(cmd.Context(), c, req, wait)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&req.ContextScope, "scope", nil, "contexts the question is about, comma separated (e.g. acme/webapp)")
	f.StringVar(&req.Priority, "priority", "", "low, normal, high or critical")
	f.BoolVar(&req.Async, "async", false, "do not wait for the peer's secretary; the answer arrives in the inbox")
	f.DurationVar(&wait, "wait", 0, "if not answered at once, wait this long for the answer message (e.g. 2m)")
	return cmd
}

var priorities = []string{wire.PriorityLow, wire.PriorityNormal, wire.PriorityHigh, wire.PriorityCritical}

// ask sends req and, when wait is set and the answer is not immediate,
// waits for the query.completed message.
func (a *app) ask(ctx context.Context, svc asker, req agent.AskRequest, wait time.Duration) error {
	var cursor int64
	if wait > 0 {
		var err error
		if cursor, err = lastMessageSeq(ctx, svc); err != nil {
			return err
		}
	}
	res, err := svc.Ask(ctx, req)
	if err != nil {
		return err
	}
	out := queryOutput{AskResult: res}
	qr := decodeResult(res.Result)
	var waitErr error
	if !qr.Completed && wait > 0 {
		m, err := waitForAnswer(ctx, svc, res.QueryID, cursor, wait)
		var late *noAnswerError
		switch {
		case errors.As(err, &late):
			// Still print the pending result (scripts read the query id
			// from it), then fail: the question was not answered in time.
			out.TimedOut, waitErr = true, err
		case err != nil:
			return err
		default:
			out.Answer = &m
		}
	}
	if err := a.emit(out, func(w io.Writer) {
		switch {
		case out.Answer != nil:
			printMessage(w, *out.Answer)
		case qr.Completed:
			printResult(w, qr)
		case qr.Metadata["state"] == agent.AskQueued:
			// Our own words (the peer was not reached), not the peer's.
			fmt.Fprintf(w, "query %s queued: %s\n", res.QueryID, qr.Summary)
		default:
			printPending(w, res.QueryID, req.To, qr.Summary)
		}
	}); err != nil {
		return err
	}
	return waitErr
}

// printPending says a question went and is not answered yet. The peer's
// own line, when it sends one, says where the question stands (with
// --async, already answered from recorded work), labelled as the peer's:
// no "not answered yet" of ours before it to contradict it (the second
// walk), and no promise of ours that the answer will arrive above the
// peer's saying the same (the tenth walk read it twice).
func printPending(w io.Writer, queryID, to, peerSummary string) {
	if peerSummary == "" {
		fmt.Fprintf(w, "query %s sent to %s; the answer will arrive in your inbox (`aoi inbox`)\n", queryID, cell(to, 0))
		return
	}
	fmt.Fprintf(w, "query %s sent to %s; `aoi inbox` shows what comes back\n", queryID, cell(to, 0))
	fmt.Fprintf(w, "%s says: %s\n", cell(to, 0), peerProse(peerSummary))
}

// noAnswerError is a --wait that ended before the answer came.
type noAnswerError struct {
	queryID string
	waited  time.Duration
}

func (e *noAnswerError) Error() string {
	// A pointer, not a promise: the peer's line above already said when
	// the answer comes.
	return fmt.Sprintf("no answer to query %s within %s; look in `aoi inbox` later", e.queryID, e.waited)
}

// waitForAnswer polls the inbox (woken by events, else every second) for
// the message answering queryID, looking only after cursor.
func waitForAnswer(ctx context.Context, svc watcher, queryID string, cursor int64, d time.Duration) (agent.Message, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	events, err := svc.Events(ctx, agent.EventsRequest{})
	if err != nil {
		events = nil // fall back to the ticker alone
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		msgs, err := svc.Messages(ctx, agent.MessagesRequest{AfterSeq: cursor, Limit: pageSize})
		if err != nil && ctx.Err() == nil {
			return agent.Message{}, err
		}
		for _, m := range msgs {
			cursor = m.Seq
			if m.RelatedID == queryID {
				return m, nil
			}
		}
		if len(msgs) == pageSize {
			continue
		}
		select {
		case <-ctx.Done():
			return agent.Message{}, &noAnswerError{queryID: queryID, waited: d}
		case _, ok := <-events:
			if !ok {
				events = nil
			}
		case <-tick.C:
		}
	}
}

const (
	pageSize = 500
	maxPages = 10000 // bounds every paging loop (5 million rows)
)

// lastMessageSeq is the sequence number of the newest message in the inbox.
func lastMessageSeq(ctx context.Context, svc agent.MessagingService) (int64, error) {
	msgs, _, err := latestMessages(ctx, svc, 1)
	if err != nil || len(msgs) == 0 {
		return 0, err
	}
	return msgs[0].Seq, nil
}

// latestMessages returns up to n of the newest messages, oldest first,
// and how many older ones it left out. Service.Messages pages forward
// from a sequence number, so this walks the inbox and keeps the tail.
func latestMessages(ctx context.Context, svc agent.MessagingService, n int) (tail []agent.Message, earlier int, err error) {
	var after int64
	seen := 0
	for range maxPages {
		page, err := svc.Messages(ctx, agent.MessagesRequest{AfterSeq: after, Limit: pageSize})
		if err != nil {
			return nil, 0, err
		}
		seen += len(page)
		tail = append(tail, page...)
		if len(tail) > n {
			tail = slices.Clone(tail[len(tail)-n:])
		}
		if len(page) < pageSize {
			break
		}
		after = page[len(page)-1].Seq
	}
	return tail, seen - len(tail), nil
}

// decodeResult reads a peer's QueryResult; anything else reads as empty.
func decodeResult(raw json.RawMessage) wire.QueryResult {
	var qr wire.QueryResult
	_ = json.Unmarshal(raw, &qr)
	return qr
}

// maxProse bounds a peer's prose the CLI prints: an answer is a few
// paragraphs; a peer sending a megabyte does not get to fill the
// terminal (--json has it whole).
const maxProse = 8000

// peerProse is a peer's summary as printed: sanitised, at most maxProse
// characters.
func peerProse(s string) string {
	if r := []rune(s); len(r) > maxProse {
		s = string(r[:maxProse]) + fmt.Sprintf("… (%d more characters; --json shows all)", len(r)-maxProse)
	}
	return sanitize(s, true)
}

// printResult shows an answer: summary, progress, blockers, evidence.
func printResult(w io.Writer, qr wire.QueryResult) {
	fmt.Fprintln(w, peerProse(qr.Summary))
	if qr.Progress != nil {
		fmt.Fprintf(w, "progress: %d%%\n", *qr.Progress)
	}
	if len(qr.Blockers) > 0 {
		fmt.Fprintln(w, "blockers:")
		for _, b := range qr.Blockers[:min(len(qr.Blockers), maxListed)] {
			fmt.Fprintf(w, "  - %s\n", cell(b, maxItem))
		}
	}
	if len(qr.ContextRefs) > 0 {
		fmt.Fprintln(w, "based on:")
		for _, r := range qr.ContextRefs[:min(len(qr.ContextRefs), maxListed)] {
			fmt.Fprintf(w, "  %s %s %s\n", cell(r.Type, 40), cell(r.Ref, maxItem), cell(r.Summary, maxItem))
		}
	}
	if n := max(len(qr.Blockers), len(qr.ContextRefs)); n > maxListed {
		fmt.Fprintf(w, "(%d listed of %d; --json shows all)\n", maxListed, n)
	}
}

// maxListed and maxItem bound the blockers and references printed from a
// peer's answer, and each one's width: a real answer has a few short ones.
const (
	maxListed = 20
	maxItem   = 300
)

// printMessage shows one received message in full.
func printMessage(w io.Writer, m agent.Message) {
	fmt.Fprintf(w, "%s from %s", cell(m.Event, 0), cell(m.From, 0))
	if m.RelatedID != "" {
		fmt.Fprintf(w, " (about %s)", cell(m.RelatedID, 0))
	}
	fmt.Fprintf(w, " at %s\n", when(m.ReceivedAt))
	if m.Event == wire.EventQueryCompleted {
		printResult(w, decodeResult(m.Data))
		return
	}
	fmt.Fprintln(w, messageSummary(m, 0))
}

// messageSummary is one line describing a message's data.
func messageSummary(m agent.Message, max int) string {
	var d struct {
		Summary  string `json:"summary"`
		Reason   string `json:"reason"`
		Message  string `json:"message"`
		Desc     string `json:"description"`
		Feedback string `json:"feedback"`
		Status   string `json:"status"`
		TaskID   string `json:"task_id"`
		ExitCode *int   `json:"exit_code"`
		Error    string `json:"error"` // why a task failed or was rejected: the requester's answer
	}
	if err := json.Unmarshal(m.Data, &d); err != nil {
		return cell(string(m.Data), max)
	}
	if d.TaskID != "" && d.Summary != "" { // a task's result says it all in one line
		return cell(d.TaskID+" · "+d.Summary, max)
	}
	parts := []string{}
	for _, s := range []string{d.TaskID, d.Status, d.Summary, d.Desc, d.Reason, d.Message, d.Feedback} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if d.ExitCode != nil {
		parts = append(parts, fmt.Sprintf("exit %d", *d.ExitCode))
	}
	if d.Error != "" { // "rejected · not before the release": the status already says who decided
		parts = append(parts, strings.TrimPrefix(d.Error, "the owner rejected the request: "))
	}
	if len(parts) == 0 {
		return cell(string(m.Data), max)
	}
	return cell(strings.Join(parts, " · "), max)
}
