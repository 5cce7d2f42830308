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
func (db *DB) IntegrityCheck(ctx context.Context) ([]string, error) {
	return integrityCheck(ctx, db.rd)
}

// IntegrityCheckFile checks a database file that no aoi has open, read-only
// (aoi doctor without a running daemon).
func IntegrityCheckFile(ctx context.Context, path string) ([]string, error) {
	d, err := sql.Open("sqlite3", "file:"+escapeURIPath(path)+"?mode=ro&_query_only=1")
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
