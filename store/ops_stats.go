package store

import (
	"context"
	"fmt"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// OpsStats is what the metrics endpoint reports from the database, read
// with a few aggregate queries on each scrape.
type OpsStats struct {
	Approvals     map[string]int // approvals by state
	Tasks         map[string]int // tasks by state
	OutboxDepth   int            // pending outbox entries
	OutboxOldest  time.Time      // creation time of the oldest pending entry (zero: none)
	ContextEvents int64          // events in the context index
	// ContextIngested is the highest context event id assigned so far. It
	// grows by one per ingested event, so it serves as an ingest counter
	// (it can only fall back when the whole index is pruned).
	ContextIngested int64
}

// OpsStats counts approvals, tasks, the outbox and the context index.
func (db *DB) OpsStats(ctx context.Context) (OpsStats, error) {
	s := OpsStats{}
	var err error
	if s.Approvals, err = db.countByState(ctx, "approvals"); err != nil {
		return s, err
	}
	if s.Tasks, err = db.CountTasksByState(ctx); err != nil {
		return s, err
	}
	if s.OutboxDepth, s.OutboxOldest, err = db.OutboxStats(ctx); err != nil {
		return s, err
	}
	// Ids above 0 count up as events arrive; backfilled history counts
	// down from 0 (earlierID), its lowest id kept in a cursor.
	err = db.rd.QueryRowContext(ctx, `SELECT COUNT(*), MAX(COALESCE(MAX(id), 0), 0)
		+ 1 - COALESCE((SELECT CAST(value AS INTEGER) FROM context_cursors WHERE name = ?), 1) FROM context_events`, lowestIDCursor).
		Scan(&s.ContextEvents, &s.ContextIngested)
	if err != nil {
		return s, fmt.Errorf("store: counting context events: %w", err)
	}
	return s, nil
}

// countByState counts a table's rows per state (table is one of ours, never
// input).
func (db *DB) countByState(ctx context.Context, table string) (map[string]int, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT state, COUNT(*) FROM `+table+` GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("store: counting %s: %w", table, err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var state string
		var n int
		if err := rows.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("store: counting %s: %w", table, err)
		}
		counts[state] = n
	}
	return counts, rows.Err()
}

// SQLiteVersion is the version of the SQLite library linked into aoi.
func SQLiteVersion() string {
	v, _, _ := sqlite3.Version()
	return v
}
