package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// ApprovalRecord is a task request waiting for (or decided by) the owner.
type ApprovalRecord struct {
	ID          string
	TaskID      string
	Requester   string
	TaskType    string
	Params      map[string]string
	MatchedRule string // the ACL rule that let the request in
	State       string // pending | approved | rejected | expired | canceled
	Reason      string
	DecidedBy   string // "owner", an auto rule id, or "system"
	CreatedAt   time.Time
	ExpiresAt   time.Time
	DecidedAt   *time.Time
}

const approvalColumns = `id, task_id, requester, task_type, params, matched_rule, state, reason,
	decided_by, created_at, expires_at, decided_at`

// InsertApproval stores an approval. Zero CreatedAt becomes now. Insert it
// PendingApprovalsFrom counts the approvals still waiting for the owner
// that requester asked for (the state index narrows it to pending ones).
func (tx *Tx) PendingApprovalsFrom(requester string) (int, error) {
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM approvals WHERE state = 'pending' AND requester = ?`, requester).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting pending approvals: %w", err)
	}
	return n, nil
}

// in the same Write as its task (InsertTask) so neither exists alone.
func (tx *Tx) InsertApproval(a ApprovalRecord) error {
	if a.CreatedAt.IsZero() {
		a.CreatedAt = tx.Now()
	}
	params, err := taskParamsJSON(a.Params)
	if err != nil {
		return err
	}
	err = tx.Run(`INSERT INTO approvals(`+approvalColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, a.TaskID, a.Requester, a.TaskType, params, a.MatchedRule, a.State, a.Reason, a.DecidedBy,
		formatTime(a.CreatedAt), formatTime(a.ExpiresAt), formatTimePtr(a.DecidedAt))
	if err != nil {
		return fmt.Errorf("store: saving approval %s: %w", a.ID, err)
	}
	return nil
}

// DecideApproval moves an approval from one state to another if, and only
// if, it is still in from, stamping who decided, why and when. Another state
// gives a *StateError (errors.Is ErrStateChanged); an unknown id ErrNotFound.
func (tx *Tx) DecideApproval(id, from, to, decidedBy, reason string) error {
	res, err := tx.Exec(`UPDATE approvals SET state = ?, decided_by = ?, reason = ?, decided_at = ?
		WHERE id = ? AND state = ?`, to, decidedBy, reason, formatTime(tx.Now()), id, from)
	if err != nil {
		return fmt.Errorf("store: deciding approval %s: %w", id, err)
	}
	return tx.conditional(res, "approvals", "approval", id, from)
}

// Approval returns one approval.
func (db *DB) Approval(ctx context.Context, id string) (ApprovalRecord, bool, error) {
	list, err := db.queryApprovals(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE id = ?`, id)
	if err != nil || len(list) == 0 {
		return ApprovalRecord{}, false, err
	}
	return list[0], true, nil
}

// ApprovalForTask returns the approval of a task, if it has one.
func (db *DB) ApprovalForTask(ctx context.Context, taskID string) (ApprovalRecord, bool, error) {
	list, err := db.queryApprovals(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE task_id = ?
		ORDER BY created_at DESC LIMIT 1`, taskID)
	if err != nil || len(list) == 0 {
		return ApprovalRecord{}, false, err
	}
	return list[0], true, nil
}

// Approvals lists approvals in state (empty: any): pending ones first
// (oldest first, the order to decide them in), then the rest newest first.
// limit defaults to 100 and is capped at 1000.
func (db *DB) Approvals(ctx context.Context, state string, limit int) ([]ApprovalRecord, error) {
	query := `SELECT ` + approvalColumns + ` FROM approvals`
	args := []any{}
	if state != "" {
		query += ` WHERE state = ?`
		args = append(args, state)
	}
	query += ` ORDER BY state = 'pending' DESC,
		CASE WHEN state = 'pending' THEN created_at END ASC, created_at DESC, rowid DESC LIMIT ?`
	args = append(args, clampLimit(limit, 100, 1000))
	return db.queryApprovals(ctx, query, args...)
}

// ExpiredApprovals lists pending approvals whose expiry is before now,
// oldest first, at most limit (default 100, cap 1000).
func (db *DB) ExpiredApprovals(ctx context.Context, now time.Time, limit int) ([]ApprovalRecord, error) {
	return db.queryApprovals(ctx, `SELECT `+approvalColumns+` FROM approvals
		WHERE state = 'pending' AND expires_at < ? ORDER BY expires_at, rowid LIMIT ?`,
		formatTime(now), clampLimit(limit, 100, 1000))
}

// CountApprovals counts approvals in state (empty: all).
func (db *DB) CountApprovals(ctx context.Context, state string) (int, error) {
	var n int
	var err error
	if state == "" {
		err = db.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM approvals`).Scan(&n)
	} else {
		err = db.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM approvals WHERE state = ?`, state).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("store: counting approvals: %w", err)
	}
	return n, nil
}

func (db *DB) queryApprovals(ctx context.Context, query string, args ...any) ([]ApprovalRecord, error) {
	rows, err := db.rd.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: reading approvals: %w", err)
	}
	defer rows.Close()
	var out []ApprovalRecord
	for rows.Next() {
		a, err := scanApproval(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

func scanApproval(rows *sql.Rows) (ApprovalRecord, error) {
	var a ApprovalRecord
	var params, decided sql.NullString
	var created, expires string
	if err := rows.Scan(&a.ID, &a.TaskID, &a.Requester, &a.TaskType, &params, &a.MatchedRule, &a.State,
		&a.Reason, &a.DecidedBy, &created, &expires, &decided); err != nil {
		return a, fmt.Errorf("store: reading an approval row: %w", err)
	}
	var err error
	if a.Params, err = parseTaskParams(params); err != nil {
		return a, err
	}
	if a.CreatedAt, err = parseTime(created); err != nil {
		return a, err
	}
	if a.ExpiresAt, err = parseTime(expires); err != nil {
		return a, err
	}
	a.DecidedAt, err = parseTimePtr(decided)
	return a, err
}
