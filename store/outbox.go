package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Outbox states.
const (
	OutboxPending   = "pending"
	OutboxDelivered = "delivered"
	OutboxExpired   = "expired"
	// OutboxWithheld: kept back at delivery, since it may no longer go
	// to its peer (outbox.Outbox.Withhold).
	OutboxWithheld = "withheld"
)

// OutboxRecord is one outgoing call waiting to be delivered to a peer.
type OutboxRecord struct {
	ID            string
	To            string
	Method        string
	Params        json.RawMessage
	Attempts      int
	NextAttemptAt time.Time
	CreatedAt     time.Time
	ExpiresAt     time.Time // zero: never expires
	LastError     string
	// Refused: an attempt was answered with a refusal (see
	// RescheduleOutbox), not only lost to an unreachable peer.
	Refused     bool
	State       string
	DeliveredAt *time.Time
}

const outboxColumns = `id, to_agent, method, params, attempts, next_attempt_at, created_at, expires_at,
	last_error, refused, state, delivered_at`

// EnqueueOutbox stores an outgoing call. Zero CreatedAt / NextAttemptAt
// become now (due at once); an empty State is pending.
func (tx *Tx) EnqueueOutbox(r OutboxRecord) error {
	now := tx.Now()
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now
	}
	if r.NextAttemptAt.IsZero() {
		r.NextAttemptAt = now
	}
	if r.State == "" {
		r.State = OutboxPending
	}
	params, err := jsonArg(r.Params)
	if err != nil {
		return err
	}
	err = tx.Run(`INSERT INTO outbox(`+outboxColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.To, r.Method, params, r.Attempts, formatTime(r.NextAttemptAt), formatTime(r.CreatedAt),
		formatTime(r.ExpiresAt), r.LastError, r.Refused, r.State, formatTimePtr(r.DeliveredAt))
	if err != nil {
		return fmt.Errorf("store: queueing %s for %s: %w", r.Method, r.To, err)
	}
	return nil
}

// DueOutbox returns pending entries whose next attempt is at or before now,
// soonest first. limit defaults to 100 and is capped at 1000.
func (db *DB) DueOutbox(ctx context.Context, now time.Time, limit int) ([]OutboxRecord, error) {
	return db.outboxWhere(ctx, `state = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`,
		formatTime(now), clampLimit(limit, 100, 1000))
}

// DueOutboxFor returns what a delivery turn sends one peer, in the order
// it was queued: the entries due, and with them every entry waiting out a
// back-off after the peer could not be reached. The back-off's jitter gave
// a later entry an earlier retry, so two notes sent while the peer was
// away arrived the wrong way round; a peer reached again takes them all,
// oldest first. An entry the peer refused (or answered busy) keeps its own
// schedule, and one not tried yet belongs to its sender's first attempt.
func (db *DB) DueOutboxFor(ctx context.Context, to string, now time.Time, limit int) ([]OutboxRecord, error) {
	return db.outboxWhere(ctx, `to_agent = ? AND state = 'pending'
		AND (next_attempt_at <= ? OR (refused = 0 AND attempts > 0)) ORDER BY created_at, id LIMIT ?`,
		to, formatTime(now), clampLimit(limit, 100, 1000))
}

// DueOutboxFair is DueOutbox with at most perPeer entries for any one
// peer, so a peer with thousands due (a flood of questions whose answers
// queue back to it) cannot fill the round and starve the others.
func (db *DB) DueOutboxFair(ctx context.Context, now time.Time, perPeer, limit int) ([]OutboxRecord, error) {
	return db.outboxWhere(ctx, `id IN (SELECT id FROM (SELECT id, next_attempt_at,
			ROW_NUMBER() OVER (PARTITION BY to_agent ORDER BY next_attempt_at, id) AS n
			FROM outbox WHERE state = 'pending' AND next_attempt_at <= ?)
		WHERE n <= ? ORDER BY next_attempt_at, id LIMIT ?) ORDER BY next_attempt_at, id`,
		formatTime(now), max(perPeer, 1), clampLimit(limit, 100, 1000))
}

// OutboxForAgent returns the pending entries for one peer, oldest first
// (used to deliver at once when the peer comes back online).
func (db *DB) OutboxForAgent(ctx context.Context, agentID string) ([]OutboxRecord, error) {
	return db.outboxWhere(ctx, `to_agent = ? AND state = 'pending' ORDER BY created_at, id LIMIT 1000`, agentID)
}

