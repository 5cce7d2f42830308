package tui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// outboxShownMsg carries what :outbox fetched.
type outboxShownMsg struct {
	entries []agent.OutboxEntry
	err     error
}

// outboxTitle names the dialog :outbox opens.
const outboxTitle = "Undelivered, oldest first"

// showOutbox fetches what waits to be delivered to peers, for :outbox
// (the status bar counts it: `2 undelivered`).
func (m *Model) showOutbox() tea.Cmd {
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, to)
		defer cancel()
		entries, err := svc.Outbox(ctx)
		return outboxShownMsg{entries: entries, err: err}
	}
}

func (m *Model) handleOutboxShown(msg outboxShownMsg) {
	if msg.err != nil {
		m.fail("cannot list what waits to be delivered", msg.err)
		return
	}
	if len(msg.entries) == 0 {
		m.info("nothing waits to be delivered to peers")
		return
	}
	m.pushDialog(newDetailDialog(outboxTitle, outboxText(m.env, msg.entries)))
}

// outboxText lists each waiting entry as `aoi outbox` does: what, to
// whom, tries, when the next try is and until when, and why the last
// failed (the peer's refusal in its words, sanitised).
func outboxText(e *env, entries []agent.OutboxEntry) string {
	var b strings.Builder
	for i, o := range entries {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "%s %s to %s", Sanitize(o.What), Sanitize(o.ID), Sanitize(o.To))
		if o.Refused {
			b.WriteString(": refused")
		}
		fmt.Fprintf(&b, "\nqueued %s · %s", clockAt(e, o.CreatedAt), countOf(o.Attempts, "try", "tries"))
		if !o.NextAttemptAt.IsZero() {
			fmt.Fprintf(&b, " · next try %s", clockAt(e, o.NextAttemptAt))
		}
		if !o.ExpiresAt.IsZero() {
			fmt.Fprintf(&b, " · expires %s", clockAt(e, o.ExpiresAt))
		}
		if o.LastError != "" {
			fmt.Fprintf(&b, "\nwhy: %s", Sanitize(o.LastError))
		}
	}
	b.WriteString("\n\nEach is tried again until it is delivered or expires. From a shell, " +
		"`aoi outbox retry ID` tries one now and `aoi outbox drop ID` withdraws it.")
	return b.String()
}
