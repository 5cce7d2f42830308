package task

import (
	"context"
	"errors"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// Recover runs once at start, before Start: tasks that were running when
// the agent stopped are marked failed ("agent restarted"), their worktrees
// removed (kept when keep_failed_worktrees is set) and their requesters
// notified. Pending approvals and approved tasks stay as they are; the loop
// picks them up.
func (e *Engine) Recover(ctx context.Context) error {
	e.init()
	running, err := e.Store.TasksInStates(ctx, StateInProgress, StateReview)
	if err != nil {
		return err
	}
	cfg := e.Config()
	var errs []error
	for _, t := range running {
		if !e.claim(t.ID) {
			continue
		}
		if pids := killLeftovers(t.ID); len(pids) > 0 {
			e.log().Info("task: killed processes left from before the restart", "task", t.ID, "pids", pids)
		}
		out := Outcome{TaskID: t.ID, Status: StateFailed, Error: "the agent restarted while the task ran; ask again"}
		e.removeStaleWorktree(ctx, cfg, t)
		if err := e.finish(ctx, t, t.State, out); err != nil {
			errs = append(errs, err)
		}
		e.release(t.ID)
	}
	return errors.Join(errs...)
}

func (e *Engine) removeStaleWorktree(ctx context.Context, cfg *config.Config, t store.TaskRecord) {
	if cfg.Approvals.KeepFailedWorktrees {
		return
	}
	tt := cfg.Tasks[t.TaskType]
	path := t.Worktree
	if path == "" && tt.Isolation == config.IsolationWorktree {
		path = WorktreePath(e.worktreeBase(), t.ID)
	}
	repo := repoDir(cfg, tt)
	if path == "" || repo == "" {
		return
	}
	if err := RemoveWorktree(ctx, repo, path, WorktreeBranch(t.ID)); err != nil {
		e.log().Warn("task: removing a stale worktree failed", "task", t.ID, "path", path, "err", err)
	}
}
