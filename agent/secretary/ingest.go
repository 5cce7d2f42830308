package secretary

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/secretary/source"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/store"
)

// Sources and kinds of pushed events.
const (
	SourceNote      = "note"      // the owner's notes (aoi note, the prompt bar)
	SourceAssistant = "assistant" // the coding assistant, through MCP (aoi_report_event)
	SourceTask      = "task"      // tasks aoi ran for peers

	KindNote     = "note"
	KindReport   = "report"    // an assistant event; Title holds its type
	KindError    = "error"     // an error the assistant or a task reported
	KindTask     = "task"      // a task's final state, with test counts in meta
	KindTestFail = "test.fail" // one failing test
)

// Event is something pushed into the mirror by the core: a note, an
// assistant report, a task result. It is redacted before it is stored.
type Event struct {
	Source   string         // SourceNote | SourceAssistant | SourceTask
	Kind     string         // KindNote | KindReport | KindError | KindTask
	Ctx      string         // context identifier ("" = not tied to one)
	Key      string         // file path, task id, …
	Title    string         // one line
	Body     string         // details (bounded by the store)
	Progress *int           // an explicit 0–100 progress figure, if any
	Tests    *TestSummary   // test results of a task
	TS       time.Time      // default: now
	Meta     map[string]any // extra facts (strings are redacted)
}

// TestSummary is the outcome of a test run.
type TestSummary struct {
	Run      int           `json:"run"`
	Passed   int           `json:"passed"`
	Failed   int           `json:"failed"`
	Skipped  int           `json:"skipped"`
	Failures []TestFailure `json:"failures,omitempty"`
}

// TestFailure is one failing test and what it printed.
type TestFailure struct {
	Test    string `json:"test"`
	Package string `json:"package,omitempty"`
	Message string `json:"message,omitempty"`
}

// NoteEvent is an owner note (ctl.note).
func NoteEvent(text string) Event {
	return Event{Source: SourceNote, Kind: KindNote, Title: firstLine(text), Body: text}
}

// ReportEvent is an event from the coding assistant (ctl.report_event,
// aoi_report_event): typ such as "file.edited", "test.run", "progress",
// "error"; file is repository-relative when known.
func ReportEvent(ctxID, typ, file, content string, progress *int, meta map[string]any) Event {
	kind := KindReport
	if typ == "error" || strings.HasSuffix(typ, ".error") || strings.HasSuffix(typ, ".failed") {
		kind = KindError
	}
	title := typ
	if line := firstLine(content); line != "" {
		title = typ + ": " + line
	}
	return Event{Source: SourceAssistant, Kind: kind, Ctx: ctxID, Key: file, Title: title, Body: content, Progress: progress, Meta: meta}
}

// TaskEvent is a finished task (from the tasks subsystem): its id, type,
// final state, context, error text and parsed test results (nil if none).
func TaskEvent(taskID, taskType, state, ctxID, errText string, tests *TestSummary) Event {
	title := fmt.Sprintf("task %s (%s): %s", taskType, taskID, state)
	if tests != nil {
		title += fmt.Sprintf(", %d/%d tests passed", tests.Passed, tests.Run)
	}
	return Event{Source: SourceTask, Kind: KindTask, Ctx: ctxID, Key: taskID, Title: title, Body: errText, Tests: tests,
		Meta: map[string]any{"task_type": taskType, "state": state}}
}

