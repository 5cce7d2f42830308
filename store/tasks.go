package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// TaskRecord is a task this agent runs for a peer.
type TaskRecord struct {
	ID          string
	RequestID   string // the requester's JSON-RPC id, for the final notify
	Requester   string
	TaskType    string
	Params      map[string]string // resolved values
	Ref         string            // requested git ref ("" = HEAD)
	RefCommit   string            // the commit Ref named when requested ("" = none pinned)
	State       string
	ExitCode    *int
	Output      json.RawMessage // parsed results, redacted tail
	Error       string
	Worktree    string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	StartedAt   *time.Time
	FinishedAt  *time.Time
	HeartbeatAt *time.Time
}

// TaskTransition is one stored state change of a task.
type TaskTransition struct {
	ID     int64
	TaskID string
	From   string // "" for the creation
	To     string
	At     time.Time
	Reason string
}

// TaskUpdate is what a transition may change besides the state. Nil / false
// fields leave the column as it is.
type TaskUpdate struct {
	ExitCode *int
	Output   json.RawMessage
	Error    *string
	Started  bool // set started_at to now
	Finished bool // set finished_at to now
}

// ErrStateChanged is returned (wrapped) when a conditional transition finds
// the row in another state than expected: someone else moved it first.
var ErrStateChanged = errors.New("state changed concurrently")

// StateError says which state a conditional update found instead.
type StateError struct {
	Kind, ID    string
	Want, Found string
}

func (e *StateError) Error() string {
	return fmt.Sprintf("%s %s is %s, not %s", e.Kind, e.ID, e.Found, e.Want)
}

// Unwrap makes errors.Is(err, ErrStateChanged) hold.
func (e *StateError) Unwrap() error { return ErrStateChanged }

const taskColumns = `id, request_id, requester, task_type, params, ref, state, exit_code, output, error,
	worktree, created_at, updated_at, started_at, finished_at, heartbeat_at, ref_commit`

// InsertTask stores a new task and its creation as the first transition
// ("" → State). Zero CreatedAt becomes now.
func (tx *Tx) InsertTask(t TaskRecord) error {
	now := tx.Now()
	if t.CreatedAt.IsZero() {
		t.CreatedAt = now
	}
	params, err := taskParamsJSON(t.Params)
	if err != nil {
		return err
	}
	out, err := jsonArg(t.Output)
	if err != nil {
		return err
	}
	err = tx.Run(`INSERT INTO tasks(`+taskColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.RequestID, t.Requester, t.TaskType, params, t.Ref, t.State, t.ExitCode, out, t.Error,
		t.Worktree, formatTime(t.CreatedAt), formatTime(t.CreatedAt), formatTimePtr(t.StartedAt),
		formatTimePtr(t.FinishedAt), formatTimePtr(t.HeartbeatAt), t.RefCommit)
	if err != nil {
		return fmt.Errorf("store: saving task %s: %w", t.ID, err)
	}
	return tx.addTransition(t.ID, "", t.State, "created", t.CreatedAt)
}

// TransitionTask moves a task from one state to another if, and only if, it
// is still in from (so of two concurrent transitions exactly one wins), and
// records the transition. A task in another state gives a *StateError
// (errors.Is ErrStateChanged); an unknown id gives ErrNotFound.
func (tx *Tx) TransitionTask(id, from, to, reason string, u TaskUpdate) error {
	now := tx.Now()
	out, err := jsonArg(u.Output)
	if err != nil {
		return err
	}
	var started, finished any
	if u.Started {
		started = formatTime(now)
	}
	if u.Finished {
		finished = formatTime(now)
	}
	res, err := tx.Exec(`UPDATE tasks SET state = ?, updated_at = ?,
		exit_code = COALESCE(?, exit_code), output = COALESCE(?, output), error = COALESCE(?, error),
		started_at = COALESCE(?, started_at), finished_at = COALESCE(?, finished_at)
		WHERE id = ? AND state = ?`,
		to, formatTime(now), u.ExitCode, out, u.Error, started, finished, id, from)
	if err != nil {
		return fmt.Errorf("store: moving task %s to %s: %w", id, to, err)
	}
	if err := tx.conditional(res, "tasks", "task", id, from); err != nil {
		return err
	}
	return tx.addTransition(id, from, to, reason, now)
}

