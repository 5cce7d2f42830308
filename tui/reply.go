package tui

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	tea "charm.land/bubbletea/v2"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// reply is :reply ID text: a typed message back to whoever sent the
// received message ID (its seq), in its thread and task, of the type a reply to it
// usually has (an answer to a question). The walk read a colleague's
// question in the Messages pane and had to leave the interface to answer
// it. What became of the reply (delivered, queued, refused) is said as
// `aoi send` says it.
func (m *Model) reply(seq, text string) tea.Cmd {
	if problem := replyProblem(promptCommand{name: "reply", id: seq}, m.messages); problem != "" {
		m.fail(problem, nil)
		return nil
	}
	to, _ := m.messages.bySeq(seq)
	req := agent.SendMessageRequest{To: to.From, Type: replyType(to.Type), TaskID: to.TaskID, ReplyTo: to.MessageID}
	req.Payload, _ = json.Marshal(map[string]string{"message": text})
	svc, ctx, timeout := m.svc, m.ctx, m.opts.CallTimeout
	failed := "replying to " + Sanitize(to.From) + "'s " + messageKind(to)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		sent, err := svc.SendMessage(ctx, req)
		if err == nil && sent.Refused {
			err = errors.New(sent.Note) // queued, but not on its way
		}
		return doneMsg{what: Sanitize(sent.Type) + " " + Sanitize(sent.ID) + " to " + Sanitize(sent.To) + ": " + Sanitize(sent.Note),
			failed: failed, err: err, refresh: dMessages}
	}
}

// replyProblem says why :reply's ID names no message to reply to ("" when
// it does): the bar stays open with the line, so a mistyped ID is mended
// rather than the reply retyped (the fourteenth walk's `:reply 99 …` closed
// the bar on its text).
func replyProblem(c promptCommand, p *messagesPane) string {
	if c.name != "reply" {
		return ""
	}
	to, ok := p.bySeq(c.id)
	if !ok {
		return "no message " + Sanitize(c.id) + " in the Messages pane to reply to; its detail (enter) shows each message's ID"
	}
	if to.Type == "" || !wire.ValidID(to.MessageID) {
		return "message " + Sanitize(c.id) + " is " + messageKind(to) + " from " + Sanitize(to.From) +
			", not a message to reply to; reply to a typed message (a question, a task_assign, a note)"
	}
	return ""
}

// replyType is the type a reply to a typed message of type typ has.
func replyType(typ string) string {
	if t := replyTypes[typ]; t != "" {
		return t
	}
	return wire.MsgNote
}

// bySeq is the received message with this seq, as the pane holds it.
func (p *messagesPane) bySeq(seq string) (agent.Message, bool) {
	n, err := strconv.ParseInt(seq, 10, 64)
	if err != nil {
		return agent.Message{}, false
	}
	for _, r := range p.rows {
		if r.Seq == n {
			return r, true
		}
	}
	return agent.Message{}, false
}
