package secretary

import (
	"context"
	"sync"
	"time"

	"github.com/aoi-protocol/aoi/agent/secretary/source"
)

// HistoryProgress is how far the indexing of one repository's history has
// come: the first poll indexes its newest commits, the rest of the branch
// inside retention_days follows in the background (source/git_backfill.go).
type HistoryProgress struct {
	Context string `json:"context"`
	Indexed int    `json:"indexed"` // commits indexed so far
	Total   int    `json:"total"`   // commits of the branch inside the retention window (0: not known yet)
	Done    bool   `json:"done"`
	// Error is why the last poll of the repository failed ("" when it
	// worked): a repository git cannot read indexes nothing.
	Error string `json:"error,omitempty"`
}

// totals caches the commit count of a walk, keyed by context, start, the
// head last indexed and window day: counting asks git, and the status is
// read often. A walk from HEAD (start "") counts again once a new commit
// is indexed (the walk's status said 4 commits after a fifth).
type totals struct {
	mu sync.Mutex
	m  map[string]int
}

func (t *totals) get(ctx context.Context, r source.Repo, start, head string, since time.Time) int {
	key := r.Ctx + "\x00" + start + "\x00" + head + "\x00" + since.Format("2006-01-02")
	t.mu.Lock()
	defer t.mu.Unlock()
	if n, ok := t.m[key]; ok {
		return n
	}
	n, err := source.HistoryCount(ctx, r, start, since)
	if err != nil {
		return 0
	}
	if t.m == nil || len(t.m) > 256 {
		t.m = map[string]int{}
	}
	t.m[key] = n
	return n
}

// History reports, per configured repository, how much of its history is
// indexed. A repository not polled yet shows 0 indexed.
func (s *Secretary) History(ctx context.Context) ([]HistoryProgress, error) {
	cfg := s.config()
	since := s.now().Add(-retention(cfg)).Truncate(24 * time.Hour)
	var out []HistoryProgress
	for _, r := range repos(cfg) {
		p := HistoryProgress{Context: r.Ctx}
		v, ok, err := s.db.ContextCursor(ctx, source.CursorBackfill(r.Ctx))
		if err != nil {
			return nil, err
		}
		head, _, err := s.db.ContextCursor(ctx, source.CursorHead(r.Ctx))
		if err != nil {
			return nil, err
		}
		start, bp, valid := source.ParseBackfill(v)
		switch {
		case ok && valid && bp.Done:
			p.Done = true
			p.Total = s.totals.get(ctx, r, "", head, since)
			p.Indexed = p.Total
		case ok && valid:
			p.Indexed = bp.Indexed
			p.Total = max(s.totals.get(ctx, r, start, head, since), p.Indexed)
		default:
			p.Total = s.totals.get(ctx, r, "", head, since)
		}
		if e, ok := s.pollErrs.Load(r.Ctx); ok {
			p.Error = e.(string)
		}
		out = append(out, p)
	}
	return out, nil
}
