package store

import (
	"context"
	"database/sql"
	"fmt"
)

// maxIntegrityProblems bounds what an integrity check reports.
const maxIntegrityProblems = 20

// IntegrityCheck runs SQLite's PRAGMA integrity_check on the open database
// and returns the problems it found (none: the file is sound).
//
// It runs on a connection of its own, opened for the check: FTS5's check
// on a pooled read connection can use the index layout that connection
// read before the writer merged segments, and then reports "corruption
// found reading blob" in a sound file (TestIntegrityCheckWhileIndexChanges).
func (db *DB) IntegrityCheck(ctx context.Context) ([]string, error) {
	return IntegrityCheckFile(ctx, db.path)
}

// IntegrityCheckFile checks a database file read-only: one no aoi has open
// (aoi doctor without a running daemon), or the open one on a fresh
// connection (IntegrityCheck).
func IntegrityCheckFile(ctx context.Context, path string) ([]string, error) {
	d, err := sql.Open("sqlite3", "file:"+escapeURIPath(path)+"?mode=ro&_query_only=1&_busy_timeout=5000")
	if err != nil {
		return nil, fmt.Errorf("open database %s read-only: %w", path, err)
	}
	defer d.Close()
	return integrityCheck(ctx, d)
}

func integrityCheck(ctx context.Context, d *sql.DB) ([]string, error) {
	rows, err := d.QueryContext(ctx, fmt.Sprintf("PRAGMA integrity_check(%d)", maxIntegrityProblems))
	if err != nil {
		return nil, fmt.Errorf("store: integrity check: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, fmt.Errorf("store: integrity check: %w", err)
		}
		if line != "ok" {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: integrity check: %w", err)
	}
	return problems, nil
}