// conditional explains a conditional UPDATE that changed nothing.
func (tx *Tx) conditional(res sql.Result, table, kind, id, want string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("store: updating %s %s: %w", kind, id, err)
	}
	if n > 0 {
		return nil
	}
	var found string
	// table is one of our constants, never input.
	err = tx.QueryRow(`SELECT state FROM `+table+` WHERE id = ?`, id).Scan(&found)
	if isNoRows(err) {
		return fmt.Errorf("%s %s: %w", kind, id, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store: reading %s %s: %w", kind, id, err)
	}
	return &StateError{Kind: kind, ID: id, Want: want, Found: found}
}

func (tx *Tx) addTransition(id, from, to, reason string, at time.Time) error {
	if err := tx.Run(`INSERT INTO task_transitions(task_id, from_state, to_state, at, reason) VALUES (?, ?, ?, ?, ?)`,
		id, from, to, formatTime(at), reason); err != nil {
		return fmt.Errorf("store: recording transition of task %s: %w", id, err)
	}
	return nil
}

// SetTaskWorktree records where a task's worktree is (so a restart can
// remove it).
func (tx *Tx) SetTaskWorktree(id, path string) error {
	res, err := tx.Exec(`UPDATE tasks SET worktree = ?, updated_at = ? WHERE id = ?`, path, formatTime(tx.Now()), id)
	if err != nil {
		return fmt.Errorf("store: updating task %s: %w", id, err)
	}
	return mustAffect(res, "task", id)
}

// SetTaskHeartbeat records that a running task is alive at at.
func (tx *Tx) SetTaskHeartbeat(id string, at time.Time) error {
	res, err := tx.Exec(`UPDATE tasks SET heartbeat_at = ? WHERE id = ?`, formatTime(at), id)
	if err != nil {
		return fmt.Errorf("store: updating task %s: %w", id, err)
	}
	return mustAffect(res, "task", id)
}

// Task returns one task.
func (db *DB) Task(ctx context.Context, id string) (TaskRecord, bool, error) {
	list, err := db.queryTasks(ctx, `SELECT `+taskColumns+` FROM tasks WHERE id = ?`, id)
	if err != nil || len(list) == 0 {
		return TaskRecord{}, false, err
	}
	return list[0], true, nil
}

// TaskByRequest returns the newest task requester asked for since a time
// with this JSON-RPC request id, as the current transaction sees it: a
// request repeated after a restart (a retry, the outbox sending again) is
// told apart from a new one by it.
func (tx *Tx) TaskByRequest(requester, requestID string, since time.Time) (TaskRecord, bool, error) {
	rows, err := tx.Query(`SELECT `+taskColumns+` FROM tasks WHERE requester = ? AND created_at >= ? AND request_id = ?
		ORDER BY created_at DESC LIMIT 1`, requester, formatTime(since), requestID)
	if err != nil {
		return TaskRecord{}, false, fmt.Errorf("store: reading tasks: %w", err)
	}
	defer rows.Close()
	if !rows.Next() {
		return TaskRecord{}, false, rows.Err()
	}
	t, err := scanTask(rows)
	return t, err == nil, err
}

// TaskQuery narrows Tasks. Empty fields match everything.
type TaskQuery struct {
	States    []string
	Requester string
	Limit     int // default 100, capped at 1000
}

// Tasks lists tasks newest first.
func (db *DB) Tasks(ctx context.Context, q TaskQuery) ([]TaskRecord, error) {
	query := `SELECT ` + taskColumns + ` FROM tasks WHERE 1 = 1`
	var args []any
	if len(q.States) > 0 {
		query += ` AND state IN (` + taskArgList(len(q.States)) + `)`
		for _, s := range q.States {
			args = append(args, s)
		}
	}
	if q.Requester != "" {
		query += ` AND requester = ?`
		args = append(args, q.Requester)
	}
	query += ` ORDER BY created_at DESC, rowid DESC LIMIT ?`
	args = append(args, clampLimit(q.Limit, 100, 1000))
	return db.queryTasks(ctx, query, args...)
}

