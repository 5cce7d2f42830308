// Package secretary is aoi's context mirror and answering machine: it
// mirrors the owner's work (git repositories, the coding assistant's
// transcripts and reports, task results, notes) into a redacted full-text
// index and answers colleagues' questions from it with grounded summaries,
// progress and blockers (design §6, seed 002 §2.3.2–2.3.3).
package secretary

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aoi-protocol/aoi/agent/redact"
	"github.com/aoi-protocol/aoi/agent/secretary/source"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/store"
)

// Options are New's optional dependencies.
type Options struct {
	Now    func() time.Time // default Clock.Now
	Logger *slog.Logger     // default: discard
	// Clock is what Run waits on between polls (default: the wall clock;
	// tests advance a backoff.Fake instead of sleeping).
	Clock backoff.Clock
}

// Secretary mirrors context and answers queries. It is safe for concurrent
// use: Answer and Snapshot only read the index; Run's pollers and Ingest
// write through the store's single writer.
type Secretary struct {
	db    *store.DB
	now   func() time.Time
	clock backoff.Clock
	log   *slog.Logger

	mu  sync.RWMutex
	cfg *config.Config
	red *redact.Redactor

	pollMu sync.Mutex // one poll at a time (Run's ticker and PollNow)
	totals totals     // commit counts of history walks (History)
	// pollErrs maps a repository context to why its last poll failed
	// (cleared by the next good one), so the status can say it.
	pollErrs sync.Map
	// loans is the mirror's vocabulary for matching loanwords across
	// scripts (loanwords), learned as the mirror grows.
	loans loanVocab
}

// Defaults for unset config values.
const (
	defaultIndexInterval = 30 * time.Second
	defaultRetentionDays = 30
	pruneEvery           = 6 * time.Hour
	mergePagesPerPoll    = 100 // bounded FTS5 merge work between polls (~10–20 ms of writer time on 1M rows)
)

// New builds a Secretary over an open store. red must be built once by the
// caller (it is shared with everything else that redacts).
func New(db *store.DB, cfg *config.Config, red *redact.Redactor, opts Options) (*Secretary, error) {
	if db == nil || cfg == nil || red == nil {
		return nil, errors.New("secretary: a store, a config and a redactor are required")
	}
	s := &Secretary{db: db, red: red, cfg: cfg, now: opts.Now, clock: opts.Clock, log: opts.Logger}
	if s.clock == nil {
		s.clock = backoff.Real
	}
	if s.now == nil {
		s.now = s.clock.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// Reload swaps in a new config (contexts, interrupt, mirroring, LLM).
func (s *Secretary) Reload(cfg *config.Config) {
	if cfg == nil {
		return
	}
	s.mu.Lock()
	s.cfg = cfg
	s.mu.Unlock()
}

// SetRedactor swaps the redactor (after the owner changed
// secretary.redaction.patterns and the core rebuilt it).
func (s *Secretary) SetRedactor(red *redact.Redactor) {
	if red == nil {
		return
	}
	s.mu.Lock()
	s.red = red
	s.mu.Unlock()
}

func (s *Secretary) redactor() *redact.Redactor {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.red
}

func (s *Secretary) config() *config.Config {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cfg
}

// Run polls the sources every index_interval_sec and prunes old events
// until ctx is done. Polling runs here, never on the RPC path.
func (s *Secretary) Run(ctx context.Context) error {
	lastPrune := time.Time{}
	for {
		cfg := s.config()
		if cfg.Secretary.ContextMirroring.Enabled {
			if err := s.PollNow(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("context mirror poll failed", "err", err)
			}
			if err := s.db.MergeContextIndex(ctx, mergePagesPerPoll); err != nil && ctx.Err() == nil {
				s.log.Warn("context index merge failed", "err", err)
			}
			if s.now().Sub(lastPrune) > pruneEvery {
				if err := s.Prune(ctx); err != nil && ctx.Err() == nil {
					s.log.Warn("context prune failed", "err", err)
				}
				lastPrune = s.now()
			}
		}
		interval := time.Duration(cfg.Secretary.ContextMirroring.IndexIntervalSec) * time.Second
		if interval <= 0 {
			interval = defaultIndexInterval
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.clock.After(interval):
		}
	}
}

// PollNow reads every source once and stores what is new. One failing
// source does not stop the others; their errors are joined.
func (s *Secretary) PollNow(ctx context.Context) error {
	s.pollMu.Lock()
	defer s.pollMu.Unlock()
	cfg := s.config()
	repos := repos(cfg)
	var errs []error
	for _, r := range repos {
		g := source.Git{Since: s.now().Add(-retention(cfg)), TestOutputs: cfg.Secretary.ContextMirroring.TestOutputs}
		b, err := g.Poll(ctx, r, s.db)
		if err != nil {
			s.pollErrs.Store(r.Ctx, err.Error())
			errs = append(errs, err)
			continue
		}
		s.pollErrs.Delete(r.Ctx)
		errs = append(errs, s.storeBatch(ctx, b))
	}
	tr := source.Transcripts{Dir: ExpandHome(cfg.Secretary.WorkAI.TranscriptsDir), Repos: repos, Since: retention(cfg), Now: s.now}
	b, err := tr.Poll(ctx, s.db)
	if err == nil {
		err = s.storeBatch(ctx, b)
	}
	errs = append(errs, err)
	return errors.Join(errs...)
}

// Prune deletes events older than retention_days.
func (s *Secretary) Prune(ctx context.Context) error {
	n, err := s.db.PruneContext(ctx, s.now().Add(-retention(s.config())))
	if n > 0 {
		s.log.Info("pruned context events", "count", n)
	}
	return err
}

// Stats describes the mirror (event counts by source, oldest and newest).
func (s *Secretary) Stats(ctx context.Context) (store.ContextStats, error) {
	return s.db.ContextStats(ctx)
}

func retention(cfg *config.Config) time.Duration {
	days := cfg.Secretary.ContextMirroring.RetentionDays
	if days <= 0 {
		days = defaultRetentionDays
	}
	return time.Duration(days) * 24 * time.Hour
}

// repos lists the configured contexts that have a local checkout.
func repos(cfg *config.Config) []source.Repo {
	var out []source.Repo
	for _, c := range cfg.Contexts {
		if c.LocalPath != "" {
			out = append(out, source.Repo{Ctx: c.Identifier, Path: ExpandHome(c.LocalPath)})
		}
	}
	return out
}

// ExpandHome turns a leading "~/" into the home directory (local_path and
// transcripts_dir may use it).
func ExpandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}
