package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/internal/utf8cut"
)

// ContextEvent is one (already redacted) entry of the context mirror.
type ContextEvent struct {
	ID     int64     `json:"id"`
	Source string    `json:"source"` // git | task | transcript | note | assistant | testfile
	Kind   string    `json:"kind"`   // commit | branch | worktree | marker | test | note | prompt | …
	Ctx    string    `json:"ctx"`    // context identifier, e.g. acme/webapp
	Key    string    `json:"key"`    // file path, commit sha, task id, …
	Title  string    `json:"title"`
	Body   string    `json:"body"`
	TS     time.Time `json:"ts"`
	Meta   string    `json:"meta,omitempty"` // compact JSON object ("" = {})
	// Earlier marks an event older than the events already indexed (a
	// repository's history, backfilled after its newest commits): it is
	// stored below every id, so a search, which walks the index newest id
	// first, meets it after them. Not stored.
	Earlier bool `json:"-"`
}

// Bounds on what one event may hold, so a huge diff or log cannot bloat the
// index; sources summarise before this.
const (
	maxContextTitle = 1 << 10
	maxContextBody  = 32 << 10
	maxContextMeta  = 8 << 10
)

// PreparedContextEvent is a ContextEvent checked, trimmed to the store's
// bounds and with its short-term index row computed (PrepareContextEvent),
// so that inside DB.Write only its statements remain: the single writer
// does less per event while callers' goroutines, on other cores, do the
// rest.
type PreparedContextEvent struct {
	ev    ContextEvent
	grams string
}

// PrepareContextEvent checks ev and computes what indexing it needs; call
// it outside DB.Write and insert the result with InsertPreparedContextEvent.
func PrepareContextEvent(ev ContextEvent) (PreparedContextEvent, error) {
	if ev.Source == "" || ev.Kind == "" {
		return PreparedContextEvent{}, fmt.Errorf("store: context event needs a source and a kind (got %q/%q)", ev.Source, ev.Kind)
	}
	if ev.Meta == "" {
		ev.Meta = "{}"
	}
	if len(ev.Meta) > maxContextMeta {
		return PreparedContextEvent{}, fmt.Errorf("store: context event meta is %d bytes, over the %d-byte limit", len(ev.Meta), maxContextMeta)
	}
	ev.Title, ev.Body = utf8cut.Prefix(ev.Title, maxContextTitle), utf8cut.Prefix(ev.Body, maxContextBody)
	return PreparedContextEvent{ev: ev, grams: contextShortGrams(ev.Title + " " + ev.Key + " " + ev.Body)}, nil
}

// InsertContextEvent stores ev and indexes it; TS defaults to the store
// clock. It returns the new event's id.
func (tx *Tx) InsertContextEvent(ev ContextEvent) (int64, error) {
	p, err := PrepareContextEvent(ev)
	if err != nil {
		return 0, err
	}
	return tx.InsertPreparedContextEvent(p)
}

