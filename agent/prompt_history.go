package agent

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/store"
)

// PromptHistory returns the prompt bar's stored lines, oldest first.
func (c *Core) PromptHistory(ctx context.Context) ([]string, error) {
	return c.db.PromptHistory(ctx, PromptHistoryKeep)
}

// RememberPrompt stores a line typed in the prompt bar, redacted like
// everything else aoi keeps: a question or a note may carry a secret.
func (c *Core) RememberPrompt(ctx context.Context, req PromptLine) error {
	line := strings.TrimSpace(req.Line)
	switch n := utf8.RuneCountInString(line); {
	case line == "":
		return errs.Invalid("prompt line: empty; there is nothing to remember")
	case n > MaxPromptLine:
		return errs.Invalid("prompt line: %d characters; the limit is %d", n, MaxPromptLine)
	}
	line = c.redactOut(line)
	return c.db.Write(ctx, func(tx *store.Tx) error { return tx.AddPromptLine(line, PromptHistoryKeep) })
}
