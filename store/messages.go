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
	// AssistantSeen: aoi_check_messages has shown it to the coding
	// assistant (its own mark, apart from the owner's Read).
	AssistantSeen bool
	// The typed envelope of an aoi.message; Type is "" for a notification.
	Type     string
	TaskID   string
	ThreadID string
	ReplyTo  string
	Origin   string // first sender of a relayed message ("" = From)
	Priority string
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
	res, err := tx.Exec(`INSERT INTO messages(msg_id, from_agent, event, related_id, data, received_at, read,
		type, task_id, thread_id, reply_to, origin, priority)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		m.MsgID, m.From, m.Event, m.RelatedID, data, formatTime(m.ReceivedAt), m.Read,
		m.Type, m.TaskID, m.ThreadID, m.ReplyTo, m.Origin, m.Priority)
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

// UnseenMessagesFrom counts the messages from one sender that neither the
// owner has read nor the assistant has been shown, earlier writes of the
// transaction included.
func (tx *Tx) UnseenMessagesFrom(from string) (int, error) {
	var n int
	err := tx.QueryRow(`SELECT count(*) FROM messages WHERE from_agent = ? AND read = 0 AND assistant_seen = 0`, from).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: counting unseen messages from %s: %w", from, err)
	}
	return n, nil
}

// Messages returns received notifications with seq > afterSeq in sequence
// order. limit defaults to 100 and is capped at 1000.
func (db *DB) Messages(ctx context.Context, afterSeq int64, limit int) ([]MessageRecord, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT `+messageColumns+`
		FROM messages WHERE seq > ? ORDER BY seq LIMIT ?`, afterSeq, clampLimit(limit, 100, 1000))
	if err != nil {
		return nil, fmt.Errorf("store: listing messages: %w", err)
	}
	return scanMessages(rows)
}

const messageColumns = `seq, msg_id, from_agent, event, related_id, data, received_at, read,
	type, task_id, thread_id, reply_to, origin, priority, assistant_seen`

