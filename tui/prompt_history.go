package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
)

// The prompt bar's history lives in the core (PromptService), so `up`
// finds yesterday's lines and an attached interface shares them.
type (
	// promptHistoryMsg carries the lines stored by earlier sessions.
	promptHistoryMsg struct {
		lines []string
		err   error
	}
	// promptSavedMsg says whether a line typed now was stored.
	promptSavedMsg struct{ err error }
)

// loadPromptHistory fetches the stored lines once the core answers: the
// first status that loads asks for them, and a failed load is retried
// with the next one.
func (m *Model) loadPromptHistory() tea.Cmd {
	if m.promptHistory != historyNotLoaded {
		return nil
	}
	m.promptHistory = historyLoading
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, to)
		defer cancel()
		lines, err := svc.PromptHistory(ctx)
		return promptHistoryMsg{lines: lines, err: err}
	}
}

// savePromptLine stores a line just typed.
func (m *Model) savePromptLine(line string) tea.Cmd {
	svc, ctx, to := m.svc, m.ctx, m.opts.CallTimeout
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, to)
		defer cancel()
		return promptSavedMsg{err: svc.RememberPrompt(ctx, agent.PromptLine{Line: line})}
	}
}

// historyState is how far the stored prompt history has come.
type historyState int

const (
	historyNotLoaded historyState = iota
	historyLoading
	historyLoaded
)

// handlePromptHistory merges the stored lines in, or notes the failure in
// the error log (:errors) and tries again later: the history is a comfort,
// not worth a notice over what the owner is doing.
func (m *Model) handlePromptHistory(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case promptHistoryMsg:
		if msg.err != nil {
			m.promptHistory = historyNotLoaded
			m.logError("loading the prompt history: " + msg.err.Error())
			return true
		}
		m.promptHistory = historyLoaded
		m.prompt.restore(msg.lines)
	case promptSavedMsg:
		if msg.err != nil {
			m.logError("saving the prompt line (it stays in this session's history): " + msg.err.Error())
		}
	default:
		return false
	}
	return true
}