// InsertPreparedContextEvent stores and indexes an event prepared by
// PrepareContextEvent; TS defaults to the store clock. It returns the new
// event's id.
func (tx *Tx) InsertPreparedContextEvent(p PreparedContextEvent) (int64, error) {
	ev := p.ev
	if ev.Source == "" {
		return 0, fmt.Errorf("store: context event was not prepared (use store.PrepareContextEvent)")
	}
	if ev.TS.IsZero() {
		ev.TS = tx.Now()
	}
	var given any // nil: SQLite picks the next id
	if ev.Earlier {
		low, err := tx.earlierID()
		if err != nil {
			return 0, err
		}
		given = low
	}
	res, err := tx.Exec(`INSERT INTO context_events(id, source, kind, ctx, key, title, body, ts, meta)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		given, ev.Source, ev.Kind, ev.Ctx, ev.Key, ev.Title, ev.Body, formatTime(ev.TS), ev.Meta)
	if err != nil {
		return 0, fmt.Errorf("store: insert context event: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	// Indexed here rather than by a trigger (migration 0101): an INSERT
	// that fires a trigger runs in a statement savepoint, and FTS5 flushes
	// its pending terms to a new segment at every savepoint; without one,
	// a group commit's events make one segment.
	if err := tx.Run(`INSERT INTO context_fts(rowid, title, body, key) VALUES (?, ?, ?, ?)`, id, ev.Title, ev.Body, ev.Key); err != nil {
		return 0, fmt.Errorf("store: index context event: %w", err)
	}
	if p.grams != "" {
		if err := tx.Run(`INSERT INTO context_short(rowid, grams) VALUES (?, ?)`, id, p.grams); err != nil {
			return 0, fmt.Errorf("store: index short terms: %w", err)
		}
	}
	return id, nil
}

// DeleteNote removes the owner's note id from the mirror (its search
// index entries go with it: the delete trigger). It reports ErrNotFound
// when no note has that id.
func (tx *Tx) DeleteNote(id int64) error {
	res, err := tx.Exec(`DELETE FROM context_events WHERE id = ? AND source = 'note' AND kind = 'note'`, id)
	if err != nil {
		return fmt.Errorf("store: delete note: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteContextKeys removes the events of one (source, ctx, kind) whose
// key is one of keys (a repository's commits that a rewrite of its history
// took out of every branch), with their index entries, and reports how
// many it removed.
func (tx *Tx) DeleteContextKeys(source, ctxID, kind string, keys []string) (int64, error) {
	var removed int64
	for chunk := range slices.Chunk(keys, 500) { // well under SQLite's bound on parameters
		args := []any{source, ctxID, kind}
		for _, k := range chunk {
			args = append(args, k)
		}
		res, err := tx.Exec(`DELETE FROM context_events WHERE source = ? AND ctx = ? AND kind = ? AND key IN (?`+
			strings.Repeat(", ?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return removed, fmt.Errorf("store: delete context events: %w", err)
		}
		n, _ := res.RowsAffected()
		removed += n
	}
	return removed, nil
}

// HeldContextKeys reports which of keys one (source, ctx, kind) already
// has an event for.
func (tx *Tx) HeldContextKeys(source, ctxID, kind string, keys []string) (map[string]bool, error) {
	held := map[string]bool{}
	for chunk := range slices.Chunk(keys, 500) { // well under SQLite's bound on parameters
		args := []any{source, ctxID, kind}
		for _, k := range chunk {
			args = append(args, k)
		}
		rows, err := tx.Query(`SELECT key FROM context_events WHERE source = ? AND ctx = ? AND kind = ? AND key IN (?`+
			strings.Repeat(", ?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: look up context keys: %w", err)
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, err
			}
			held[k] = true
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return nil, err
		}
	}
	return held, nil
}

// ReplaceContextState swaps the current-state events of one (source, ctx,
// kind) — a repository's branch, its uncommitted changes, its open FIXMEs —
// for evs, so state that went away stops being reported.
func (tx *Tx) ReplaceContextState(source, ctxID, kind string, evs []ContextEvent) error {
	if err := tx.Run(`DELETE FROM context_events WHERE source = ? AND ctx = ? AND kind = ?`, source, ctxID, kind); err != nil {
		return fmt.Errorf("store: replace context state: %w", err)
	}
	for _, ev := range evs {
		ev.Source, ev.Ctx, ev.Kind = source, ctxID, kind
		if _, err := tx.InsertContextEvent(ev); err != nil {
			return err
		}
	}
	return nil
}

// lowestIDCursor keeps the lowest id earlierID has handed out, so an id is
// never handed out twice (retention may have deleted the event that had
// it) and the ingest counter can count the events stored below 1.
const lowestIDCursor = "store:lowest_context_id"

// earlierID is an id below every event's and below every id handed out
// before it: 0, then -1, -2, … as history is backfilled further back.
func (tx *Tx) earlierID() (int64, error) {
	var low int64
	err := tx.QueryRow(`SELECT MIN(COALESCE((SELECT MIN(id) FROM context_events), 1),
		COALESCE((SELECT CAST(value AS INTEGER) FROM context_cursors WHERE name = ?), 1), 1) - 1`, lowestIDCursor).Scan(&low)
	if err != nil {
		return 0, fmt.Errorf("store: finding an id for an earlier event: %w", err)
	}
	return low, tx.SetContextCursor(lowestIDCursor, strconv.FormatInt(low, 10))
}

// SetContextCursor records where a source stopped (see context_cursors).
func (tx *Tx) SetContextCursor(name, value string) error {
	err := tx.Run(`INSERT INTO context_cursors(name, value, updated_at) VALUES (?, ?, ?)
		ON CONFLICT(name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		name, value, formatTime(tx.Now()))
	if err != nil {
		return fmt.Errorf("store: save context cursor %q: %w", name, err)
	}
	return nil
}

// ContextCursor returns a source's saved position; ok is false when none is saved.
func (db *DB) ContextCursor(ctx context.Context, name string) (value string, ok bool, err error) {
	err = db.rd.QueryRowContext(ctx, `SELECT value FROM context_cursors WHERE name = ?`, name).Scan(&value)
	if isNoRows(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: read context cursor %q: %w", name, err)
	}
	return value, true, nil
}

// ContextKeys lists the keys of one (source, ctx, kind)'s events, at most
// limit of them (the newest first).
func (db *DB) ContextKeys(ctx context.Context, source, ctxID, kind string, limit int) ([]string, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT key FROM context_events WHERE source = ? AND ctx = ? AND kind = ?
		ORDER BY id DESC LIMIT ?`, source, ctxID, kind, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list context keys: %w", err)
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// ContextRecent selects the newest events by kind and context.
type ContextRecent struct {
	Kinds    []string  // empty = all
	Contexts []string  // empty = all
	Since    time.Time // zero = no bound
	Until    time.Time // only events at or before it; zero = no bound
	Limit    int       // default 50, at most 1000
	// Oldest lists the oldest events first (the first ones after Since)
	// instead of the newest.
	Oldest bool
}

// RecentContext returns the newest events matching f, newest (by ts)
// first. Each kind is read separately through the (kind, ts) index, so the
// cost follows the limit, not how many events of a kind exist.
func (db *DB) RecentContext(ctx context.Context, f ContextRecent) ([]ContextEvent, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	limit = min(limit, 1000)
	if len(f.Kinds) == 0 {
		return db.recentContext(ctx, "", f, limit)
	}
	var out []ContextEvent
	for _, k := range f.Kinds {
		evs, err := db.recentContext(ctx, k, f, limit)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].TS.Equal(out[j].TS) {
			return out[i].TS.After(out[j].TS) != f.Oldest
		}
		return (out[i].ID > out[j].ID) != f.Oldest
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// recentContext reads one kind ("" = any) newest first.
func (db *DB) recentContext(ctx context.Context, kind string, f ContextRecent, limit int) ([]ContextEvent, error) {
	var (
		where []string
		args  []any
	)
	if kind != "" {
		where = append(where, "kind = ?")
		args = append(args, kind)
	}
	if len(f.Contexts) > 0 {
		where = append(where, "ctx IN ("+placeholders(len(f.Contexts))+")")
		args = appendStrings(args, f.Contexts)
	}
	if !f.Since.IsZero() {
		where = append(where, "ts >= ?")
		args = append(args, formatTime(f.Since))
	}
	if !f.Until.IsZero() {
		where = append(where, "ts <= ?")
		args = append(args, formatTime(f.Until))
	}
	q := `SELECT id, source, kind, ctx, key, title, body, ts, meta FROM context_events`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if f.Oldest {
		q += " ORDER BY ts ASC, id ASC LIMIT ?"
	} else {
		q += " ORDER BY ts DESC, id DESC LIMIT ?"
	}
	rows, err := db.rd.QueryContext(ctx, q, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: recent context: %w", err)
	}
	return scanContextEvents(rows)
}

// PruneContext deletes events older than before, in batches so the writer
// never holds one long transaction, and returns how many went.
func (db *DB) PruneContext(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := db.Write(ctx, func(tx *Tx) error {
			res, err := tx.Exec(`DELETE FROM context_events WHERE id IN
				(SELECT id FROM context_events WHERE ts < ? LIMIT 2000)`, formatTime(before))
			if err != nil {
				return fmt.Errorf("store: prune context: %w", err)
			}
			n, err = res.RowsAffected()
			return err
		})
		total += n
		if err != nil || n == 0 {
			return total, err
		}
	}
}

// ContextStats describes the context mirror.
type ContextStats struct {
	Events   int64            `json:"events"`
	BySource map[string]int64 `json:"by_source"`
	Oldest   time.Time        `json:"oldest"`
	Newest   time.Time        `json:"newest"`
}

// ContextStats counts the mirror's events by source.
func (db *DB) ContextStats(ctx context.Context) (ContextStats, error) {
	st := ContextStats{BySource: map[string]int64{}}
	rows, err := db.rd.QueryContext(ctx, `SELECT source, count(*) FROM context_events GROUP BY source`)
	if err != nil {
		return st, fmt.Errorf("store: context stats: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var src string
		var n int64
		if err := rows.Scan(&src, &n); err != nil {
			return st, err
		}
		st.BySource[src] = n
		st.Events += n
	}
	if err := rows.Err(); err != nil {
		return st, err
	}
	var oldest, newest sql.NullString
	// One subquery a bound, so each reads the ts index's end (see ContextSpan).
	if err := db.rd.QueryRowContext(ctx, `SELECT (SELECT min(ts) FROM context_events), (SELECT max(ts) FROM context_events)`).Scan(&oldest, &newest); err != nil {
		return st, fmt.Errorf("store: context stats: %w", err)
	}
	if st.Oldest, err = parseTime(oldest.String); err != nil {
		return st, err
	}
	st.Newest, err = parseTime(newest.String)
	return st, err
}

func scanContextEvents(rows *sql.Rows) ([]ContextEvent, error) {
	defer rows.Close()
	var out []ContextEvent
	for rows.Next() {
		ev, err := scanContextEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, rows.Err()
}

// scanContextEvent reads the row the cursor is on (columns id, source,
// kind, ctx, key, title, body, ts, meta).
func scanContextEvent(rows *sql.Rows) (ContextEvent, error) {
	var ev ContextEvent
	var ts string
	if err := rows.Scan(&ev.ID, &ev.Source, &ev.Kind, &ev.Ctx, &ev.Key, &ev.Title, &ev.Body, &ts, &ev.Meta); err != nil {
		return ev, fmt.Errorf("store: read context event: %w", err)
	}
	t, err := parseTime(ts)
	ev.TS = t
	return ev, err
}

// placeholders is n comma-separated parameters, for an IN list.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// appendStrings appends ss to a statement's arguments, for an IN list.
func appendStrings(args []any, ss []string) []any {
	for _, s := range ss {
		args = append(args, s)
	}
	return args
}

// MergeContextIndex does a bounded amount of FTS5 segment merging (about
// pages pages per index). Run it when the mirror is idle: fewer segments
// make term walks faster, and inserts stay cheap because they merge lazily.
func (db *DB) MergeContextIndex(ctx context.Context, pages int) error {
	if pages <= 0 {
		pages = 200
	}
	return db.Write(ctx, func(tx *Tx) error {
		for _, table := range []string{"context_fts", "context_short"} {
			if err := tx.Run(`INSERT INTO `+table+`(`+table+`, rank) VALUES ('merge', ?)`, pages); err != nil {
				return fmt.Errorf("store: merge %s segments: %w", table, err)
			}
		}
		return nil
	})
}

// ContextSpan is the lowest and highest event id in the mirror: a cheap
// sign that it changed (new events get a higher id, history backfilled
// below the oldest a lower one), read from the rowid alone.
func (db *DB) ContextSpan(ctx context.Context) (low, high int64, err error) {
	var lo, hi sql.NullInt64
	// Each bound in its own subquery: SQLite reads min() or max() of a
	// rowid off the end of the b-tree only when it is the query's one
	// aggregate; both in one SELECT scan the whole table (90 ms at a
	// million events, at every question).
	if err := db.rd.QueryRowContext(ctx, `SELECT (SELECT min(id) FROM context_events), (SELECT max(id) FROM context_events)`).Scan(&lo, &hi); err != nil {
		return 0, 0, fmt.Errorf("store: context span: %w", err)
	}
	return lo.Int64, hi.Int64, nil
}

// ContextTitle is an event's id and title.
type ContextTitle struct {
	ID    int64
	Title string
}

// ContextTitles returns the titles of the events whose id is in [from,
// to], lowest id first, at most limit (default 1000, at most 10000): a
// reader that learns the mirror's vocabulary walks it in spans (see
// ContextSpan).
func (db *DB) ContextTitles(ctx context.Context, from, to int64, limit int) ([]ContextTitle, error) {
	if limit <= 0 {
		limit = 1000
	}
	limit = min(limit, 10000)
	rows, err := db.rd.QueryContext(ctx, `SELECT id, title FROM context_events WHERE id BETWEEN ? AND ? ORDER BY id LIMIT ?`, from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("store: context titles: %w", err)
	}
	defer rows.Close()
	var out []ContextTitle
	for rows.Next() {
		var t ContextTitle
		if err := rows.Scan(&t.ID, &t.Title); err != nil {
			return nil, fmt.Errorf("store: context titles: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: context titles: %w", err)
	}
	return out, nil
}
