package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// QueryRecord is a query received from a peer (aoi.query).
type QueryRecord struct {
	ID           string
	RequestID    string // the JSON-RPC id the peer used
	From         string
	Text         string
	ContextScope []string
	Priority     string
	State        string
	Decision     string // AUTO_RESPOND | BUFFER | ESCALATE (policy lives in agent)
	Confidence   float64
	Draft        json.RawMessage
	// DraftSources are the ACL resources the draft was drawn from (nil
	// for a draft stored before they were kept, or drawn from none).
	DraftSources []string
	Answer       json.RawMessage
	ReceivedAt   time.Time
	AnsweredAt   *time.Time
}

// AskRecord is a query we sent to a peer.
type AskRecord struct {
	RequestID string
	To        string
	Text      string
	SentAt    time.Time
	Result    json.RawMessage
	TaskID    string // a task request's task id at the peer (WaitingAsks only)
}

const queryColumns = `id, request_id, from_agent, text, context_scope, priority, state, decision,
	confidence, draft, draft_sources, answer, received_at, answered_at`

// InsertQuery stores a received query. A zero ReceivedAt becomes now.
func (tx *Tx) InsertQuery(q QueryRecord) error {
	if q.ReceivedAt.IsZero() {
		q.ReceivedAt = tx.Now()
	}
	if q.Priority == "" {
		q.Priority = "normal"
	}
	draft, err := jsonArg(q.Draft)
	if err != nil {
		return err
	}
	answer, err := jsonArg(q.Answer)
	if err != nil {
		return err
	}
	err = tx.Run(`INSERT INTO queries(`+queryColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		q.ID, q.RequestID, q.From, q.Text, stringsJSON(q.ContextScope), q.Priority, q.State, q.Decision,
		q.Confidence, draft, stringsJSON(q.DraftSources), answer, formatTime(q.ReceivedAt), formatTimePtr(q.AnsweredAt))
	if err != nil {
		return fmt.Errorf("store: saving query %s: %w", q.ID, err)
	}
	tx.queriesUnindexed++
	return nil
}

// UpdateQuery sets a query's state and, when given, its answer and the time
// it was answered (nil leaves each unchanged). It returns ErrNotFound for an
// unknown id.
func (tx *Tx) UpdateQuery(id, state string, answer json.RawMessage, answeredAt *time.Time) error {
	a, err := jsonArg(answer)
	if err != nil {
		return err
	}
	res, err := tx.Exec(`UPDATE queries SET state = ?, answer = COALESCE(?, answer),
		answered_at = COALESCE(?, answered_at) WHERE `+queryByID, append([]any{state, a, formatTimePtr(answeredAt)}, idArgs(id)...)...)
	if err != nil {
		return fmt.Errorf("store: updating query %s: %w", id, err)
	}
	return mustAffect(res, "query", id)
}

// SetQueryDecision records the secretary's decision, its confidence and the
// draft answer for a query, with the sources it was drawn from (a nil
// draft leaves the draft and its sources unchanged). It returns
// ErrNotFound for an unknown id.
func (tx *Tx) SetQueryDecision(id, decision string, confidence float64, draft json.RawMessage, sources []string) error {
	d, err := jsonArg(draft)
	if err != nil {
		return err
	}
	res, err := tx.Exec(`UPDATE queries SET decision = ?, confidence = ?, draft = COALESCE(?, draft),
		draft_sources = CASE WHEN ? IS NULL THEN draft_sources ELSE ? END WHERE `+queryByID,
		append([]any{decision, confidence, d, d, stringsJSON(sources)}, idArgs(id)...)...)
	if err != nil {
		return fmt.Errorf("store: updating query %s: %w", id, err)
	}
	return mustAffect(res, "query", id)
}

// ReopenQuery puts an answered query back before the owner in state, its
// answer withdrawn (the draft stays): the answer was kept from its asker
// at delivery. ErrNotFound unless the query is answered.
func (tx *Tx) ReopenQuery(id, state string) error {
	res, err := tx.Exec(`UPDATE queries SET state = ?, answer = NULL, answered_at = NULL WHERE state = 'answered' AND `+queryByID,
		append([]any{state}, idArgs(id)...)...)
	if err != nil {
		return fmt.Errorf("store: reopening query %s: %w", id, err)
	}
	return mustAffect(res, "answered query", id)
}

