package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/inbox"
)

// inboxOutput is `aoi inbox --json`.
type inboxOutput struct {
	Queries  []agent.Query   `json:"queries"`
	Messages []agent.Message `json:"messages"`
}

func (a *app) inboxCmd() *cobra.Command {
	var limit int
	var watch, waiting bool
	cmd := &cobra.Command{
		Use:   "inbox",
		Short: "Show queries from peers and messages (answers, task results) received; marks the messages shown read",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if limit <= 0 {
				return usagef(cmd, "--limit must be positive")
			}
			if waiting && watch {
				return usagef(cmd, "--waiting lists the questions waiting now and --watch follows what arrives: give one of them")
			}
			run := callOrOpen[inboxWatcher]
			if watch {
				// Following needs the aoi that receives: none runs here.
				run = func(_ context.Context, a *app, f func(inboxWatcher) error) error { return call(a, f) }
			}
			return run(cmd.Context(), a, func(svc inboxWatcher) error {
				ctx := cmd.Context()
				if waiting {
					qs, err := waitingQueries(ctx, svc, limit)
					if err != nil {
						return err
					}
					out := inboxOutput{Queries: nonNil(qs), Messages: []agent.Message{}}
					return a.emit(out, func(w io.Writer) { printWaiting(w, out.Queries) })
				}
				qs, err := svc.Queries(ctx, agent.QueryFilter{Limit: limit})
				if err != nil {
					return err
				}
				msgs, earlier, err := latestMessages(ctx, svc, limit)
				if err != nil {
					return err
				}
				// Empty lists are [] in --json, not null: `jq '.messages[]'` works.
				out := inboxOutput{Queries: nonNil(qs), Messages: nonNil(msgs)}
				if err := a.emit(out, func(w io.Writer) { printInbox(w, out, earlier) }); err != nil {
					return err
				}
				if err := markShownRead(ctx, svc, msgs, earlier); err != nil {
					return err
				}
				if !watch {
					return nil
				}
				return a.follow(ctx, svc, inboxEvent)
			})
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 20, "how many queries and messages to show")
	cmd.Flags().BoolVar(&watch, "watch", false, "keep running and print new queries and messages as they arrive")
	cmd.Flags().BoolVar(&waiting, "waiting", false, "show only the questions waiting for you (to answer, decline or release), newest first; no messages")
	return cmd
}

// markShownRead marks the messages `aoi inbox` showed read, so status and
// the interface no longer count them unread. When --limit left earlier
// ones out, it marks the shown ones alone: marking up to the last would
// have marked the earlier ones read too, and the owner would never see
// them (the walk's `aoi inbox --limit 1`).
func markShownRead(ctx context.Context, svc agent.MessagingService, shown []agent.Message, earlier int) error {
	if len(shown) == 0 {
		return nil
	}
	if earlier == 0 {
		return svc.MarkMessagesRead(ctx, agent.MarkReadRequest{UptoSeq: shown[len(shown)-1].Seq})
	}
	seqs := make([]int64, len(shown))
	for i, m := range shown {
		seqs[i] = m.Seq
	}
	return svc.MarkMessagesRead(ctx, agent.MarkReadRequest{Seqs: seqs})
}

// waitingQueries are the questions waiting for the owner, newest first:
// escalated and awaiting ones (to answer) and buffered ones (held during
// focus), at most limit.
func waitingQueries(ctx context.Context, svc agent.InboxService, limit int) ([]agent.Query, error) {
	var out []agent.Query
	for _, state := range []string{agent.QueryEscalated, agent.QueryAwaiting, agent.QueryBuffered} {
		qs, err := svc.Queries(ctx, agent.QueryFilter{State: state, Limit: limit})
		if err != nil {
			return nil, err
		}
		out = append(out, qs...)
	}
	slices.SortStableFunc(out, func(x, y agent.Query) int { return y.ReceivedAt.Compare(x.ReceivedAt) })
	return out[:min(len(out), limit)], nil
}

// inboxEvent selects the events `aoi inbox --watch` prints.
func inboxEvent(ev agent.Event) bool {
	switch ev.Kind {
	case agent.EventQueryReceived, agent.EventQueryUpdated, agent.EventMessageReceived, agent.EventAttention:
		return true
	}
	return false
}

