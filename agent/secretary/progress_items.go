package secretary

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aoi-protocol/aoi/store"
)

// maxInProgress bounds the in-progress items a summary names.
const maxInProgress = 3

// inProgress lists what is being worked on now about the question's topic
// (all of it when the question names none): the uncommitted changes to
// files the evidence is about, TODOs the uncommitted diff adds, and notes
// or assistant reports that match. Blockers are left out: they have their
// own part of the answer.
func (s *Secretary) inProgress(ctx context.Context, pq parsedQuery, hits []store.ContextHit, ev *evidence, contexts []string, ac *accessCheck) ([]string, error) {
	ctxs := ev.contexts
	if len(ctxs) == 0 {
		ctxs = contexts
	}
	state, err := s.db.RecentContext(ctx, store.ContextRecent{Kinds: []string{"worktree", "marker"}, Contexts: ctxs, Limit: 400})
	if err != nil {
		return nil, err
	}
	top := map[string]bool{}
	for i, f := range ev.rankedFiles() {
		if i == 3 {
			break
		}
		top[f.path] = true
	}
	topical := func(file string) bool {
		return len(pq.Concepts) == 0 || top[file] || pathNames(file, pq)
	}
	var items []string
	from := map[string][]string{} // an item's text → the resources of the state event it says
	for _, e := range state {
		if !ac.allow(e) {
			continue
		}
		item := ""
		switch m := parseMeta(e.Meta); {
		case e.Kind == "worktree":
			var files []string
			for _, f := range m.Files {
				if topical(f.Path) {
					files = append(files, f.Path)
				}
			}
			if len(files) > 0 {
				sort.Strings(files)
				item = uncommittedItem(pq.Japanese, files)
			}
		case m.Marker == "TODO" && m.Uncommitted && topical(fileOfMarker(e)):
			item = e.Title
		}
		if item != "" {
			items = append(items, item)
			from[item] = append(from[item], eventResources(e)...)
		}
	}
	for _, h := range hits {
		if (h.Kind == KindNote || h.Kind == KindReport) && !saysBlocked(h.Title+" "+h.Body) && !recordsSecret(h.Body) {
			items = append(items, clipRunes(h.Title, 100)) // cited with the hits
		}
	}
	items = unique(items) // the same note stored twice reads once
	if len(items) > maxInProgress {
		items = items[:maxInProgress]
	}
	for _, it := range items {
		ac.cite(from[it]...)
	}
	return items, nil
}

// recordsSecret reports whether a note is a label and a secret ("staging
// token: …", "鍵は …"), the secret redacted when it was stored: a
// credential the owner wrote down, not work to report. A note that says
// something besides ("rotated the token [REDACTED:…], deploy unblocked")
// is work and stays.
func recordsSecret(text string) bool {
	text = strings.TrimSpace(text)
	rest, found := text, false
	for {
		i := strings.LastIndex(rest, redactedMark)
		if i < 0 {
			break
		}
		end := strings.IndexByte(rest[i:], ']')
		if end < 0 {
			break
		}
		if tail := strings.TrimRight(strings.TrimSpace(rest[i+end+1:]), "。.、,;；"); tail != "" {
			break // words after the secret: the note says more
		}
		rest, found = strings.TrimSpace(rest[:i]), true
	}
	if !found {
		return false
	}
	for _, label := range []string{":", "：", "=", "は", " is", "->", "→"} {
		if strings.HasSuffix(rest, label) {
			return true
		}
	}
	return rest == ""
}

// redactedMark starts a secret taken out by the redactor
// ("[REDACTED:github-pat]").
const redactedMark = "[REDACTED:"

func unique(items []string) []string {
	var out []string
	for _, it := range items {
		if !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return out
}

// uncommittedItem names uncommitted files, at most three.
func uncommittedItem(ja bool, files []string) string {
	more := ""
	if len(files) > 3 {
		more = fmt.Sprintf(" (+%d)", len(files)-3)
		files = files[:3]
	}
	if ja {
		return "未コミットの変更 " + strings.Join(files, ", ") + more
	}
	return "uncommitted changes to " + strings.Join(files, ", ") + more
}
