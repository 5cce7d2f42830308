// Package source reads the owner's work into context events: git
// repositories (commits, branch, uncommitted changes, TODO/FIXME markers)
// and the coding assistant's session transcripts. Sources only read; the
// secretary redacts what they return and stores it together with the
// cursors, so a restart resumes exactly where the last stored batch ended.
package source

import (
	"context"
	"time"
)

// Event is one raw (not yet redacted) observation.
type Event struct {
	Kind  string // commit | branch | worktree | marker | prompt | assistant | tool | summary
	Ctx   string // context identifier ("" when unknown)
	Key   string // commit sha, file path, "path:line", …
	Title string
	Body  string
	TS    time.Time
	Meta  map[string]any
	// Earlier marks history older than everything indexed before it (a
	// backfill): stored below every id, in the order given (newest first).
	Earlier bool
}

// State is the complete current set of one kind of state for a context
// (its branch, its uncommitted changes, its open markers); it replaces what
// was stored before.
type State struct {
	Ctx    string
	Kind   string
	Events []Event
}

// Batch is what one poll of a source produced. Cursors are stored in the
// same transaction as the events.
type Batch struct {
	Source string
	Events []Event
	States []State
	// Removed names stored events to delete (by Ctx, Kind and Key):
	// commits a rewrite of history took out of every branch.
	Removed []Event
	Cursors map[string]string
}

// Empty reports whether the batch holds nothing to store.
func (b Batch) Empty() bool {
	return len(b.Events) == 0 && len(b.States) == 0 && len(b.Removed) == 0 && len(b.Cursors) == 0
}

// Cursors reads saved source positions (store.DB implements it).
type Cursors interface {
	ContextCursor(ctx context.Context, name string) (value string, ok bool, err error)
}
