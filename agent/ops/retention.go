package ops

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/internal/backoff"
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
	// Queries and Messages are what peers sent: questions answered or
	// declined, messages the owner has read (tasks_days, as tasks).
	Queries  int64 `json:"queries"`
	Messages int64 `json:"messages"`
	// CoordTasks are coordination tasks not moved since, that no message
	// kept names.
	CoordTasks int64 `json:"coord_tasks"`
}

// pruneCutoffs are the times before which each kind of record goes.
type pruneCutoffs struct{ audit, context, tasks time.Time }

// finishedTaskStates are the final task states; only those are pruned.
var finishedTaskStates = []string{task.StateCompleted, task.StateRejected, task.StateExpired, task.StateFailed, task.StateCanceled}

// Prune removes audit rows, context events, finished tasks (with their
// output directories) and delivered or expired outbox entries older than
// olderThan. The audit chain keeps a checkpoint, so `aoi audit verify`
// still passes and still detects tampering in what remains.
func (o *Ops) Prune(ctx context.Context, olderThan time.Duration) (PruneReport, error) {
	if olderThan <= 0 {
		return PruneReport{}, errs.Invalid("the retention period must be positive, e.g. 30d")
	}
	cut := o.Now().Add(-olderThan)
	return o.prune(ctx, pruneCutoffs{audit: cut, context: cut, tasks: cut})
}

// PruneByConfig prunes with the configured retention periods.
func (o *Ops) PruneByConfig(ctx context.Context) (PruneReport, error) {
	cfg, now := o.Config(), o.Now()
	days := func(n int) time.Time { return now.Add(-time.Duration(n) * 24 * time.Hour) }
	return o.prune(ctx, pruneCutoffs{
		audit:   days(cfg.Retention.AuditDays),
		context: days(cfg.Secretary.ContextMirroring.RetentionDays),
		tasks:   days(cfg.Retention.TasksDays),
	})
}

func (o *Ops) prune(ctx context.Context, cut pruneCutoffs) (PruneReport, error) {
	rep := PruneReport{AuditBefore: cut.audit, ContextBefore: cut.context, TasksBefore: cut.tasks}
	var err error
	if rep.AuditRows, err = o.DB.PruneAudit(ctx, cut.audit); err != nil {
		return rep, fmt.Errorf("prune the audit log: %w", err)
	}
	if rep.AuditRows > 0 { // the checkpoint is signed at once, not at the next seal
		if _, err := o.DB.SealAudit(ctx); err != nil {
			return rep, fmt.Errorf("seal the pruned audit log: %w", err)
		}
	}
	if rep.ContextEvents, err = o.DB.PruneContext(ctx, cut.context); err != nil {
		return rep, fmt.Errorf("prune the context index: %w", err)
	}
	ids, err := o.DB.PruneTasks(ctx, cut.tasks, finishedTaskStates)
	rep.Tasks = len(ids)
	o.RemoveTaskDirs(ids)
	if err != nil {
		return rep, fmt.Errorf("prune finished tasks: %w", err)
	}
	if rep.OutboxRows, err = o.DB.PruneOutbox(ctx, cut.tasks); err != nil {
		return rep, fmt.Errorf("prune the outbox: %w", err)
	}
	if rep.Queries, rep.Messages, err = o.DB.PruneReceived(ctx, cut.tasks); err != nil {
		return rep, fmt.Errorf("prune received questions and messages: %w", err)
	}
	if rep.CoordTasks, err = o.DB.PruneCoordTasks(ctx, cut.tasks); err != nil {
		return rep, fmt.Errorf("prune coordination tasks: %w", err)
	}
	err = o.DB.Write(ctx, func(tx *store.Tx) error {
		_, err := tx.AppendAudit("owner", "ctl.prune", "ok", rep)
		return err
	})
	o.Log.Info("pruned", "component", "retention", "audit_rows", rep.AuditRows, "context_events", rep.ContextEvents,
		"tasks", rep.Tasks, "outbox_rows", rep.OutboxRows, "queries", rep.Queries, "messages", rep.Messages,
		"coord_tasks", rep.CoordTasks)
	return rep, err
}

// RemoveTaskDirs deletes the output directories of removed tasks.
func (o *Ops) RemoveTaskDirs(ids []string) {
	for _, id := range ids {
		if id == "" || filepath.Base(id) != id || id == "." || id == ".." {
			continue // ids are ours; never let one name another directory
		}
		if err := os.RemoveAll(filepath.Join(o.DataDir, "tasks", id)); err != nil {
			o.Log.Warn("remove task output", "component", "retention", "task_id", id, "err", err)
		}
	}
}

// Automatic pruning (retention.auto_prune): shortly after start, then daily.
const (
	autoPruneFirst = time.Minute
	autoPruneEvery = 24 * time.Hour
)

// AutoPrune prunes by the configured retention while the core serves.
func (o *Ops) AutoPrune(ctx context.Context) {
	clock := o.Clock
	if clock == nil {
		clock = backoff.Real
	}
	wait := autoPruneFirst
	for {
		select {
		case <-ctx.Done():
			return
		case <-clock.After(wait):
		}
		if o.Config().Retention.AutoPrune {
			if _, err := o.PruneByConfig(ctx); err != nil && ctx.Err() == nil {
				o.Log.Error("automatic pruning failed; run `aoi prune` by hand to see why", "component", "retention", "err", err)
			}
		}
		wait = autoPruneEvery
	}
}