// Query returns one received query.
func (db *DB) Query(ctx context.Context, id string) (QueryRecord, bool, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT `+queryColumns+` FROM queries WHERE `+queryByID, idArgs(id)...)
	if err != nil {
		return QueryRecord{}, false, fmt.Errorf("store: reading query %s: %w", id, err)
	}
	defer rows.Close()
	if !rows.Next() {
		return QueryRecord{}, false, rows.Err()
	}
	q, err := scanQuery(rows)
	return q, err == nil, err
}

// repeatScan is how many of the newest queries QueryRequestsSince reads:
// more than arrive in its window at any rate a peer is allowed.
const repeatScan = 4096

// QueryRequest names a question by its sender and the JSON-RPC id the
// sender gave it.
type QueryRequest struct{ From, RequestID string }

// QueryRequestsSince maps the questions received since a time, by sender
// and JSON-RPC request id, to their query ids (the newest when an id came
// twice): what a question repeated after a restart (a retry, the outbox
// sending again) is told apart from a new one by. It reads the newest
// repeatScan rows by rowid (arrival order) rather than an index: the
// aoi.query write path keeps one index on queries only (migrations 0400,
// 0410), and a repeat comes within minutes.
func (db *DB) QueryRequestsSince(ctx context.Context, since time.Time) (map[QueryRequest]string, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT from_agent, request_id, id FROM queries
		WHERE rowid > (SELECT COALESCE(MAX(rowid), 0) FROM queries) - ?
		  AND request_id != '' AND received_at >= ? ORDER BY rowid`,
		repeatScan, formatTime(since))
	if err != nil {
		return nil, fmt.Errorf("store: reading queries: %w", err)
	}
	defer rows.Close()
	ids := map[QueryRequest]string{}
	for rows.Next() {
		var r QueryRequest
		var id string
		if err := rows.Scan(&r.From, &r.RequestID, &id); err != nil {
			return nil, fmt.Errorf("store: reading queries: %w", err)
		}
		ids[r] = id // in arrival order: the newest stays
	}
	return ids, rows.Err()
}

// Queries lists received queries in state (empty: any), newest first: in
// the reverse of the order they arrived (rowid), which the insert that
// received each one fixed. limit defaults to 100 and is capped at 1000.
// Open states are listed through open_queries (query_index.go); a filter
// on answered or declined walks the table newest first, where most rows
// are answered anyway.
func (db *DB) Queries(ctx context.Context, state string, limit int) ([]QueryRecord, error) {
	limit = clampLimit(limit, 100, 1000)
	if isOpenState(state) {
		tx, err := db.rd.BeginTx(ctx, nil) // one snapshot for the mark and both reads
		if err != nil {
			return nil, fmt.Errorf("store: listing queries: %w", err)
		}
		defer tx.Rollback()
		return openQueries(func(query string, args ...any) (*sql.Rows, error) {
			return tx.QueryContext(ctx, query, args...)
		}, state, limit)
	}
	query := `SELECT ` + queryColumns + ` FROM queries`
	args := []any{}
	if state != "" {
		query += ` WHERE state = ?`
		args = append(args, state)
	}
	query += ` ORDER BY rowid DESC LIMIT ?`
	args = append(args, limit)
	rows, err := db.rd.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: listing queries: %w", err)
	}
	return scanQueries(rows, nil)
}

