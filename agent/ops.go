package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/store"
)

// PruneReport says what a pruning run removed.
type PruneReport struct {
	AuditBefore   time.Time `json:"audit_before"`
	AuditRows     int64     `json:"audit_rows"`
	ContextBefore time.Time `json:"context_before"`
	ContextEvents int64     `json:"context_events"`
	TasksBefore   time.Time `json:"tasks_before"`
	Tasks         int       `json:"tasks"`
	OutboxRows    int64     `json:"outbox_rows"`
}

// pruneCutoffs are the times before which each kind of record goes.
type pruneCutoffs struct{ audit, context, tasks time.Time }

// finishedTaskStates are the final task states; only those are pruned.
var finishedTaskStates = []string{TaskCompleted, TaskRejected, TaskExpired, TaskFailed, TaskCanceled}

// Prune removes audit rows, context events, finished tasks (with their
// output directories) and delivered or expired outbox entries older than
// olderThan. The audit chain keeps a checkpoint, so `aoi audit verify`
// still passes and still detects tampering in what remains.
func (c *Core) Prune(ctx context.Context, olderThan time.Duration) (PruneReport, error) {
	if olderThan <= 0 {
		return PruneReport{}, errs.Invalid("the retention period must be positive, e.g. 30d")
	}
	cut := c.now().Add(-olderThan)
	return c.prune(ctx, pruneCutoffs{audit: cut, context: cut, tasks: cut})
}

// pruneByConfig prunes with the configured retention periods.
func (c *Core) pruneByConfig(ctx context.Context) (PruneReport, error) {
	cfg, now := c.config(), c.now()
	days := func(n int) time.Time { return now.Add(-time.Duration(n) * 24 * time.Hour) }
	return c.prune(ctx, pruneCutoffs{
		audit:   days(cfg.Retention.AuditDays),
		context: days(cfg.Secretary.ContextMirroring.RetentionDays),
		tasks:   days(cfg.Retention.TasksDays),
	})
}

func (c *Core) prune(ctx context.Context, cut pruneCutoffs) (PruneReport, error) {
	rep := PruneReport{AuditBefore: cut.audit, ContextBefore: cut.context, TasksBefore: cut.tasks}
	var err error
	if rep.AuditRows, err = c.db.PruneAudit(ctx, cut.audit); err != nil {
		return rep, fmt.Errorf("prune the audit log: %w", err)
	}
	if rep.ContextEvents, err = c.db.PruneContext(ctx, cut.context); err != nil {
		return rep, fmt.Errorf("prune the context index: %w", err)
	}
	ids, err := c.db.PruneTasks(ctx, cut.tasks, finishedTaskStates)
	rep.Tasks = len(ids)
	c.removeTaskDirs(ids)
	if err != nil {
		return rep, fmt.Errorf("prune finished tasks: %w", err)
	}
	if rep.OutboxRows, err = c.db.PruneOutbox(ctx, cut.tasks); err != nil {
		return rep, fmt.Errorf("prune the outbox: %w", err)
	}
	err = c.db.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit("owner", "ctl.prune", "ok", rep)
		return err
	})
	c.log.Info("pruned", "component", "retention", "audit_rows", rep.AuditRows, "context_events", rep.ContextEvents,
		"tasks", rep.Tasks, "outbox_rows", rep.OutboxRows)
	return rep, err
}

// removeTaskDirs deletes the output directories of removed tasks.
func (c *Core) removeTaskDirs(ids []string) {
	for _, id := range ids {
		if id == "" || filepath.Base(id) != id || id == "." || id == ".." {
			continue // ids are ours; never let one name another directory
		}
		if err := os.RemoveAll(filepath.Join(c.dataDir, "tasks", id)); err != nil {
			c.log.Warn("remove task output", "component", "retention", "task_id", id, "err", err)
		}
	}
}

// Automatic pruning (retention.auto_prune): shortly after start, then daily.
const (
	autoPruneFirst = time.Minute
	autoPruneEvery = 24 * time.Hour
)

// autoPruneLoop prunes by the configured retention while the core serves.
func (c *Core) autoPruneLoop(ctx context.Context) {
	t := time.NewTimer(autoPruneFirst)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if c.config().Retention.AutoPrune {
			if _, err := c.pruneByConfig(ctx); err != nil && ctx.Err() == nil {
				c.log.Error("automatic pruning failed; run `aoi prune` by hand to see why", "component", "retention", "err", err)
			}
		}
		t.Reset(autoPruneEvery)
	}
}
