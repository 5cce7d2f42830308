package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/aoi-protocol/aoi/agent/redact"
	"github.com/aoi-protocol/aoi/agent/secretary"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// Options configure one evaluation run.
type Options struct {
	Work     string    // folder for the clones (kept) and the index (rebuilt each run unless ReuseIndex); "" = a temporary one, removed afterwards
	ReposDir string    // local copies of the repositories (AOI_EVAL_REPOS_DIR); "" clones from GitHub
	Seed     uint64    // seeds the fake secrets
	Only     []string  // question ids to ask ("" = all)
	Log      io.Writer // progress lines (nil = none)
	// ReuseIndex keeps the index in Work for the next run, and uses the
	// one an earlier run kept when it was built from the same
	// repositories, planting and seed by the same IndexCode; any other
	// index is rebuilt.
	ReuseIndex bool
	// IndexCode is the version of the code that builds the index
	// (IndexCodeVersion); "" never reuses an index.
	IndexCode string
}

// maxIndexPolls bounds the polls run until the index stops growing (a
// source may read a long history over several polls).
const maxIndexPolls = 400

// evalSearchBudget bounds one search in the evaluation (see store.WithSearchBudget).
const evalSearchBudget = 5 * time.Second

// Run builds the corpus's repositories, indexes them with the real
// secretary and asks every question.
func Run(ctx context.Context, c *Corpus, o Options) (*Report, error) {
	logf := func(format string, a ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", a...)
		}
	}
	work := o.Work
	if work == "" {
		tmp, err := os.MkdirTemp("", "aoi-eval-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		work = tmp
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	work, err := filepath.Abs(work)
	if err != nil {
		return nil, err
	}
	// Dates are set relative to the hour, so runs within one hour rebuild
	// identical histories (same SHAs in the report).
	now := time.Now().Truncate(time.Hour)
	// The index is rebuilt on every run: a kept one would hold the notes,
	// test runs and planted commits of every earlier run again (the
	// clones are kept). A kept index built for the same key is reused:
	// the histories are rebuilt from the hour it was dated from, and the
	// secretary's clock is moved back by as much, so the answers see the
	// ages a fresh index would give.
	key := ""
	reused := false
	if o.ReuseIndex && o.IndexCode != "" && o.Work != "" {
		if key, err = indexKey(c, o.Seed, o.IndexCode); err != nil {
			return nil, err
		}
		if kept, ok := reusableIndex(work, key); ok {
			now, reused = kept, true
		}
	}
	if !reused {
		if err := forgetIndex(work); err != nil {
			return nil, err
		}
		if err := removeIndex(work); err != nil {
			return nil, err
		}
	}
	var shift time.Duration
	if reused {
		shift = time.Now().Truncate(time.Hour).Sub(now)
	}
	sec := newSecrets(rand.New(rand.NewPCG(o.Seed, 14)))
	planted := map[string]*Planted{}
	for _, spec := range c.Repos {
		start := time.Now()
		p, err := prepare(ctx, spec, filepath.Join(work, "repos"), o.ReposDir, now, sec)
		if err != nil {
			return nil, err
		}
		planted[spec.Name] = p
		logf("prepared %s at %.12s (%d objects mapped) in %s", spec.Name, spec.SHA, len(p.SHAs), time.Since(start).Round(time.Millisecond))
	}
	cfg, err := evalConfig(c.Repos, planted)
	if err != nil {
		return nil, err
	}
	// A generous search bound: the same answers on a busy machine as on a
	// quiet one (the default 25 ms cuts index walks short under load).
	db, err := store.Open(filepath.Join(work, "aoi.db"), store.WithSearchBudget(evalSearchBudget))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	red, err := redact.New(nil)
	if err != nil {
		return nil, err
	}
	s, err := secretary.New(db, cfg, red, secretary.Options{Now: func() time.Time { return time.Now().Add(-shift) }})
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if !reused {
		if err := index(ctx, s, db, c.Repos, now, sec, logf); err != nil {
			return nil, err
		}
		if key != "" {
			if err := keepIndex(work, key, now); err != nil {
				return nil, err
			}
		}
	}
	stats, err := s.Stats(ctx)
	if err != nil {
		return nil, err
	}
	if reused {
		logf("reused the kept index (%d events, dated from %s)", stats.Events, now.Format(time.RFC3339))
	} else {
		logf("indexed %d events in %s", stats.Events, time.Since(start).Round(time.Millisecond))
	}
	rep := &Report{Threshold: cfg.Secretary.InterruptControl.AutoRespondThreshold, Events: stats.Events, Seed: o.Seed}
	for _, spec := range c.Repos {
		rep.Repos = append(rep.Repos, RepoInfo{Name: spec.Name, URL: spec.URL, SHA: spec.SHA})
	}
	if err := checkGroundTruth(c.Questions, planted); err != nil {
		return nil, err
	}
	only := map[string]bool{}
	for _, id := range o.Only {
		only[id] = true
	}
	for _, q := range c.Questions {
		if len(only) > 0 && !only[q.ID] {
			continue
		}
		t0 := time.Now()
		ans, err := s.Answer(ctx, secretary.Question{From: "pm-eval", Text: q.Text})
		if err != nil {
			return nil, fmt.Errorf("question %s: %w", q.ID, err)
		}
		r := score(q, ans, planted[q.Repo].SHAs, sec, rep.Threshold)
		r.Foreign = foreignBlockers(r.Listed, q.Repo, c.Questions)
		r.Millis = float64(time.Since(t0).Microseconds()) / 1000
		rep.Results = append(rep.Results, r)
	}
	rep.summarise()
	return rep, nil
}

// evalConfig is the config a user with these repositories would write:
// one repository context each, everything else at its default.
func evalConfig(specs []RepoSpec, planted map[string]*Planted) (*config.Config, error) {
	type ctxJSON struct {
		Type       string `json:"type"`
		Identifier string `json:"identifier"`
		LocalPath  string `json:"local_path"`
	}
	doc := map[string]any{
		"version": "1.0",
		"agent":   map[string]any{"id": "eng-eval", "role": "engineer", "owner": "eval"},
	}
	var ctxs []ctxJSON
	for _, s := range specs {
		ctxs = append(ctxs, ctxJSON{Type: "repository", Identifier: s.Context, LocalPath: planted[s.Name].Dir})
	}
	doc["contexts"] = ctxs
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return config.Parse("eval.json", raw, func(string) (string, bool) { return "", false })
}

// index does what the secretary's Run loop does, until the index stops
// growing: poll every source, merge index segments, prune past retention.
// The owner's notes are stored as `aoi note` stores them.
func index(ctx context.Context, s *secretary.Secretary, db *store.DB, specs []RepoSpec, now time.Time, sec Secrets, logf func(string, ...any)) error {
	last := int64(-1)
	for i := 0; i < maxIndexPolls; i++ {
		if err := s.PollNow(ctx); err != nil {
			return fmt.Errorf("index: %w", err)
		}
		st, err := s.Stats(ctx)
		if err != nil {
			return err
		}
		if st.Events == last {
			break
		}
		last = st.Events
	}
	for _, spec := range specs {
		for _, n := range spec.Plant.Notes {
			ev := secretary.NoteEvent(sec.fill(n.Text))
			ev.TS = now.Add(-time.Duration(n.AgeHours * float64(time.Hour)))
			if _, err := s.Ingest(ctx, ev); err != nil {
				return err
			}
		}
	}
	if err := db.MergeContextIndex(ctx, 1000); err != nil {
		return err
	}
	return s.Prune(ctx)
}

// checkGroundTruth fails when a question names a commit that is not in its
// repository's pinned history (a typo would silently lower the score).
func checkGroundTruth(qs []Question, planted map[string]*Planted) error {
	for _, q := range qs {
		for _, c := range q.Commits {
			if len(mapSHAs([]string{c}, planted[q.Repo].SHAs)) != 1 {
				return fmt.Errorf("question %s: commit %s is not (exactly once) in %s's pinned history", q.ID, c, q.Repo)
			}
		}
	}
	return nil
}

// removeIndex deletes the SQLite index an earlier run left in work.
func removeIndex(work string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(filepath.Join(work, "aoi.db"+suffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("eval: remove the previous index: %w", err)
		}
	}
	return nil
}