// maxSummary bounds a message's summary, the last column of a table: it
// is shown whole up to there (a reject reason is what the requester needs),
// and the terminal wraps it rather than the table cutting it.
const maxSummary = 300

// about names what a message answers: your question, quoted and shortened,
// when it answers one you asked, else the id it relates to.
func about(m agent.Message) string {
	switch {
	case m.Question != "" && strings.HasPrefix(m.Kind(), "task."):
		return cell(m.Question, 30) // "task run_tests": what you asked for, not words you wrote
	case m.Question != "":
		return "“" + cell(m.Question, 30) + "”"
	}
	return cell(m.RelatedID, 0)
}

// printWaiting is `aoi inbox --waiting`: the questions alone, since the
// flag leaves messages out.
func printWaiting(w io.Writer, qs []agent.Query) {
	if len(qs) == 0 {
		fmt.Fprintln(w, "no questions waiting for you")
		return
	}
	printQueries(w, qs)
}

func printQueries(w io.Writer, qs []agent.Query) {
	fmt.Fprintln(w, "QUERIES FROM PEERS (newest first)")
	rows := make([][]string, 0, len(qs))
	for _, q := range qs {
		rows = append(rows, []string{
			cell(q.ID, 0), cell(q.From, 20), cell(q.Priority, 8), cell(q.State, 10),
			when(q.ReceivedAt), cell(q.Text, 60),
		})
	}
	table(w, []string{"ID", "FROM", "PRIORITY", "STATE", "RECEIVED", "QUERY"}, rows)
}

// printInbox is `aoi inbox`: the queries, then the newest messages,
// saying how many older ones --limit left out and where they are (the
// walk's `aoi inbox --limit 1` showed one message and no sign of others).
func printInbox(w io.Writer, in inboxOutput, earlier int) {
	if len(in.Queries) == 0 {
		fmt.Fprintln(w, "no queries from peers")
	} else {
		printQueries(w, in.Queries)
	}
	fmt.Fprintln(w)
	if len(in.Messages) == 0 {
		fmt.Fprintln(w, "no messages")
		return
	}
	fmt.Fprintln(w, "MESSAGES (oldest first)")
	rows := make([][]string, 0, len(in.Messages))
	for _, m := range in.Messages {
		rows = append(rows, []string{
			// ID is the number aoi messages, --reply-to and :reply name
			// the message by (seq in --json). KIND is as the Messages
			// pane says it (task_assign, answer); --json keeps the
			// protocol's event.
			strconv.FormatInt(m.Seq, 10), cell(m.From, 20), cell(agent.MessageKindLabel(m.Kind()), 16),
			dash(about(m)), when(m.ReceivedAt), messageSummary(m, maxSummary),
		})
	}
	table(w, []string{"ID", "FROM", "KIND", "ABOUT", "RECEIVED", "SUMMARY"}, rows)
	if earlier > 0 {
		fmt.Fprintf(w, "%d earlier %s not shown (nor marked read): `aoi inbox --limit %d` shows %s too (`aoi messages` lists them all, oldest first)\n",
			earlier, plural(earlier, "message", "messages"), len(in.Messages)+earlier, plural(earlier, "it", "them"))
	}
}

func (a *app) answerCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "answer QUERY_ID TEXT...",
		Short: "Answer a query from a peer (sent back as query.completed)",
		Args:  args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			text := strings.Join(argv[1:], " ")
			return call(a, func(svc answerer) error {
				q, err := queryFrom(cmd.Context(), svc, argv[0])
				if err != nil {
					return err
				}
				if err := svc.Answer(cmd.Context(), agent.AnswerRequest{QueryID: q.ID, Text: text}); err != nil {
					return err
				}
				return a.done("answered %s%s%s", q.ID, whose(q), offlineNote(cmd.Context(), svc, q.ID))
			})
		},
	}
}

// queryLister lists received queries.
type queryLister interface {
	Queries(context.Context, agent.QueryFilter) ([]agent.Query, error)
}

// queryIDFrom is the id of the query id names: itself, or the query its
// start names, as in the prompt bar (agent.QueryByIDStart). The start of
// several ids is refused here, saying so (the core, given it as an id,
// said "no query"); anything else is returned as it is, for the core to
// refuse.
func queryIDFrom(ctx context.Context, svc queryLister, id string) (string, error) {
	q, err := queryFrom(ctx, svc, id)
	return q.ID, err
}