// Ingest redacts ev and stores it (and, for a task with failing tests, one
// event per failure so they can be searched). It returns after the commit,
// with the id ev is stored under (a note's, which `aoi note --delete`
// takes).
func (s *Secretary) Ingest(ctx context.Context, ev Event) (id int64, err error) {
	if ev.Source == "" {
		ev.Source = SourceNote
	}
	if ev.Kind == "" {
		ev.Kind = KindNote
	}
	if ev.TS.IsZero() {
		ev.TS = s.now()
	}
	if ev.Title == "" {
		ev.Title = firstLine(ev.Body)
	}
	if ev.Ctx == "" && ev.Source == SourceAssistant && ev.Key != "" {
		// A path from the assistant: file it under its context, so the
		// context's folder rules apply to it.
		ev.Ctx, ev.Key = locateRepo(ev.Key, repos(s.config()))
	}
	meta := map[string]any{}
	for k, v := range ev.Meta {
		meta[k] = v
	}
	if ev.Progress != nil {
		meta["progress"] = min(max(*ev.Progress, 0), 100)
	}
	if ev.Tests != nil {
		meta["tests"] = ev.Tests
	}
	evs := []store.ContextEvent{{Source: ev.Source, Kind: ev.Kind, Ctx: ev.Ctx, Key: ev.Key, Title: ev.Title, Body: ev.Body, TS: ev.TS}}
	if evs[0].Meta, err = s.redactMeta(meta); err != nil {
		return 0, err
	}
	if ev.Tests != nil {
		for _, f := range ev.Tests.Failures {
			evs = append(evs, store.ContextEvent{Source: ev.Source, Kind: KindTestFail, Ctx: ev.Ctx, Key: f.Test,
				Title: testFailureLine(f), Body: f.Package + "\n" + f.Message, TS: ev.TS,
				Meta: mustJSON(map[string]any{"task": ev.Key, "package": f.Package})})
		}
	}
	prepared := make([]store.PreparedContextEvent, len(evs))
	for i := range evs {
		s.redactEvent(&evs[i])
		if prepared[i], err = store.PrepareContextEvent(evs[i]); err != nil {
			return 0, err
		}
	}
	// Everything but the statements happened above, in the caller's
	// goroutine: the single writer is what bounds ingest.
	err = s.db.Write(ctx, func(tx *store.Tx) error {
		for i, p := range prepared {
			evID, err := tx.InsertPreparedContextEvent(p)
			if err != nil {
				return err
			}
			if i == 0 {
				id = evID
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}

// locateRepo maps an absolute path to its configured context and the path
// inside it; outside every context it returns "" and the base name only
// (the owner's directory layout is nobody's business).
func locateRepo(p string, rs []source.Repo) (ctxID, rel string) {
	if !filepath.IsAbs(p) {
		return locateRelative(p, rs)
	}
	if ctxID, rel = source.Locate(p, rs); ctxID != "" {
		return ctxID, rel
	}
	return "", filepath.Base(filepath.Clean(p))
}

// locateRelative files a relative path under the repository that holds
// it, or, with one repository configured, under that one (the assistant
// works in it), symlinks followed as source.Locate does. Otherwise it
// stays unplaced, and only the owner sees it.
func locateRelative(p string, rs []source.Repo) (ctxID, rel string) {
	rel = cleanRel(filepath.ToSlash(p))
	var holders []source.Repo
	for _, r := range rs {
		if _, err := os.Lstat(filepath.Join(r.Path, filepath.FromSlash(rel))); err == nil {
			holders = append(holders, r)
		}
	}
	if len(holders) == 0 && len(rs) == 1 {
		holders = rs
	}
	if len(holders) != 1 {
		return "", rel
	}
	if ctxID, where := source.Locate(filepath.Join(holders[0].Path, filepath.FromSlash(rel)), rs); ctxID != "" {
		return ctxID, where
	}
	return "", rel // a link leading out of every checkout
}

// testFailureLine is "TestX fails: <first error line>".
func testFailureLine(f TestFailure) string {
	if line := firstErrorLine(f.Message); line != "" {
		return f.Test + " fails: " + line
	}
	return f.Test + " fails"
}

// storeBatch redacts a source batch and stores it with its cursors in one
// transaction.
func (s *Secretary) storeBatch(ctx context.Context, b source.Batch) error {
	if b.Empty() {
		return nil
	}
	events := make([]store.PreparedContextEvent, 0, len(b.Events))
	for _, e := range b.Events {
		ce, err := s.fromSource(b.Source, e)
		if err != nil {
			return err
		}
		p, err := store.PrepareContextEvent(ce)
		if err != nil {
			return err
		}
		events = append(events, p)
	}
	type state struct {
		ctx, kind string
		evs       []store.ContextEvent
	}
	var states []state
	for _, st := range b.States {
		x := state{ctx: st.Ctx, kind: st.Kind}
		for _, e := range st.Events {
			ce, err := s.fromSource(b.Source, e)
			if err != nil {
				return err
			}
			x.evs = append(x.evs, ce)
		}
		states = append(states, x)
	}
	return s.db.Write(ctx, func(tx *store.Tx) error {
		if err := removeEvents(tx, b.Source, b.Removed); err != nil {
			return err
		}
		held, err := heldCommits(tx, b.Source, b.Events)
		if err != nil {
			return err
		}
		for i, e := range events {
			if held[b.Events[i].Ctx][b.Events[i].Key] && b.Events[i].Kind == "commit" {
				continue
			}
			if _, err := tx.InsertPreparedContextEvent(e); err != nil {
				return err
			}
		}
		for _, st := range states {
			if err := tx.ReplaceContextState(b.Source, st.ctx, st.kind, st.evs); err != nil {
				return err
			}
		}
		for name, v := range b.Cursors {
			if err := tx.SetContextCursor(name, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// heldCommits is, per context, the commits of evs the mirror already
// holds. A commit is one event: when the git source lost its place (every
// commit it knew as a tip rewritten away and collected, or the checkout
// cloned anew) it indexes the newest commits and walks the history again,
// and those it already holds must not come twice.
func heldCommits(tx *store.Tx, src string, evs []source.Event) (map[string]map[string]bool, error) {
	keys := map[string][]string{}
	for _, e := range evs {
		if e.Kind == "commit" {
			keys[e.Ctx] = append(keys[e.Ctx], e.Key)
		}
	}
	held := map[string]map[string]bool{}
	for ctxID, ks := range keys {
		var err error
		if held[ctxID], err = tx.HeldContextKeys(src, ctxID, "commit", ks); err != nil {
			return nil, err
		}
	}
	return held, nil
}

// removeEvents deletes the stored events of src that removed names,
// grouped by context and kind.
func removeEvents(tx *store.Tx, src string, removed []source.Event) error {
	type group struct{ ctx, kind string }
	keys := map[group][]string{}
	for _, e := range removed {
		g := group{e.Ctx, e.Kind}
		keys[g] = append(keys[g], e.Key)
	}
	for g, ks := range keys {
		if _, err := tx.DeleteContextKeys(src, g.ctx, g.kind, ks); err != nil {
			return err
		}
	}
	return nil
}

func (s *Secretary) fromSource(src string, e source.Event) (store.ContextEvent, error) {
	ce := store.ContextEvent{Source: src, Kind: e.Kind, Ctx: e.Ctx, Key: e.Key, Title: e.Title, Body: e.Body, TS: e.TS, Earlier: e.Earlier}
	var err error
	if ce.Meta, err = s.redactMeta(e.Meta); err != nil {
		return ce, err
	}
	s.redactEvent(&ce)
	return ce, nil
}

// redactEvent removes secrets from every text field of ev.
func (s *Secretary) redactEvent(ev *store.ContextEvent) {
	ev.Key = s.redactor().String(ev.Key)
	ev.Title = s.redactor().String(ev.Title)
	ev.Body = s.redactor().String(ev.Body)
}

// redactMeta redacts every string inside meta (before encoding, so a
// replacement can never break the JSON) and encodes it.
func (s *Secretary) redactMeta(meta map[string]any) (string, error) {
	if len(meta) == 0 {
		return "", nil
	}
	// Round-trip through JSON so structs become maps and every string is reachable.
	raw, err := json.Marshal(meta)
	if err != nil {
		return "", fmt.Errorf("secretary: event metadata is not JSON-encodable: %w", err)
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return "", err
	}
	out, err := json.Marshal(s.redactor().Value(generic))
	if err != nil {
		return "", err
	}
	return string(out), nil
}

func mustJSON(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return "{}"
	}
	return string(raw)
}

// firstLine is s's first non-empty line, at most 160 characters.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return clipRunes(l, 160)
		}
	}
	return ""
}

// firstErrorLine picks the line of a test's output that says what went
// wrong: the first line mentioning an error or failure, else the first line.
func firstErrorLine(msg string) string {
	var first string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- FAIL") || l == "FAIL" {
			continue
		}
		if first == "" {
			first = l
		}
		low := strings.ToLower(l)
		if strings.Contains(low, "error") || strings.Contains(low, "refused") || strings.Contains(low, "fail") || strings.Contains(low, "panic") {
			return clipRunes(stripGoTestPrefix(l), 160)
		}
	}
	return clipRunes(stripGoTestPrefix(first), 160)
}

// stripGoTestPrefix drops go test's "file_test.go:42: " location prefix.
func stripGoTestPrefix(l string) string {
	if i := strings.Index(l, ".go:"); i > 0 && !strings.Contains(l[:i], " ") {
		rest := l[i+4:]
		if j := strings.Index(rest, ": "); j >= 0 && j < 6 {
			return strings.TrimSpace(rest[j+2:])
		}
	}
	return l
}

// clipRunes cuts s to n characters, marking the cut with "…".
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// TestSummaryFrom converts a task's parsed test results (agent/task
// Counts) into the mirror's form; nil stays nil.
func TestSummaryFrom(c *task.Counts) *TestSummary {
	if c == nil {
		return nil
	}
	ts := &TestSummary{Run: c.Run, Passed: c.Passed, Failed: c.Failed, Skipped: c.Skipped}
	for _, f := range c.Failures {
		ts.Failures = append(ts.Failures, TestFailure{Test: f.Test, Package: f.Package, Message: f.Message})
	}
	return ts
}