// TasksInStates lists every task in one of states, oldest first (the order
// to run or recover them in), at most 1000.
func (db *DB) TasksInStates(ctx context.Context, states ...string) ([]TaskRecord, error) {
	if len(states) == 0 {
		return nil, nil
	}
	args := make([]any, len(states))
	for i, s := range states {
		args[i] = s
	}
	return db.queryTasks(ctx, `SELECT `+taskColumns+` FROM tasks WHERE state IN (`+taskArgList(len(states))+`)
		ORDER BY created_at, rowid LIMIT 1000`, args...)
}

// CountTasksByState counts tasks per state.
func (db *DB) CountTasksByState(ctx context.Context) (map[string]int, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT state, COUNT(*) FROM tasks GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("store: counting tasks: %w", err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, fmt.Errorf("store: counting tasks: %w", err)
		}
		counts[s] = n
	}
	return counts, rows.Err()
}

// TaskTransitions lists a task's state changes in order.
func (db *DB) TaskTransitions(ctx context.Context, taskID string) ([]TaskTransition, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT id, task_id, from_state, to_state, at, reason
		FROM task_transitions WHERE task_id = ? ORDER BY id`, taskID)
	if err != nil {
		return nil, fmt.Errorf("store: reading transitions of task %s: %w", taskID, err)
	}
	defer rows.Close()
	var out []TaskTransition
	for rows.Next() {
		var tr TaskTransition
		var at string
		if err := rows.Scan(&tr.ID, &tr.TaskID, &tr.From, &tr.To, &at, &tr.Reason); err != nil {
			return nil, fmt.Errorf("store: reading a transition row: %w", err)
		}
		if tr.At, err = parseTime(at); err != nil {
			return nil, err
		}
		out = append(out, tr)
	}
	return out, rows.Err()
}

func (db *DB) queryTasks(ctx context.Context, query string, args ...any) ([]TaskRecord, error) {
	rows, err := db.rd.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: reading tasks: %w", err)
	}
	defer rows.Close()
	var out []TaskRecord
	for rows.Next() {
		t, err := scanTask(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func scanTask(rows *sql.Rows) (TaskRecord, error) {
	var t TaskRecord
	var params, output, started, finished, heartbeat sql.NullString
	var exit sql.NullInt64
	var created, updated string
	if err := rows.Scan(&t.ID, &t.RequestID, &t.Requester, &t.TaskType, &params, &t.Ref, &t.State, &exit,
		&output, &t.Error, &t.Worktree, &created, &updated, &started, &finished, &heartbeat, &t.RefCommit); err != nil {
		return t, fmt.Errorf("store: reading a task row: %w", err)
	}
	if exit.Valid {
		code := int(exit.Int64)
		t.ExitCode = &code
	}
	t.Output = rawJSON(output)
	var err error
	if t.Params, err = parseTaskParams(params); err != nil {
		return t, err
	}
	if t.CreatedAt, err = parseTime(created); err != nil {
		return t, err
	}
	if t.UpdatedAt, err = parseTime(updated); err != nil {
		return t, err
	}
	if t.StartedAt, err = parseTimePtr(started); err != nil {
		return t, err
	}
	if t.FinishedAt, err = parseTimePtr(finished); err != nil {
		return t, err
	}
	t.HeartbeatAt, err = parseTimePtr(heartbeat)
	return t, err
}

func taskParamsJSON(p map[string]string) (string, error) {
	if len(p) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("store: encoding task params: %w", err)
	}
	return string(b), nil
}

func parseTaskParams(s sql.NullString) (map[string]string, error) {
	if !s.Valid || s.String == "" || s.String == "{}" {
		return nil, nil
	}
	var p map[string]string
	if err := json.Unmarshal([]byte(s.String), &p); err != nil {
		return nil, fmt.Errorf("store: bad task params %q in the database: %w", s.String, err)
	}
	return p, nil
}

// taskArgList returns "?, ?, …" for n arguments.
func taskArgList(n int) string {
	b := make([]byte, 0, 3*n)
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '?')
	}
	return string(b)
}

// QueuedTasksFrom counts requester's tasks approved and waiting for a
// slot to run in.
func (tx *Tx) QueuedTasksFrom(requester string) (int, error) {
	var n int
	if err := tx.QueryRow(`SELECT COUNT(*) FROM tasks WHERE state = 'approved' AND requester = ?`, requester).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting queued tasks: %w", err)
	}
	return n, nil
}
