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

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// sendCmd is `aoi send`: a typed message to a colleague's coding assistant.
func (a *app) sendCmd() *cobra.Command {
	var r agent.SendMessageRequest
	var payload string
	cmd := &cobra.Command{
		Use:   "send AGENT TYPE [TEXT...]",
		Short: "Send a typed message to a colleague's coding assistant (" + strings.Join(wire.MessageTypes, ", ") + ")",
		Long: "aoi send delivers an aoi.message to the agent's assistant inbox (never its secretary),\n" +
			"through the outbox: it is queued while the agent is offline. TEXT becomes the payload's\n" +
			"message (description for task_assign), also when --payload gives the rest of it as a\n" +
			"JSON object.\n" +
			"AGENT may be - with --task to reach that task's counterpart (whoever assigned it).\n" +
			"It exits 1 when the receiver was reached and refused the message (the note says why);\n" +
			"the message stays queued until the receiver's owner lets it through, or it expires.",
		Args: args(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, argv []string) error {
			r.To, r.Type = argv[0], argv[1]
			if r.To == "-" {
				r.To = ""
			}
			if !slices.Contains(wire.MessageTypes, r.Type) {
				return usagef(cmd, "TYPE must be one of %s", strings.Join(wire.MessageTypes, ", "))
			}
			if r.Priority != "" && !slices.Contains(priorities, r.Priority) {
				return usagef(cmd, "--priority %q: use one of %s", r.Priority, strings.Join(priorities, ", "))
			}
			var err error
			if r.Payload, err = sendPayload(r.Type, payload, strings.TrimSpace(strings.Join(argv[2:], " "))); err != nil {
				return usagef(cmd, "%v", err)
			}
			if r.Payload == nil && r.TaskID == "" && r.Forward == 0 {
				// Without a task to move or a message to relay, nothing
				// would reach the assistant but an empty {}.
				return usagef(cmd, "give TEXT or --payload: an empty %s tells the receiver nothing", r.Type)
			}
			return call(a, func(svc agent.MessagingService) error {
				var err error
				if r.ReplyTo, err = replyToID(cmd.Context(), svc, r.ReplyTo); err != nil {
					return err
				}
				sent, err := svc.SendMessage(cmd.Context(), r)
				if err != nil {
					return err
				}
				joined := joinedThread(r, sent)
				if err := a.emit(sent, func(w io.Writer) { printSent(w, sent, joined) }); err != nil {
					return err
				}
				if sent.Refused {
					// Queued, but not on its way: a script must not take it as sent.
					return &exitError{code: exitFailure}
				}
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&r.TaskID, "task", "", "task id this message concerns (moves the task's state; default: the --reply-to message's task)")
	f.StringVar(&r.ThreadID, "thread", "", "thread id to keep a conversation together (default: the thread of the --reply-to message, else the one about --task with AGENT, else a new one)")
	f.StringVar(&r.ReplyTo, "reply-to", "", "the message this answers: its ID (as aoi messages and aoi inbox list it), or its message id (m-…)")
	f.StringVar(&r.Priority, "priority", "", "low, normal (default), high or critical")
	f.StringVar(&payload, "payload", "", `payload as a JSON object, e.g. '{"approved":false,"feedback":"add tests"}'`)
	f.Int64Var(&r.Forward, "forward", 0, "relay the received message with this id (keeps its sender and thread)")
	return cmd
}

// replyToID is the message id --reply-to names. The ID column of `aoi
// messages` (as --forward takes it) names a received message by its
// number: a reply to "1" was sent as a reply to a message id nothing
// held, started a thread of its own and was refused by the asker's ACL
// as unsolicited (the eleventh walk).
func replyToID(ctx context.Context, svc agent.MessagingService, given string) (string, error) {
	seq, err := strconv.ParseInt(given, 10, 64)
	if err != nil || seq <= 0 {
		return given, nil // a message id
	}
	page, err := svc.Inbox(ctx, agent.InboxFilter{AfterSeq: seq - 1, Limit: 1})
	if err != nil {
		return "", err
	}
	if len(page.Messages) == 0 || page.Messages[0].Seq != seq {
		return "", fmt.Errorf("--reply-to %d: there is no received message %d; `aoi messages` lists them with their IDs", seq, seq)
	}
	m := page.Messages[0]
	if m.Type == "" || m.MessageID == "" {
		return "", fmt.Errorf("--reply-to %d: message %d is %s from %s, not a message its sender can be answered in; reply to a typed message (`aoi messages --type question`)",
			seq, seq, cell(kindLabel(m), 0), cell(m.From, 0))
	}
	return m.MessageID, nil
}

// joinedThread says whose thread a message that named none joined: that
// of the message it replies to, or the one already open about its task
// with the receiver; "" when it started its own (or named one, or was
// relayed).
func joinedThread(r agent.SendMessageRequest, sent agent.SentMessage) string {
	if r.ThreadID != "" || r.Forward != 0 || sent.ThreadID == sent.ID {
		return ""
	}
	if r.ReplyTo != "" {
		return "that of " + cell(r.ReplyTo, 0) + " it replies to"
	}
	if r.TaskID != "" {
		return "the one about task " + cell(r.TaskID, 0) + " with " + cell(sent.To, 0)
	}
	return ""
}

// sendPayload builds the payload from --payload and the text. TEXT given
// with --payload becomes the payload's message (description for
// task_assign) when the object has none, so typed words are never dropped;
// when it has one, the two disagree and the command says so.
func sendPayload(typ, raw, text string) (json.RawMessage, error) {
	key := "message"
	if typ == wire.MsgTaskAssign {
		key = "description"
	}
	if raw != "" {
		var obj map[string]any
		if err := json.Unmarshal([]byte(raw), &obj); err != nil || obj == nil {
			if err == nil {
				err = fmt.Errorf("got %s", raw)
			}
			return nil, fmt.Errorf("--payload must be a JSON object: %v", err)
		}
		if text == "" {
			return json.RawMessage(raw), nil
		}
		if _, ok := obj[key]; ok {
			return nil, fmt.Errorf("TEXT and --payload's %q both give the %s; give one of them", key, key)
		}
		obj[key] = text
		b, err := json.Marshal(obj)
		return b, err
	}
	if text == "" {
		return nil, nil
	}
	b, _ := json.Marshal(map[string]string{key: text})
	return b, nil
}

// printSent says what was sent, in which thread (with no --thread: the
// one it joined, joined), and what
// became of it. A message that is
// queued says so on its first line, and its task's state is this side's
// only: a refused task_assign read "task T-7 is assigned" above the
// refusal (the ninth walk).
func printSent(w io.Writer, s agent.SentMessage, joined string) {
	thread := "thread " + cell(s.ThreadID, 0)
	if joined != "" {
		thread += ", " + joined
	}
	fmt.Fprintf(w, "%s %s to %s (%s)", cell(s.Type, 0), cell(s.ID, 0), cell(s.To, 0), thread)
	if s.Queued {
		fmt.Fprint(w, " is queued, not delivered yet")
	}
	switch {
	case s.TaskID == "":
	case s.Queued:
		fmt.Fprintf(w, "; task %s is %s here, not yet at %s", cell(s.TaskID, 0), cell(s.TaskState, 0), cell(s.To, 0))
	default:
		fmt.Fprintf(w, "; task %s is %s", cell(s.TaskID, 0), cell(s.TaskState, 0))
	}
	fmt.Fprintf(w, "\n%s\n", sanitize(s.Note, false))
}

// defaultMessagesLimit is how many messages `aoi messages` shows.
const defaultMessagesLimit = 50

// messagesCmd is `aoi messages`: the typed messages the assistant sees.
func (a *app) messagesCmd() *cobra.Command {
	var f agent.InboxFilter
	var after string
	cmd := &cobra.Command{
		Use:   "messages",
		Short: "Show messages received from colleagues' assistants (and answers, task results), oldest first",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.Limit <= 0 || f.Limit > 1000 {
				return usagef(cmd, "--limit must be between 1 and 1000")
			}
			if f.Type != "" && !slices.Contains(wire.MessageTypes, f.Type) {
				return usagef(cmd, "--type %q is not a message type; use one of %s", f.Type, strings.Join(wire.MessageTypes, ", "))
			}
			// A thread or a task is a conversation: what this agent sent
			// in it too (the unread are received ones only).
			f.WithSent = (f.ThreadID != "" || f.TaskID != "") && !f.Unread
			if err := parseAfter(after, &f); err != nil {
				return usagef(cmd, "%v", err)
			}
			return call(a, func(svc agent.MessagingService) error {
				page, err := svc.Inbox(cmd.Context(), f)
				if old := (*agent.OlderAgentError)(nil); errors.As(err, &old) {
					return errors.New(old.Ignored(messagesFlags(after)))
				}
				if err != nil {
					return err
				}
				if f.WithSent {
					return a.emit(page, func(w io.Writer) { printConversation(w, page, f) })
				}
				return a.emit(page, func(w io.Writer) { printMessages(w, page, f) })
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&after, "after", "", "show messages after this ID (in a --thread or --task conversation, a sent message's m-… ID too)")
	fl.StringVar(&f.Type, "type", "", "only this type ("+strings.Join(wire.MessageTypes, ", ")+")")
	fl.StringVar(&f.TaskID, "task", "", "only this task's messages, the ones you sent included")
	fl.StringVar(&f.ThreadID, "thread", "", "only this thread: the conversation, the messages you sent in it included")
	fl.BoolVar(&f.Unread, "unread", false, "only messages aoi_check_messages has not yet shown the coding assistant (assistant_seen false; read is your own mark)")
	fl.IntVar(&f.Limit, "limit", defaultMessagesLimit, "how many to show")
	return cmd
}

// messagesFlags names the options a running aoi older than this command
// may not know by the flags that ask for them.
func messagesFlags(after string) map[string]string {
	return map[string]string{
		"with_sent":        "the messages you sent in the conversation (--thread and --task list them)",
		"after_message_id": "--after " + cell(after, 0) + " (it lists the conversation from its start)",
	}
}

// parseAfter sets where --after starts the page: after a received
// message (its number), or in a conversation after a sent one (its
// message id, the ID column's m-…, as the "more waiting" line names it).
func parseAfter(after string, f *agent.InboxFilter) error {
	if after == "" {
		return nil
	}
	if seq, err := strconv.ParseInt(after, 10, 64); err == nil && seq >= 0 {
		f.AfterSeq = seq
		return nil
	}
	if f.Unread && (f.ThreadID != "" || f.TaskID != "") && wire.ValidID(after) {
		// --thread was given: the hint below, "only with --thread", would send the reader round in a circle.
		return fmt.Errorf("--after %q: --unread lists received messages alone, so a sent message's m-… does not place it; give a message's number, or leave --unread out", cell(after, 40))
	}
	if !f.Conversation() || !wire.ValidID(after) {
		return fmt.Errorf("--after %q: give a message's ID, the number aoi messages lists it by (a sent message's m-… only with --thread or --task)", cell(after, 40))
	}
	f.AfterMessage = after
	return nil
}

func printMessages(w io.Writer, p agent.InboxPage, f agent.InboxFilter) {
	defer printOthers(w, p, f)
	if len(p.Messages) == 0 {
		fmt.Fprintln(w, "no messages")
		return
	}
	rows := make([][]string, 0, len(p.Messages))
	for _, m := range p.Messages {
		rows = append(rows, []string{strconv.FormatInt(m.Seq, 10), cell(sender(m), 30), cell(kindLabel(m), 16), dash(cell(m.TaskID, 20)),
			dash(cell(m.Priority, 8)), when(m.ReceivedAt), messageSummary(m, maxSummary)})
	}
	table(w, []string{"ID", "FROM", "TYPE", "TASK", "PRIORITY", "RECEIVED", "SUMMARY"}, rows)
	if p.More {
		fmt.Fprintf(w, "more waiting: %s\n", nextPage(f, p))
	}
}

// nextPage is the command that lists the page after p: the same filters,
// after the last message shown ("aoi messages --after 1" under a --type
// answer page listed every type), by the ID its row shows (a sent
// message's m-… in a conversation).
func nextPage(f agent.InboxFilter, p agent.InboxPage) string {
	cmd := "aoi messages"
	for _, o := range []struct{ flag, v string }{{"--type", f.Type}, {"--task", f.TaskID}, {"--thread", f.ThreadID}} {
		if o.v != "" {
			cmd += " " + o.flag + " " + cell(o.v, 0)
		}
	}
	if f.Unread {
		cmd += " --unread"
	}
	if f.Limit != defaultMessagesLimit {
		cmd += " --limit " + strconv.Itoa(f.Limit)
	}
	last := strconv.FormatInt(p.LastID, 10)
	if p.LastMessageID != "" {
		last = cell(p.LastMessageID, 0)
	}
	return cmd + " --after " + last
}

// printConversation is a thread or a task as it was said, both ways, in
// time order:
// each row says whether it was received (from whom) or sent (to whom, and
// whether it got there). A sent message has no inbox id; its row shows
// the message id a reply names.
func printConversation(w io.Writer, p agent.InboxPage, f agent.InboxFilter) {
	defer printOthers(w, p, f)
	if len(p.Messages) == 0 {
		fmt.Fprintf(w, "no messages %s, sent or received\n", conversationName(f))
		return
	}
	rows := make([][]string, 0, len(p.Messages))
	for _, m := range p.Messages {
		id, who := strconv.FormatInt(m.Seq, 10), "from "+sender(m)
		if m.Sent {
			id, who = m.MessageID, sentTo(m)
		}
		rows = append(rows, []string{cell(id, 0), cell(who, 36), cell(kindLabel(m), 16), dash(cell(m.TaskID, 20)),
			when(m.At()), messageSummary(m, maxSummary)})
	}
	table(w, []string{"ID", "SENT / RECEIVED", "TYPE", "TASK", "AT", "SUMMARY"}, rows)
	if p.More {
		fmt.Fprintf(w, "more waiting: %s\n", nextPage(f, p))
	}
}

// printOthers says which peers' messages naming the thread or task were
// left out, as no part of its conversation (agent.InboxPage.Others).
func printOthers(w io.Writer, p agent.InboxPage, f agent.InboxFilter) {
	peers := slices.Sorted(maps.Keys(p.Others))
	for _, peer := range peers {
		n := p.Others[peer]
		fmt.Fprintf(w, "not shown: %d %s %s from %s, which takes no part in the conversation (`aoi messages` lists every message received)\n",
			n, plural(n, "message", "messages"), conversationName(f), cell(peer, 40))
	}
}

// conversationName says which conversation a filter names.
func conversationName(f agent.InboxFilter) string {
	switch {
	case f.ThreadID != "" && f.TaskID != "":
		return "in thread " + cell(f.ThreadID, 0) + " about task " + cell(f.TaskID, 0)
	case f.ThreadID != "":
		return "in thread " + cell(f.ThreadID, 0)
	}
	return "about task " + cell(f.TaskID, 0)
}

// sender is who a received message is from, with its first sender when
// it was relayed.
func sender(m agent.Message) string {
	if m.Origin != "" && m.Origin != m.From {
		return m.Origin + " via " + m.From
	}
	return m.From
}

// sentTo says whom a sent message went to and whether it got there.
func sentTo(m agent.Message) string {
	switch m.Delivery {
	case "queued":
		return "sent to " + m.To + ", queued"
	case "refused":
		return "sent to " + m.To + ", refused"
	case "expired":
		return "sent to " + m.To + ", expired"
	}
	return "sent to " + m.To
}

// kindLabel is the TYPE column: a typed message's type, as --type takes
// it; a notification named as `aoi inbox` and the Messages pane name it
// ("answer", not "query.completed").
func kindLabel(m agent.Message) string { return agent.MessageKindLabel(m.Kind()) }

func printCoordTasks(w io.Writer, ts []agent.CoordTask) {
	rows := make([][]string, 0, len(ts))
	for _, t := range ts {
		rows = append(rows, []string{cell(t.TaskID, 20), cell(t.Peer, 20), cell(t.Side, 10), cell(t.State, 12),
			dash(cell(t.LastType, 16)), when(t.UpdatedAt), cell(t.Summary, 50)})
	}
	table(w, []string{"TASK", "WITH", "SIDE", "STATE", "LAST", "UPDATED", "SUMMARY"}, rows)
}
