package secretary

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// evidence groups search hits by file, commit, task and note.
type evidence struct {
	files    map[string]*fileEvidence
	commits  []wire.ContextRef
	tasks    []wire.ContextRef
	notes    []wire.ContextRef
	contexts []string // contexts the hits come from, best first
}

type fileEvidence struct {
	path    string
	lo, hi  int
	score   float64
	summary string
	order   int
}

// groupEvidence folds hits (best first) into per-file, per-commit,
// per-task and per-note evidence.
func groupEvidence(hits []store.ContextHit, pq parsedQuery) *evidence {
	ev := &evidence{files: map[string]*fileEvidence{}}
	seenCtx, seenCommit := map[string]bool{}, map[string]bool{}
	for _, h := range hits {
		if h.Ctx != "" && !seenCtx[h.Ctx] {
			seenCtx[h.Ctx] = true
			ev.contexts = append(ev.contexts, h.Ctx)
		}
		m := parseMeta(h.Meta)
		summary := clipRunes(h.Title, 120)
		switch h.Kind {
		case "commit":
			if !seenCommit[h.Key] && len(h.Key) >= 7 {
				seenCommit[h.Key] = true
				ev.commits = append(ev.commits, wire.ContextRef{Type: "commit", Ref: h.Key[:7], Summary: summary})
			}
			for _, f := range m.Files {
				ev.addFile(f.Path, f.Lines, h.Score, summary, pq)
			}
		case "marker":
			file, line, _ := strings.Cut(h.Key, ":")
			ev.addFile(file, line+"-"+line, h.Score, summary, pq)
		case KindTask:
			ev.tasks = append(ev.tasks, wire.ContextRef{Type: "task", Ref: h.Key, Summary: summary})
		case KindNote:
			ev.notes = append(ev.notes, wire.ContextRef{Type: "note", Ref: h.TS.UTC().Format("2006-01-02T15:04Z"), Summary: clipRunes(h.Snippet, 120)})
		default:
			for _, f := range eventFiles(store.ContextEvent{Kind: h.Kind, Key: h.Key, Meta: h.Meta}) {
				ev.addFile(f, "", h.Score, summary, pq)
			}
		}
	}
	return ev
}

// addFile merges one piece of evidence about a file. Files named by the
// question or containing one of its terms weigh double.
func (ev *evidence) addFile(p, lines string, score float64, summary string, pq parsedQuery) {
	if p == "" {
		return
	}
	f := ev.files[p]
	if f == nil {
		f = &fileEvidence{path: p, summary: summary, order: len(ev.files)}
		ev.files[p] = f
	}
	low := strings.ToLower(p)
	for _, t := range pq.Terms {
		if strings.Contains(low, t) {
			score *= 2
			break
		}
	}
	f.score += score
	// The line range comes from the best evidence about the file (hits
	// arrive best first): a union over its whole history would soon span
	// the entire file.
	if a, b, ok := strings.Cut(lines, "-"); ok && f.lo == 0 {
		lo, err1 := strconv.Atoi(a)
		hi, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil && lo > 0 && hi >= lo {
			f.lo, f.hi = lo, hi
		}
	}
}

// files returns the file evidence, strongest first.
func (ev *evidence) rankedFiles() []*fileEvidence {
	out := make([]*fileEvidence, 0, len(ev.files))
	for _, f := range ev.files {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].order < out[j].order
	})
	return out
}

// refs lists the context references of the answer: files (with their line
// ranges when known), then commits, tasks and notes.
func (ev *evidence) refs() []wire.ContextRef {
	var out []wire.ContextRef
	for i, f := range ev.rankedFiles() {
		if i == maxFileRefs {
			break
		}
		ref := f.path
		switch {
		case f.lo > 0 && f.hi > f.lo:
			ref = fmt.Sprintf("%s:%d-%d", f.path, f.lo, f.hi)
		case f.lo > 0:
			ref = fmt.Sprintf("%s:%d", f.path, f.lo)
		}
		out = append(out, wire.ContextRef{Type: "file", Ref: ref, Summary: f.summary})
	}
	out = append(out, capRefs(ev.commits, maxCommitRefs)...)
	out = append(out, capRefs(ev.tasks, 2)...)
	return append(out, capRefs(ev.notes, 2)...)
}

func capRefs(r []wire.ContextRef, n int) []wire.ContextRef {
	if len(r) > n {
		return r[:n]
	}
	return r
}