func scanMessages(rows *sql.Rows) ([]MessageRecord, error) {
	defer rows.Close()
	var out []MessageRecord
	for rows.Next() {
		var m MessageRecord
		var data sql.NullString
		var received string
		if err := rows.Scan(&m.Seq, &m.MsgID, &m.From, &m.Event, &m.RelatedID, &data, &received, &m.Read,
			&m.Type, &m.TaskID, &m.ThreadID, &m.ReplyTo, &m.Origin, &m.Priority, &m.AssistantSeen); err != nil {
			return nil, fmt.Errorf("store: reading a message: %w", err)
		}
		m.Data = rawJSON(data)
		var err error
		if m.ReceivedAt, err = parseTime(received); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// MessageFilter narrows FilterMessages. Empty fields match everything.
type MessageFilter struct {
	AfterSeq   int64
	Type       string
	TaskID     string
	ThreadID   string
	UnreadOnly bool // not yet shown to the assistant (MarkAssistantSeen)
	Limit      int  // default 20, at most 1000
	// ReceivedAfter, when set, keeps messages received after it: a
	// conversation's page that starts after a message this agent sent.
	ReceivedAfter time.Time
	// From, when set, keeps messages from these senders: a thread's or a
	// task's conversation, from the peers that take part in it.
	From []string
}

// MessagePageLimit is the number of messages FilterMessages returns for
// a MessageFilter.Limit of n: 20 when n is not positive, at most 1000.
func MessagePageLimit(n int) int { return clampLimit(n, 20, 1000) }

// FilterMessages returns messages matching f with seq > f.AfterSeq in
// sequence order, plus whether more match beyond them. A Type, TaskID or
// ThreadID filter matches typed messages (aoi.message) only.
func (db *DB) FilterMessages(ctx context.Context, f MessageFilter) ([]MessageRecord, bool, error) {
	limit := MessagePageLimit(f.Limit)
	q := `SELECT ` + messageColumns + ` FROM messages WHERE seq > ?`
	args := []any{f.AfterSeq}
	for _, c := range []struct{ col, v string }{{"type", f.Type}, {"task_id", f.TaskID}, {"thread_id", f.ThreadID}} {
		if c.v != "" {
			q += ` AND ` + c.col + ` = ?`
			args = append(args, c.v)
		}
	}
	if f.UnreadOnly {
		q += ` AND assistant_seen = 0`
	}
	if len(f.From) > 0 {
		q += ` AND from_agent IN (` + placeholders(len(f.From)) + `)`
		args = appendStrings(args, f.From)
	}
	if !f.ReceivedAfter.IsZero() {
		q += ` AND received_at > ?` // timeLayout is fixed-width: text order is time order
		args = append(args, formatTime(f.ReceivedAfter))
	}
	q += ` ORDER BY seq LIMIT ?`
	args = append(args, limit+1)
	rows, err := db.rd.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, false, fmt.Errorf("store: listing typed messages: %w", err)
	}
	out, err := scanMessages(rows)
	if err != nil {
		return nil, false, err
	}
	more := len(out) > limit
	if more {
		out = out[:limit]
	}
	return out, more, nil
}

// MarkAssistantSeen records that the coding assistant was shown these
// messages. The owner's read mark (MarkMessagesRead) is separate.
func (tx *Tx) MarkAssistantSeen(seqs []int64) error {
	for _, s := range seqs {
		if err := tx.Run(`UPDATE messages SET assistant_seen = 1 WHERE seq = ?`, s); err != nil {
			return fmt.Errorf("store: marking message %d seen: %w", s, err)
		}
	}
	return nil
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
	if err := tx.Run(`UPDATE messages SET read = 1 WHERE seq > ? AND seq <= ? AND read = 0`, mark, uptoSeq); err != nil {
		return fmt.Errorf("store: marking messages read: %w", err)
	}
	return tx.SetSetting(readMarkKey, strconv.FormatInt(uptoSeq, 10))
}

// MarkMessagesReadSeqs marks these messages read and no others: `aoi
// inbox --limit` shows the newest few, and the earlier ones it left out
// stay unread. The prefix mark does not move, so counting unread still
// finds every unread message after it.
func (tx *Tx) MarkMessagesReadSeqs(seqs []int64) error {
	for _, s := range seqs {
		if err := tx.Run(`UPDATE messages SET read = 1 WHERE seq = ?`, s); err != nil {
			return fmt.Errorf("store: marking message %d read: %w", s, err)
		}
	}
	return nil
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

// AnswerFrom returns the id of the message from this peer already stored
// about relatedID (found false when there is none): an ask is answered
// once.
func (db *DB) AnswerFrom(ctx context.Context, from, relatedID string) (msgID string, found bool, err error) {
	return answerFrom(db.rd.QueryRowContext(ctx, answerFromQuery, from, relatedID), relatedID)
}

// AnswerFrom is DB.AnswerFrom inside the write transaction: it also sees
// what this group commit stored before, so two answers sent at once cannot
// both find none.
func (tx *Tx) AnswerFrom(from, relatedID string) (msgID string, found bool, err error) {
	return answerFrom(tx.QueryRow(answerFromQuery, from, relatedID), relatedID)
}

const answerFromQuery = `SELECT msg_id FROM messages WHERE from_agent = ? AND related_id = ? LIMIT 1`

func answerFrom(row *sql.Row, relatedID string) (msgID string, found bool, err error) {
	err = row.Scan(&msgID)
	if isNoRows(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: reading the answer to %s: %w", relatedID, err)
	}
	return msgID, true, nil
}

// FirstInConversation is the first typed message received in thread
// threadID, or about task taskID when threadID is "" (found false when
// none is stored): with the messages this agent sent in it, who started
// the conversation.
func (db *DB) FirstInConversation(ctx context.Context, threadID, taskID string) (MessageRecord, bool, error) {
	col, id := conversationColumn(threadID, taskID)
	rows, err := db.rd.QueryContext(ctx, `SELECT `+messageColumns+` FROM messages WHERE `+col+` = ? ORDER BY seq LIMIT 1`, id)
	if err != nil {
		return MessageRecord{}, false, fmt.Errorf("store: finding the first message of %s: %w", id, err)
	}
	out, err := scanMessages(rows)
	if err != nil || len(out) == 0 {
		return MessageRecord{}, false, err
	}
	return out[0], true, nil
}

// OthersInConversation counts, by sender, the typed messages received in
// thread threadID (or about task taskID when threadID is "") from senders
// other than parties.
func (db *DB) OthersInConversation(ctx context.Context, threadID, taskID string, parties []string) (map[string]int, error) {
	col, id := conversationColumn(threadID, taskID)
	args := appendStrings([]any{id}, parties)
	rows, err := db.rd.QueryContext(ctx, `SELECT from_agent, count(*) FROM messages WHERE `+col+` = ?
		AND from_agent NOT IN (`+placeholders(len(parties))+`) GROUP BY from_agent`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: counting other senders in %s: %w", id, err)
	}
	defer rows.Close()
	var out map[string]int
	for rows.Next() {
		var from string
		var n int
		if err := rows.Scan(&from, &n); err != nil {
			return nil, fmt.Errorf("store: counting other senders in %s: %w", id, err)
		}
		if out == nil {
			out = map[string]int{}
		}
		out[from] = n
	}
	return out, rows.Err()
}

// conversationColumn is the column and the id a conversation is found by:
// its thread, else its task.
func conversationColumn(threadID, taskID string) (col, id string) {
	if threadID != "" {
		return "thread_id", threadID
	}
	return "task_id", taskID
}

// ReceivedThread returns the thread and the task ("" for none) of the
// typed message received with this msg_id (found false when none is
// stored, or it has no thread), for a reply that names it and no thread
// or task. A message from preferFrom wins over another sender's that
// happens to carry the same id.
func (db *DB) ReceivedThread(ctx context.Context, msgID, preferFrom string) (thread, task string, found bool, err error) {
	if msgID == "" {
		return "", "", false, nil
	}
	err = db.rd.QueryRowContext(ctx, `SELECT thread_id, task_id FROM messages
		WHERE msg_id = ? AND type != '' AND thread_id != ''
		ORDER BY from_agent = ? DESC, seq DESC LIMIT 1`, msgID, preferFrom).Scan(&thread, &task)
	if isNoRows(err) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("store: finding the thread of message %s: %w", msgID, err)
	}
	return thread, task, true, nil
}