// queryFrom is queryIDFrom's query as listed, so a command can say whose
// question it was; only its ID is set when it is not listed.
func queryFrom(ctx context.Context, svc queryLister, id string) (agent.Query, error) {
	qs, err := svc.Queries(ctx, agent.QueryFilter{Limit: 1000})
	if err != nil {
		return agent.Query{ID: id}, nil
	}
	if q, ok := agent.QueryByIDStart(qs, id); ok {
		return q, nil
	}
	if n := agent.QueriesStartingWith(qs, id); n > 1 {
		return agent.Query{}, fmt.Errorf("%s starts the ids of %d questions: give more of it (`aoi inbox --waiting` lists those waiting for you)", id, n)
	}
	return agent.Query{ID: id}, nil
}

// whose names the asker and the start of the question after a query's
// id (", pm-tanaka's “is the login page done?”"), or "" when the query
// was not listed. The walk's `aoi answer` said only "answered q-…", so a
// start of an id typed from memory gave no sign of which question went.
func whose(q agent.Query) string {
	if q.From == "" {
		return ""
	}
	return fmt.Sprintf(", %s's “%s”", cell(q.From, 0), cell(q.Text, 48))
}

// offlineNote says, when the peer who asked queryID is offline, that the
// answer waits to be sent ("" otherwise, or when that cannot be told).
func offlineNote(ctx context.Context, svc answerer, queryID string) string {
	qs, err := svc.Queries(ctx, agent.QueryFilter{Limit: 1000})
	if err != nil {
		return ""
	}
	i := slices.IndexFunc(qs, func(q agent.Query) bool { return q.ID == queryID })
	if i < 0 {
		return ""
	}
	peers, err := svc.Peers(ctx)
	if err != nil {
		return ""
	}
	from := qs[i].From
	if j := slices.IndexFunc(peers, func(p agent.Peer) bool { return p.AgentID == from }); j >= 0 && peers[j].Status == agent.PeerOffline {
		return fmt.Sprintf("; %s is offline: the answer waits and is sent when it is back (`aoi status` counts what waits)", cell(from, 0))
	}
	return ""
}

func (a *app) declineCmd() *cobra.Command {
	var reason string
	cmd := &cobra.Command{
		Use:   "decline QUERY_ID --reason TEXT",
		Short: "Decline a query from a peer, telling them why",
		Args:  args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if strings.TrimSpace(reason) == "" {
				return usagef(cmd, "--reason is required: say why, the asker sees it")
			}
			return call(a, func(svc agent.InboxService) error {
				q, err := queryFrom(cmd.Context(), svc, argv[0])
				if err != nil {
					return err
				}
				if err := svc.Decline(cmd.Context(), agent.DeclineRequest{QueryID: q.ID, Reason: reason}); err != nil {
					return err
				}
				return a.done("declined %s%s", q.ID, whose(q))
			})
		},
	}
	cmd.Flags().StringVar(&reason, "reason", "", "why (sent to the asker)")
	return cmd
}

// releasedAll says what `aoi release --all` sent: the drafts that found
// the owner's work; the others wait for the owner (inbox.Release).
func releasedAll(buffered []agent.Query) string {
	sent := 0
	for _, q := range buffered {
		if inbox.Releasable(q.Draft, q.Confidence) {
			sent++
		}
	}
	msg := fmt.Sprintf("released %d buffered %s: the secretary's drafts were sent", sent, plural(sent, "query", "queries"))
	if sent == 0 {
		msg = "released nothing"
	}
	if kept := len(buffered) - sent; kept > 0 {
		msg += fmt.Sprintf("; %d %s for you: `aoi answer ID TEXT` or `aoi decline ID --reason R`",
			kept, plural(kept, "whose draft found no work or is a guess waits", "whose drafts found no work or are guesses wait"))
	}
	return msg
}

