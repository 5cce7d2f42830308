package secretary

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// Snapshot describes the owner's current work (seed 000 ContextSnapshot):
// uncommitted and recently committed files, the assistant conversation,
// errors and FIXMEs, the latest test run. It is for the owner and their
// coding assistant (ctl.snapshot, the MCP resource), not filtered by an ACL.
func (s *Secretary) Snapshot(ctx context.Context) (wire.ContextSnapshot, error) {
	now := s.now()
	snap := wire.ContextSnapshot{Timestamp: now, ActiveFiles: []string{}, RecentChanges: []wire.FileChange{},
		RecentChat: []wire.ChatLine{}, ActiveErrors: []wire.ActiveError{}, RecentTests: []wire.TestOutcome{}}
	evs, err := s.db.RecentContext(ctx, store.ContextRecent{Since: now.Add(-7 * 24 * time.Hour), Limit: 500})
	if err != nil {
		return snap, err
	}
	markers, err := s.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"marker"}, Limit: 50})
	if err != nil {
		return snap, err
	}
	active := map[string]bool{}
	addActive := func(p string) {
		if p != "" && !active[p] && len(snap.ActiveFiles) < 20 {
			active[p] = true
			snap.ActiveFiles = append(snap.ActiveFiles, p)
		}
	}
	var testsSeen bool
	var rep reportFold
	for _, e := range evs {
		m := parseMeta(e.Meta)
		switch e.Kind {
		case "worktree", "commit":
			for _, f := range m.Files {
				if e.Kind == "worktree" || now.Sub(e.TS) < 24*time.Hour {
					addActive(f.Path)
				}
				if len(snap.RecentChanges) < 20 {
					snap.RecentChanges = append(snap.RecentChanges, fileChange(e, f.Path))
				}
			}
			if snap.FocusSummary == "" && e.Kind == "commit" {
				snap.FocusSummary = e.Title
			}
		case "tool":
			addActive(m.File)
		case "prompt", "assistant":
			if len(snap.RecentChat) < 10 {
				role := "user"
				if e.Kind == "assistant" {
					role = "assistant"
				}
				snap.RecentChat = append(snap.RecentChat, wire.ChatLine{Role: role, Content: clipRunes(e.Body, snippetCap), Timestamp: e.TS})
			}
			if snap.FocusSummary == "" && e.Kind == "prompt" {
				snap.FocusSummary = strings.TrimPrefix(e.Title, "asked: ")
			}
		case KindReport:
			addActive(rep.add(&snap, e))
		case KindError:
			addActive(rep.add(&snap, e))
			snap.ActiveErrors = append(snap.ActiveErrors, wire.ActiveError{File: e.Key, Message: clipRunes(e.Title, snippetCap), Severity: "error"})
		case KindTask:
			if !testsSeen && m.Tests != nil {
				testsSeen = true
				for _, f := range m.Tests.Failures {
					snap.RecentTests = append(snap.RecentTests, wire.TestOutcome{Name: f.Test, Status: "failed"})
				}
			}
		}
		if snap.Progress == nil {
			snap.Progress = explicitProgress(e.Kind, e.Title+"\n"+e.Body, m)
		}
	}
	rep.finish(&snap)
	for _, e := range markers {
		m := parseMeta(e.Meta)
		if m.Marker != "FIXME" && m.Marker != "XXX" {
			continue
		}
		file, line, _ := strings.Cut(e.Key, ":")
		n, _ := strconv.Atoi(line)
		snap.ActiveErrors = append(snap.ActiveErrors, wire.ActiveError{File: file, Line: n, Message: clipRunes(e.Title, snippetCap), Severity: "warning"})
	}
	return snap, nil
}

// fileChange reads one file's stats back from an event's meta.
func fileChange(e store.ContextEvent, path string) wire.FileChange {
	var fc wire.FileChange
	fc.File, fc.Summary = path, clipRunes(e.Title, 120)
	var m struct {
		Files []struct {
			Path    string `json:"path"`
			Added   int    `json:"added"`
			Deleted int    `json:"deleted"`
		} `json:"files"`
	}
	if err := jsonUnmarshal(e.Meta, &m); err == nil {
		for _, f := range m.Files {
			if f.Path == path {
				fc.LinesAdded, fc.LinesRemoved = f.Added, f.Deleted
			}
		}
	}
	return fc
}