// scanQueries appends rows' questions to out and closes rows.
func scanQueries(rows *sql.Rows, out []QueryRecord) ([]QueryRecord, error) {
	defer rows.Close()
	for rows.Next() {
		q, err := scanQuery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// queryColumnsOf is queryColumns of the table aliased alias.
func queryColumnsOf(alias string) string {
	cols := strings.Split(queryColumns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// CountQueries counts received queries in state (empty: all).
func (db *DB) CountQueries(ctx context.Context, state string) (int, error) {
	var n int
	var err error
	switch {
	case state == "":
		err = db.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM queries`).Scan(&n)
	case isOpenState(state):
		err = db.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM (`+openRows+`)`, openRowsArgs(state)...).Scan(&n)
	default:
		err = db.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM queries WHERE state = ?`, state).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("store: counting queries: %w", err)
	}
	return n, nil
}

func scanQuery(rows *sql.Rows) (QueryRecord, error) {
	var q QueryRecord
	var scope, draft, sources, answer, answeredAt sql.NullString
	var received string
	if err := rows.Scan(&q.ID, &q.RequestID, &q.From, &q.Text, &scope, &q.Priority, &q.State, &q.Decision,
		&q.Confidence, &draft, &sources, &answer, &received, &answeredAt); err != nil {
		return q, fmt.Errorf("store: reading a query row: %w", err)
	}
	var err error
	if q.ContextScope, err = parseStrings(scope); err != nil {
		return q, err
	}
	if q.DraftSources, err = parseStrings(sources); err != nil {
		return q, err
	}
	q.Draft, q.Answer = rawJSON(draft), rawJSON(answer)
	if q.ReceivedAt, err = parseTime(received); err != nil {
		return q, err
	}
	q.AnsweredAt, err = parseTimePtr(answeredAt)
	return q, err
}

// InsertAsk records a query we sent. A zero SentAt becomes now.
func (tx *Tx) InsertAsk(a AskRecord) error {
	if a.SentAt.IsZero() {
		a.SentAt = tx.Now()
	}
	res, err := jsonArg(a.Result)
	if err != nil {
		return err
	}
	if err := tx.Run(`INSERT INTO asks(request_id, to_agent, text, sent_at, result) VALUES (?, ?, ?, ?, ?)`,
		a.RequestID, a.To, a.Text, formatTime(a.SentAt), res); err != nil {
		return fmt.Errorf("store: saving ask %s: %w", a.RequestID, err)
	}
	return nil
}

// SetAskResult stores the result of a query we sent (the immediate result or
// the answer that arrived later). It returns ErrNotFound for an unknown id.
func (tx *Tx) SetAskResult(requestID string, result json.RawMessage) error {
	r, err := jsonArg(result)
	if err != nil {
		return err
	}
	res, err := tx.Exec(`UPDATE asks SET result = ? WHERE request_id = ?`, r, requestID)
	if err != nil {
		return fmt.Errorf("store: updating ask %s: %w", requestID, err)
	}
	return mustAffect(res, "ask", requestID)
}

// askClosers are the notifications that answer an ask: the peer's answer
// or refusal of a question, a task's end.
const askClosers = `'query.completed', 'query.declined', 'task.completed', 'task.failed'`

// OpenQueriesFrom counts the questions from one agent still waiting for
// the owner (buffered, escalated or awaiting), through open_queries.
func (db *DB) OpenQueriesFrom(ctx context.Context, from string) (int, error) {
	var n int
	err := db.rd.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM open_queries o CROSS JOIN queries q ON q.rowid = o.qrow
			WHERE o.qrow <= (`+queryIndexMarkSQL+`) AND q.from_agent = ?)
		+ (SELECT count(*) FROM queries WHERE rowid > (`+queryIndexMarkSQL+`) AND `+openState+` AND from_agent = ?)`,
		from, from).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: counting open queries from %s: %w", from, err)
	}
	return n, nil
}

// waitingAsk is the condition on an ask (a) that still waits for its
// answer: the call went through, its result was not an answer already, and
// no answer has arrived since.
const waitingAsk = `a.result IS NOT NULL
		  AND coalesce(json_extract(a.result, '$.completed'), 0) = 0
		  AND json_extract(a.result, '$.error') IS NULL
		  AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.related_id = a.request_id AND m.related_id != ''
		                  AND m.event IN (` + askClosers + `))`

// CountWaitingAsks counts what WaitingAsks lists, however many: a listing
// is bounded, and the count says how much it left out.
func (db *DB) CountWaitingAsks(ctx context.Context) (int, error) {
	var n int
	if err := db.rd.QueryRowContext(ctx, `SELECT count(*) FROM asks a WHERE `+waitingAsk).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting waiting asks: %w", err)
	}
	return n, nil
}

// WaitingAsks lists what this agent asked (questions and task requests)
// that is still waiting for its answer, newest first, at most limit
// (default 100, cap 1000): the call went through, its result was not an
// answer already, and no answer has arrived since.
func (db *DB) WaitingAsks(ctx context.Context, limit int) ([]AskRecord, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT request_id, to_agent, text, sent_at,
		coalesce(json_extract(a.result, '$.task_id'), '') FROM asks a
		WHERE `+waitingAsk+`
		ORDER BY a.sent_at DESC LIMIT ?`, clampLimit(limit, 100, 1000))
	if err != nil {
		return nil, fmt.Errorf("store: listing waiting asks: %w", err)
	}
	defer rows.Close()
	var out []AskRecord
	for rows.Next() {
		var a AskRecord
		var sent string
		if err := rows.Scan(&a.RequestID, &a.To, &a.Text, &sent, &a.TaskID); err != nil {
			return nil, fmt.Errorf("store: reading an ask: %w", err)
		}
		if a.SentAt, err = parseTime(sent); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Ask returns a query we sent.
func (db *DB) Ask(ctx context.Context, requestID string) (AskRecord, bool, error) {
	var a AskRecord
	var sent string
	var result sql.NullString
	err := db.rd.QueryRowContext(ctx, `SELECT request_id, to_agent, text, sent_at, result FROM asks WHERE request_id = ?`,
		requestID).Scan(&a.RequestID, &a.To, &a.Text, &sent, &result)
	if isNoRows(err) {
		return a, false, nil
	}
	if err != nil {
		return a, false, fmt.Errorf("store: reading ask %s: %w", requestID, err)
	}
	a.Result = rawJSON(result)
	if a.SentAt, err = parseTime(sent); err != nil {
		return a, false, err
	}
	return a, true, nil
}

// EscalateBuffered moves every buffered query to escalated (focus time is
// over: they wait for the owner) and returns them as they were, in arrival
// order. It runs in the writer's transaction, so a query answered meanwhile
// is not touched.
func (tx *Tx) EscalateBuffered() ([]QueryRecord, error) {
	rows, err := tx.Query(`SELECT `+queryColumns+` FROM queries WHERE rowid IN (`+openRows+`) AND state = 'buffered' ORDER BY rowid`,
		openRowsArgs("buffered")...)
	if err != nil {
		return nil, fmt.Errorf("store: listing buffered queries: %w", err)
	}
	var qs []QueryRecord
	for rows.Next() {
		q, err := scanQuery(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		qs = append(qs, q)
	}
	err = rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("store: listing buffered queries: %w", err)
	}
	if len(qs) == 0 {
		return nil, nil
	}
	if err := tx.Run(`UPDATE queries SET state = 'escalated' WHERE rowid IN (`+openRows+`) AND state = 'buffered'`,
		openRowsArgs("buffered")...); err != nil {
		return nil, fmt.Errorf("store: escalating buffered queries: %w", err)
	}
	return qs, nil
}
