package store

import (
	"context"
	"fmt"
)

// MarkTaskNotified records that the requester has been told the task's
// outcome.
func (tx *Tx) MarkTaskNotified(id string) error {
	res, err := tx.Exec(`UPDATE tasks SET notified_at = ? WHERE id = ?`, formatTime(tx.Now()), id)
	if err != nil {
		return fmt.Errorf("store: updating task %s: %w", id, err)
	}
	return mustAffect(res, "task", id)
}

// TaskNotified reports whether the requester has been told the outcome.
func (db *DB) TaskNotified(ctx context.Context, id string) (bool, error) {
	var n int
	err := db.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM tasks WHERE id = ? AND notified_at IS NOT NULL`, id).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: reading task %s: %w", id, err)
	}
	return n > 0, nil
}

// UnnotifiedTasks lists tasks in one of states whose requester has not been
// told the outcome yet, oldest first, at most limit (default 100, cap 1000).
func (db *DB) UnnotifiedTasks(ctx context.Context, states []string, limit int) ([]TaskRecord, error) {
	if len(states) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(states)+1)
	for _, s := range states {
		args = append(args, s)
	}
	args = append(args, clampLimit(limit, 100, 1000))
	return db.queryTasks(ctx, `SELECT `+taskColumns+` FROM tasks WHERE notified_at IS NULL
		AND state IN (`+taskArgList(len(states))+`) ORDER BY updated_at, rowid LIMIT ?`, args...)
}
