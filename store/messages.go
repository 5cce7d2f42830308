package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// MessageRecord is a notification received from a peer (aoi.notify).
type MessageRecord struct {
	Seq        int64  // assigned by InsertMessage; increases in arrival order
	MsgID      string // the sender's id for this notification ("" = none)
	From       string
	Event      string
	RelatedID  string
	Data       json.RawMessage
	ReceivedAt time.Time
	Read       bool
}

// InsertMessage stores a received notification and returns its sequence
// number. When the same sender already delivered this MsgID (a retry), it
// stores nothing and returns the existing seq with duplicate = true, so a
// notification is recorded exactly once however often it is retried. A zero
// ReceivedAt becomes now.
func (tx *Tx) InsertMessage(m MessageRecord) (seq int64, duplicate bool, err error) {
	if m.ReceivedAt.IsZero() {
		m.ReceivedAt = tx.Now()
	}
	data, err := jsonArg(m.Data)
	if err != nil {
		return 0, false, err
	}
	res, err := tx.Exec(`INSERT INTO messages(msg_id, from_agent, event, related_id, data, received_at, read)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		m.MsgID, m.From, m.Event, m.RelatedID, data, formatTime(m.ReceivedAt), m.Read)
	if err != nil {
		return 0, false, fmt.Errorf("store: saving a message from %s: %w", m.From, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		seq, err = res.LastInsertId()
		return seq, false, err
	}
	err = tx.QueryRow(`SELECT seq FROM messages WHERE from_agent = ? AND msg_id = ? AND msg_id != ''`, m.From, m.MsgID).Scan(&seq)
	if err != nil {
		return 0, false, fmt.Errorf("store: finding the earlier copy of message %s from %s: %w", m.MsgID, m.From, err)
	}
	return seq, true, nil
}

// Messages returns received notifications with seq > afterSeq in sequence
// order. limit defaults to 100 and is capped at 1000.
func (db *DB) Messages(ctx context.Context, afterSeq int64, limit int) ([]MessageRecord, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT seq, msg_id, from_agent, event, related_id, data, received_at, read
		FROM messages WHERE seq > ? ORDER BY seq LIMIT ?`, afterSeq, clampLimit(limit, 100, 1000))
	if err != nil {
		return nil, fmt.Errorf("store: listing messages: %w", err)
	}
	defer rows.Close()
	var out []MessageRecord
	for rows.Next() {
		var m MessageRecord
		var data sql.NullString
		var received string
		if err := rows.Scan(&m.Seq, &m.MsgID, &m.From, &m.Event, &m.RelatedID, &data, &received, &m.Read); err != nil {
			return nil, fmt.Errorf("store: reading a message: %w", err)
		}
		m.Data = rawJSON(data)
		if m.ReceivedAt, err = parseTime(received); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// readMarkKey is the settings key holding the highest seq marked read.
// Marks only ever cover a prefix, so every unread message lies after it and
// counting them is a primary-key range scan (no index to maintain on the hot
// insert path).
const readMarkKey = "messages.read_upto"

// MarkMessagesRead marks every message with seq <= uptoSeq as read.
func (tx *Tx) MarkMessagesRead(uptoSeq int64) error {
	var mark int64
	if err := tx.QueryRow(`SELECT COALESCE(MAX(CAST(value AS INTEGER)), 0) FROM settings WHERE key = ?`, readMarkKey).Scan(&mark); err != nil {
		return fmt.Errorf("store: marking messages read: %w", err)
	}
	if uptoSeq <= mark {
		return nil
	}
	if _, err := tx.Exec(`UPDATE messages SET read = 1 WHERE seq > ? AND seq <= ? AND read = 0`, mark, uptoSeq); err != nil {
		return fmt.Errorf("store: marking messages read: %w", err)
	}
	return tx.SetSetting(readMarkKey, strconv.FormatInt(uptoSeq, 10))
}

// UnreadMessages counts messages not yet marked read.
func (db *DB) UnreadMessages(ctx context.Context) (int, error) {
	var n int
	err := db.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE read = 0 AND seq >
		(SELECT COALESCE(MAX(CAST(value AS INTEGER)), 0) FROM settings WHERE key = ?)`, readMarkKey).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: counting unread messages: %w", err)
	}
	return n, nil
}
