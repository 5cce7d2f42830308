package store

import (
	"context"
	"fmt"
	"time"
)

// pruneBatch bounds how many rows one pruning transaction deletes, so the
// writer never holds one long transaction.
const pruneBatch = 500

// PruneTasks deletes tasks in one of the given (final) states that finished
// before the cut-off, with their transitions and approvals, and returns
// their ids so the caller can remove their output directories.
func (db *DB) PruneTasks(ctx context.Context, before time.Time, states []string) ([]string, error) {
	if len(states) == 0 {
		return nil, nil
	}
	var all []string
	for {
		ids, err := db.pruneTaskBatch(ctx, before, states)
		all = append(all, ids...)
		if err != nil || len(ids) < pruneBatch {
			return all, err
		}
	}
}

func (db *DB) pruneTaskBatch(ctx context.Context, before time.Time, states []string) ([]string, error) {
	var ids []string
	err := db.Write(ctx, func(tx *Tx) error {
		ids = ids[:0]
		args := make([]any, 0, len(states)+2)
		for _, s := range states {
			args = append(args, s)
		}
		args = append(args, formatTime(before), pruneBatch)
		rows, err := tx.Query(`SELECT id FROM tasks WHERE state IN (`+taskArgList(len(states))+`)
			AND COALESCE(finished_at, updated_at) < ? LIMIT ?`, args...)
		if err != nil {
			return fmt.Errorf("store: finding old tasks: %w", err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("store: finding old tasks: %w", err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		for _, id := range ids {
			// approvals and task_transitions go with the task (ON DELETE CASCADE).
			if err := tx.Run(`DELETE FROM tasks WHERE id = ?`, id); err != nil {
				return fmt.Errorf("store: pruning task %s: %w", id, err)
			}
		}
		return nil
	})
	return ids, err
}

// PruneOutbox deletes delivered and expired outbox entries created before
// the cut-off and returns how many went. Pending entries are never pruned.
func (db *DB) PruneOutbox(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		res, err := tx.Exec(`DELETE FROM outbox WHERE state IN ('delivered', 'expired') AND created_at < ?`, formatTime(before))
		if err != nil {
			return fmt.Errorf("store: pruning the outbox: %w", err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// PruneReceived deletes what peers sent that is done with, received before
// the cut-off: questions answered or declined, and messages the owner has
// read. Questions still waiting and unread messages are never pruned. It
// returns how many of each went.
func (db *DB) PruneReceived(ctx context.Context, before time.Time) (queries, messages int64, err error) {
	cut := formatTime(before)
	for _, p := range []struct {
		n    *int64
		what string
		del  string
	}{
		{&queries, "received questions", `DELETE FROM queries WHERE rowid IN (SELECT rowid FROM queries
			WHERE state IN ('answered', 'declined') AND COALESCE(answered_at, received_at) < ? LIMIT ?)`},
		{&messages, "read messages", `DELETE FROM messages WHERE seq IN (SELECT seq FROM messages
			WHERE read = 1 AND received_at < ? LIMIT ?)`},
	} {
		for {
			var n int64
			err := db.Write(ctx, func(tx *Tx) error {
				res, err := tx.Exec(p.del, cut, pruneBatch)
				if err != nil {
					return fmt.Errorf("store: pruning %s: %w", p.what, err)
				}
				n, err = res.RowsAffected()
				return err
			})
			*p.n += n
			if err != nil {
				return queries, messages, err
			}
			if n < pruneBatch {
				break
			}
		}
	}
	return queries, messages, nil
}

// PruneCoordTasks deletes the coordination tasks not moved since the
// cut-off that no stored message names any more (the messages about them
// read and pruned, or never received: one this agent only sent). Each
// typed message with a new task id adds one, and nothing else removed
// them: a peer a messages rule lets in, sending a new task id in every
// message the assistant reads, grew the table without bound. It returns
// how many went.
func (db *DB) PruneCoordTasks(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := db.Write(ctx, func(tx *Tx) error {
			res, err := tx.Exec(`DELETE FROM coord_tasks WHERE rowid IN (SELECT c.rowid FROM coord_tasks c
				WHERE c.updated_at < ? AND NOT EXISTS (SELECT 1 FROM messages m
					WHERE m.task_id = c.task_id AND m.from_agent = c.peer) LIMIT ?)`, formatTime(before), pruneBatch)
			if err != nil {
				return fmt.Errorf("store: pruning coordination tasks: %w", err)
			}
			n, err = res.RowsAffected()
			return err
		})
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
	}
}