// PendingReplies lists the request ids (related_query_id) that answers and
// other aoi.notify entries still waiting in the outbox reply to.
func (db *DB) PendingReplies(ctx context.Context, method string) (map[string]bool, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT DISTINCT json_extract(params, '$.related_query_id') FROM outbox
		WHERE state = 'pending' AND method = ?`, method)
	if err != nil {
		return nil, fmt.Errorf("store: listing pending replies: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id sql.NullString
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if id.Valid && id.String != "" {
			out[id.String] = true
		}
	}
	return out, rows.Err()
}

// OutboxRecipients lists the peers something waits in the outbox for.
func (db *DB) OutboxRecipients(ctx context.Context) ([]string, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT DISTINCT to_agent FROM outbox WHERE state = 'pending'`)
	if err != nil {
		return nil, fmt.Errorf("store: listing outbox recipients: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var to string
		if err := rows.Scan(&to); err != nil {
			return nil, err
		}
		out = append(out, to)
	}
	return out, rows.Err()
}

// Outbox returns one entry by id.
func (db *DB) Outbox(ctx context.Context, id string) (OutboxRecord, bool, error) {
	rs, err := db.outboxWhere(ctx, `id = ?`, id)
	if err != nil || len(rs) == 0 {
		return OutboxRecord{}, false, err
	}
	return rs[0], true, nil
}

// NextOutboxAt returns when the next pending entry is due (ok = false when
// nothing is pending), so the delivery loop can sleep until then.
func (db *DB) NextOutboxAt(ctx context.Context) (next time.Time, ok bool, err error) {
	var s sql.NullString
	if err := db.rd.QueryRowContext(ctx, `SELECT MIN(next_attempt_at) FROM outbox WHERE state = 'pending'`).Scan(&s); err != nil {
		return time.Time{}, false, fmt.Errorf("store: reading the outbox: %w", err)
	}
	if !s.Valid {
		return time.Time{}, false, nil
	}
	next, err = parseTime(s.String)
	return next, err == nil, err
}

// MarkOutboxDelivered records a successful delivery.
func (tx *Tx) MarkOutboxDelivered(id string, at time.Time) error {
	res, err := tx.Exec(`UPDATE outbox SET state = 'delivered', delivered_at = ?, attempts = attempts + 1, last_error = ''
		WHERE id = ?`, formatTime(at), id)
	if err != nil {
		return fmt.Errorf("store: marking outbox entry %s delivered: %w", id, err)
	}
	return mustAffect(res, "outbox entry", id)
}

// RescheduleOutbox records a failed attempt, whether the peer refused it
// (answered with an error) and when to try again. Once refused, an entry
// stays marked so, whatever later attempts meet: the owner is told once.
func (tx *Tx) RescheduleOutbox(id string, next time.Time, lastErr string, refused bool) error {
	res, err := tx.Exec(`UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ?, refused = MAX(refused, ?)
		WHERE id = ? AND state = 'pending'`, formatTime(next), truncate(lastErr, 1024), refused, id)
	if err != nil {
		return fmt.Errorf("store: rescheduling outbox entry %s: %w", id, err)
	}
	return mustAffect(res, "pending outbox entry", id)
}

// PendingOutbox lists every entry not delivered yet, oldest first.
func (db *DB) PendingOutbox(ctx context.Context) ([]OutboxRecord, error) {
	return db.outboxWhere(ctx, `state = 'pending' ORDER BY created_at, id LIMIT 1000`)
}

// DropOutbox withdraws a pending entry at the owner's word; ErrNotFound
// when none waits under id.
func (tx *Tx) DropOutbox(id string) error {
	res, err := tx.Exec(`UPDATE outbox SET state = 'dropped' WHERE id = ? AND state = 'pending'`, id)
	if err != nil {
		return fmt.Errorf("store: dropping outbox entry %s: %w", id, err)
	}
	return mustAffect(res, "pending outbox entry", id)
}

// WithholdOutbox keeps a pending entry from going: it may no longer go to
// its peer.
func (tx *Tx) WithholdOutbox(id string) error {
	res, err := tx.Exec(`UPDATE outbox SET state = 'withheld' WHERE id = ? AND state = 'pending'`, id)
	if err != nil {
		return fmt.Errorf("store: withholding outbox entry %s: %w", id, err)
	}
	return mustAffect(res, "pending outbox entry", id)
}

// ExpireOutbox gives up on an entry.
func (tx *Tx) ExpireOutbox(id string) error {
	res, err := tx.Exec(`UPDATE outbox SET state = 'expired' WHERE id = ? AND state = 'pending'`, id)
	if err != nil {
		return fmt.Errorf("store: expiring outbox entry %s: %w", id, err)
	}
	return mustAffect(res, "pending outbox entry", id)
}

