package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aoi-protocol/aoi/agent/acl"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/peerapi"
	"github.com/aoi-protocol/aoi/agent/redact"
	"github.com/aoi-protocol/aoi/agent/secretary"
	"github.com/aoi-protocol/aoi/agent/secretary/interrupt"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// errNoMirror is returned when context mirroring is off in the config.
var errNoMirror = errors.New("context mirroring is off; set secretary.context_mirroring.enabled to true and reload")

// openSecretary builds the context mirror when the config enables it. The
// redactor (gitleaks' rule set, tens of MiB) is built on first use when
// mirroring is off: a core that never answers from the mirror may never
// need it.
func (c *Core) openSecretary(ctx context.Context, cfg *config.Config) error {
	if !cfg.Secretary.ContextMirroring.Enabled {
		return nil
	}
	red, err := c.redactorFor()
	if err != nil {
		return err
	}
	sec, err := secretary.New(c.db, cfg, red, secretary.Options{Now: c.now, Clock: c.clock, Logger: c.log.With("component", "secretary")})
	if err != nil {
		return err
	}
	c.sec = sec
	c.ext.onStart(func(ctx context.Context) {
		if err := sec.Run(ctx); err != nil && ctx.Err() == nil {
			c.log.Error("context mirror stopped", "component", "secretary", "err", err)
		}
	})
	c.ext.onReload(sec.Reload)
	return nil
}

// secretaryDecide drafts an answer from the mirror and applies the
// interrupt rules; ok is false when mirroring is off.
func (c *Core) secretaryDecide(ctx context.Context, caller rpc.Caller, p wire.QueryParams) (peerapi.Handling, bool, error) {
	if c.sec == nil {
		return peerapi.Handling{}, false, nil
	}
	allowed := c.policy.Load().Allowed(c.peerAPI.Subject(caller), acl.Read)
	ans, err := c.sec.Answer(ctx, secretary.Question{From: p.From, Text: p.Query, Scope: p.ContextScope, Allowed: allowed})
	var unknown *secretary.UnknownContextError
	if errors.As(err, &unknown) {
		return peerapi.Handling{}, true, rpc.ContextNotFound(c.selfID(), unknown.Scope)
	}
	if err != nil {
		return peerapi.Handling{}, true, err
	}
	ic := c.config().Secretary.InterruptControl
	r := interrupt.Decide(interrupt.Input{Priority: p.Priority, Confidence: ans.Confidence, Now: c.now(),
		FocusHours: ic.FocusModeHours, FocusOverride: c.inbox.FocusOverride(), Threshold: ic.AutoRespondThreshold, Enabled: ic.Enabled})
	draft := ans.Result
	return peerapi.Handling{Decision: string(r.Decision), Confidence: ans.Confidence, Draft: &draft, Sources: ans.Sources}, true, nil
}

// redactorFor builds the redactor once, from the config's patterns.
func (c *Core) redactorFor() (*redact.Redactor, error) {
	c.redactorOnce.Do(func() {
		cfg := c.config()
		pats := make([]redact.Pattern, 0, len(cfg.Secretary.Redaction.Patterns))
		for _, p := range cfg.Secretary.Redaction.Patterns {
			pats = append(pats, redact.Pattern{ID: p.ID, Regex: p.Regex})
		}
		c.redactor, c.redactorErr = redact.Shared(pats)
		if c.redactorErr != nil {
			c.redactorErr = fmt.Errorf("secretary.redaction: %w", c.redactorErr)
		}
	})
	return c.redactor, c.redactorErr
}

// redactOut removes secrets from text that leaves the machine. If the
// redactor cannot be built (a bad owner pattern, caught at config load), the
// text is withheld rather than sent unredacted.
func (c *Core) redactOut(s string) string {
	red, err := c.redactorFor()
	if err != nil {
		c.log.Error("redactor unavailable; withholding text", "component", "secretary", "err", err)
		return "[REDACTED:redactor-unavailable]"
	}
	return red.String(s)
}

