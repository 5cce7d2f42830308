package store

import (
	"context"
	"fmt"
	"time"
)

// CoordTaskRecord is a coordination task (seed 004) between this agent and
// one counterpart, as moved by the typed messages between them.
type CoordTaskRecord struct {
	TaskID    string
	Peer      string
	Side      string // requester | assignee
	State     string
	Summary   string
	LastType  string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// UpsertCoordTask stores t, keeping the first CreatedAt.
func (tx *Tx) UpsertCoordTask(t CoordTaskRecord) error {
	now := formatTime(t.UpdatedAt)
	err := tx.Run(`INSERT INTO coord_tasks(task_id, peer, side, state, summary, last_type, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(task_id, peer) DO UPDATE SET state = excluded.state, last_type = excluded.last_type,
			summary = CASE WHEN excluded.summary != '' THEN excluded.summary ELSE summary END,
			updated_at = excluded.updated_at`,
		t.TaskID, t.Peer, t.Side, t.State, t.Summary, t.LastType, now, now)
	if err != nil {
		return fmt.Errorf("store: saving coordination task %s: %w", t.TaskID, err)
	}
	return nil
}

// CoordTask returns the task with counterpart peer, if stored.
func (tx *Tx) CoordTask(taskID, peer string) (CoordTaskRecord, bool, error) {
	rows, err := tx.Query(`SELECT task_id, peer, side, state, summary, last_type, created_at, updated_at
		FROM coord_tasks WHERE task_id = ? AND peer = ?`, taskID, peer)
	if err != nil {
		return CoordTaskRecord{}, false, fmt.Errorf("store: reading coordination task %s: %w", taskID, err)
	}
	ts, err := scanCoordTasks(rows)
	if err != nil || len(ts) == 0 {
		return CoordTaskRecord{}, false, err
	}
	return ts[0], true, nil
}

// CoordTasks lists coordination tasks, most recently changed first; a
// non-empty taskID narrows to that task (one row per counterpart).
func (db *DB) CoordTasks(ctx context.Context, taskID string, limit int) ([]CoordTaskRecord, error) {
	q := `SELECT task_id, peer, side, state, summary, last_type, created_at, updated_at FROM coord_tasks`
	args := []any{}
	if taskID != "" {
		q += ` WHERE task_id = ?`
		args = append(args, taskID)
	}
	q += ` ORDER BY updated_at DESC, rowid DESC LIMIT ?`
	args = append(args, clampLimit(limit, 100, 1000))
	rows, err := db.rd.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: listing coordination tasks: %w", err)
	}
	return scanCoordTasks(rows)
}

type rowScanner interface {
	Next() bool
	Scan(dest ...any) error
	Close() error
	Err() error
}

func scanCoordTasks(rows rowScanner) ([]CoordTaskRecord, error) {
	defer rows.Close()
	var out []CoordTaskRecord
	for rows.Next() {
		var t CoordTaskRecord
		var created, updated string
		if err := rows.Scan(&t.TaskID, &t.Peer, &t.Side, &t.State, &t.Summary, &t.LastType, &created, &updated); err != nil {
			return nil, fmt.Errorf("store: reading a coordination task: %w", err)
		}
		var err error
		if t.CreatedAt, err = parseTime(created); err != nil {
			return nil, err
		}
		if t.UpdatedAt, err = parseTime(updated); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