func (a *app) releaseCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use:   "release [QUERY_ID | --all]",
		Short: "Send buffered queries the secretary's draft as their answer",
		Args:  args(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			if all == (len(argv) == 1) {
				return usagef(cmd, "give either one QUERY_ID or --all")
			}
			id := ""
			if !all {
				id = argv[0]
			}
			return call(a, func(svc agent.InboxService) error {
				var buffered []agent.Query
				if all {
					var err error
					if buffered, err = svc.Queries(cmd.Context(), agent.QueryFilter{State: agent.QueryBuffered, Limit: 1000}); err != nil {
						return err
					}
					if len(buffered) == 0 {
						return a.done("no buffered queries to release")
					}
				}
				var q agent.Query
				if id != "" {
					var err error
					if q, err = queryFrom(cmd.Context(), svc, id); err != nil {
						return err
					}
				}
				if err := svc.Release(cmd.Context(), agent.ReleaseRequest{QueryID: q.ID}); err != nil {
					return err
				}
				if all {
					return a.done("%s", releasedAll(buffered))
				}
				return a.done("released %s%s: the secretary's draft was sent", q.ID, whose(q))
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "release every buffered query")
	return cmd
}

func (a *app) focusCmd() *cobra.Command {
	return &cobra.Command{
		Use:       "focus on|off",
		Short:     "Turn focus mode on or off (overrides focus hours)",
		ValidArgs: []string{"on", "off"},
		Args: args(func(cmd *cobra.Command, argv []string) error {
			if len(argv) != 1 || argv[0] != "on" && argv[0] != "off" {
				return fmt.Errorf("focus takes on or off (got %q)", strings.Join(argv, " "))
			}
			return nil
		}),
		RunE: func(cmd *cobra.Command, argv []string) error {
			on := argv[0] == "on"
			return call(a, func(svc agent.InboxService) error {
				if err := svc.SetFocus(cmd.Context(), agent.FocusRequest{On: on}); err != nil {
					return err
				}
				return a.done("focus %s", argv[0])
			})
		},
	}
}

func (a *app) noteCmd() *cobra.Command {
	var list bool
	var del int64
	cmd := &cobra.Command{
		Use:   "note TEXT... | --list | --delete ID",
		Short: "Record a note your secretary can answer from; list or delete your notes",
		Args:  args(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, argv []string) error {
			text := strings.Join(argv, " ")
			switch {
			case list || cmd.Flags().Changed("delete"):
				if text != "" || list && cmd.Flags().Changed("delete") {
					return usagef(cmd, "give a note's text, or --list, or --delete ID: one of them")
				}
			case strings.TrimSpace(text) == "":
				return usagef(cmd, "the note is empty: write it after note (aoi note \"spike on caching done\"), or --list your notes")
			}
			return callOrOpen(cmd.Context(), a, func(svc agent.MirrorService) error {
				switch {
				case list:
					notes, err := svc.Notes(cmd.Context(), agent.NotesRequest{Limit: 200})
					if err != nil {
						return err
					}
					return a.emit(nonNil(notes), func(w io.Writer) { printNotes(w, notes) })
				case cmd.Flags().Changed("delete"):
					if err := svc.DeleteNote(cmd.Context(), agent.DeleteNoteRequest{ID: del}); err != nil {
						return err
					}
					return a.done("note %d deleted: the secretary no longer answers from it", del)
				}
				saved, err := svc.Note(cmd.Context(), agent.NoteRequest{Text: text})
				if err != nil {
					return err
				}
				return a.emit(saved, func(w io.Writer) { printNoteSaved(w, saved) })
			})
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list your notes, newest first, with their ids")
	cmd.Flags().Int64Var(&del, "delete", 0, "delete the note with this id (from --list)")
	return cmd
}

// printNoteSaved says which id a new note is stored under, and how to
// take it back; an aoi that did not say the id gets "note saved".
func printNoteSaved(w io.Writer, saved agent.NoteSaved) {
	if saved.ID == 0 {
		fmt.Fprintln(w, "note saved")
		return
	}
	fmt.Fprintf(w, "note %d saved: the secretary answers from it (aoi note --delete %d removes it)\n", saved.ID, saved.ID)
}

// printNotes lists notes: id, when, text on one line.
func printNotes(w io.Writer, notes []agent.Note) {
	if len(notes) == 0 {
		fmt.Fprintln(w, "no notes yet: aoi note \"…\" records one")
		return
	}
	rows := make([][]string, 0, len(notes))
	for _, n := range notes {
		rows = append(rows, []string{strconv.FormatInt(n.ID, 10), when(n.At), cell(n.Text, maxSummary)})
	}
	table(w, []string{"ID", "WHEN", "NOTE"}, rows)
}

// nonNil turns a nil slice into an empty one, so JSON shows [] not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