// Note records an owner note in the context mirror and says its id.
func (c *Core) Note(ctx context.Context, req NoteRequest) (NoteSaved, error) {
	text := req.Text
	if strings.TrimSpace(text) == "" {
		return NoteSaved{}, errs.Invalid("note: the text is empty")
	}
	if c.sec == nil {
		return NoteSaved{}, errNoMirror
	}
	id, err := c.sec.Ingest(ctx, secretary.NoteEvent(text))
	if err != nil {
		return NoteSaved{}, err
	}
	return NoteSaved{ID: id}, c.auditOwner(ctx, "ctl.note", map[string]any{"id": id, "bytes": len(text)})
}

// Notes lists the owner's notes, newest first (redacted, as stored).
func (c *Core) Notes(ctx context.Context, req NotesRequest) ([]Note, error) {
	evs, err := c.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{secretary.KindNote}, Limit: limitOr(req.Limit, 50)})
	if err != nil {
		return nil, err
	}
	out := make([]Note, 0, len(evs))
	for _, ev := range evs {
		if ev.Source == secretary.SourceNote {
			out = append(out, Note{ID: ev.ID, Text: cmp.Or(ev.Body, ev.Title), At: ev.TS})
		}
	}
	return out, nil
}

// DeleteNote removes one of the owner's notes from the mirror, so the
// secretary no longer answers from it (errs.ErrNotFound for another id).
func (c *Core) DeleteNote(ctx context.Context, req DeleteNoteRequest) error {
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		if err := tx.DeleteNote(req.ID); err != nil {
			return err
		}
		_, err := tx.AppendAudit("owner", "ctl.note.delete", "ok", map[string]any{"id": req.ID})
		return err
	})
	if errors.Is(err, store.ErrNotFound) {
		return errs.NotFound("no note %d; `aoi note --list` shows them with their ids", req.ID)
	}
	return err
}

// ReportEvent records a coding-assistant event in the context mirror.
func (c *Core) ReportEvent(ctx context.Context, ev ReportedEvent) error {
	if c.sec == nil {
		return errNoMirror
	}
	if ev.Type == "" {
		return errs.Invalid("report_event: type is required (e.g. file.edited, test.run, progress)")
	}
	if ev.Progress != nil && (*ev.Progress < 0 || *ev.Progress > 100) {
		return errs.Invalid("report_event: progress %d is outside 0–100", *ev.Progress)
	}
	_, err := c.sec.Ingest(ctx, secretary.ReportEvent("", ev.Type, ev.File, ev.Content, ev.Progress, ev.Metadata))
	if err != nil {
		return err
	}
	return c.auditOwner(ctx, "ctl.report_event", map[string]any{"type": ev.Type, "file": ev.File})
}

// Snapshot returns the current context snapshot.
func (c *Core) Snapshot(ctx context.Context) (json.RawMessage, error) {
	if c.sec == nil {
		return nil, errNoMirror
	}
	snap, err := c.sec.Snapshot(ctx)
	if err != nil {
		return nil, err
	}
	return json.Marshal(snap)
}

// mirrorTaskResult feeds a finished task into the context mirror, so later
// questions about the work see its test results.
func (c *Core) mirrorTaskResult(ctx context.Context, data any) {
	out, ok := data.(task.Outcome)
	if !ok || c.sec == nil {
		return
	}
	t, found, err := c.db.Task(ctx, out.TaskID)
	if err != nil || !found {
		return
	}
	tt := c.config().Tasks[t.TaskType]
	var tests *secretary.TestSummary
	if out.Output != nil {
		tests = &secretary.TestSummary{Run: out.Output.Run, Passed: out.Output.Passed, Failed: out.Output.Failed, Skipped: out.Output.Skipped}
		for _, f := range out.Output.Failures {
			tests.Failures = append(tests.Failures, secretary.TestFailure{Test: f.Test, Package: f.Package, Message: f.Message})
		}
	}
	if _, err := c.sec.Ingest(ctx, secretary.TaskEvent(t.ID, t.TaskType, out.Status, tt.Context, out.Error, tests)); err != nil {
		c.log.Warn("mirror task result", "component", "secretary", "task", t.ID, "err", err)
	}
}

// auditOwner appends an audit row for something the owner did.
func (c *Core) auditOwner(ctx context.Context, method string, detail any) error {
	return c.db.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit("owner", method, "ok", detail)
		return err
	})
}