// RefusedOutbox counts the pending entries a peer has refused (see
// RescheduleOutbox).
func (db *DB) RefusedOutbox(ctx context.Context) (int, error) {
	var n int
	if err := db.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE state = 'pending' AND refused = 1`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting refused outbox entries: %w", err)
	}
	return n, nil
}

// OutboxStats returns how many entries are pending and when the oldest of
// them was created (zero when none).
func (db *DB) OutboxStats(ctx context.Context) (depth int, oldest time.Time, err error) {
	var s sql.NullString
	err = db.rd.QueryRowContext(ctx, `SELECT COUNT(*), MIN(created_at) FROM outbox WHERE state = 'pending'`).Scan(&depth, &s)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("store: reading outbox stats: %w", err)
	}
	if s.Valid {
		oldest, err = parseTime(s.String)
	}
	return depth, oldest, err
}

func (db *DB) outboxWhere(ctx context.Context, cond string, args ...any) ([]OutboxRecord, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT `+outboxColumns+` FROM outbox WHERE `+cond, args...)
	if err != nil {
		return nil, fmt.Errorf("store: reading the outbox: %w", err)
	}
	defer rows.Close()
	var out []OutboxRecord
	for rows.Next() {
		r, err := scanOutbox(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func scanOutbox(rows *sql.Rows) (OutboxRecord, error) {
	var r OutboxRecord
	var params, delivered sql.NullString
	var next, created, expires string
	if err := rows.Scan(&r.ID, &r.To, &r.Method, &params, &r.Attempts, &next, &created, &expires,
		&r.LastError, &r.Refused, &r.State, &delivered); err != nil {
		return r, fmt.Errorf("store: reading an outbox entry: %w", err)
	}
	r.Params = rawJSON(params)
	var err error
	if r.NextAttemptAt, err = parseTime(next); err != nil {
		return r, err
	}
	if r.CreatedAt, err = parseTime(created); err != nil {
		return r, err
	}
	if r.ExpiresAt, err = parseTime(expires); err != nil {
		return r, err
	}
	r.DeliveredAt, err = parseTimePtr(delivered)
	return r, err
}

// truncate bounds a string stored from an untrusted source (an error text).
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// SentMessages returns the typed messages this agent sent in threadID
// and about taskID ("" matches any; both "" match none), aoi.message
// entries still in the outbox, delivered or not, oldest first: the sent
// half of a conversation.
func (db *DB) SentMessages(ctx context.Context, threadID, taskID string) ([]OutboxRecord, error) {
	if threadID == "" && taskID == "" {
		return nil, nil
	}
	return db.outboxWhere(ctx, `method = 'aoi.message'
		AND (? = '' OR json_extract(params, '$.thread_id') = ?) AND (? = '' OR json_extract(params, '$.task_id') = ?)
		ORDER BY created_at, id`, threadID, threadID, taskID, taskID)
}

// SentMessageTo reports whether this agent sent peer a typed message with
// id msgID, in thread threadID or about task taskID (each may be ""): a
// message from peer naming it answers something this agent wrote to it.
func (db *DB) SentMessageTo(ctx context.Context, peer, msgID, threadID, taskID string) (bool, error) {
	if msgID == "" && threadID == "" && taskID == "" {
		return false, nil
	}
	var n int
	err := db.rd.QueryRowContext(ctx, `SELECT count(*) FROM outbox WHERE to_agent = ? AND method = 'aoi.message'
		AND ((? != '' AND id = ?) OR (? != '' AND json_extract(params, '$.thread_id') = ?)
			OR (? != '' AND json_extract(params, '$.task_id') = ?))`,
		peer, msgID, msgID, threadID, threadID, taskID, taskID).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: looking for a message sent to %s: %w", peer, err)
	}
	return n > 0, nil
}

// TaskThread returns the thread of the latest typed message about taskID
// exchanged with peer, received from it or sent to it (found false when
// there is none): a message about the task that names no thread joins
// the conversation already open about it (the twelfth walk's progress
// on an assigned task started a thread of its own).
func (db *DB) TaskThread(ctx context.Context, peer, taskID string) (thread string, found bool, err error) {
	if peer == "" || taskID == "" {
		return "", false, nil
	}
	err = db.rd.QueryRowContext(ctx, `SELECT thread FROM (
			SELECT thread_id AS thread, received_at AS at FROM messages
			WHERE from_agent = ? AND task_id = ? AND type != '' AND thread_id != ''
			UNION ALL
			SELECT json_extract(params, '$.thread_id'), created_at FROM outbox
			WHERE to_agent = ? AND method = 'aoi.message' AND json_extract(params, '$.task_id') = ?
				AND COALESCE(json_extract(params, '$.thread_id'), '') != '')
		ORDER BY at DESC LIMIT 1`, peer, taskID, peer, taskID).Scan(&thread)
	if isNoRows(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: finding the thread about task %s with %s: %w", taskID, peer, err)
	}
	return thread, true, nil
}
