package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Compact rewrites the database file without free space (VACUUM) and then
// empties the WAL, so content deleted earlier — by a forget, or by ordinary
// updates that left old copies in free pages — is gone from both files.
// VACUUM runs on its own connection and holds the write lock while it
// runs (well under a second for typical aoi databases); queued writes wait
// for it within the busy timeout.
func (db *DB) Compact(ctx context.Context) error {
	dsn := fmt.Sprintf("file:%s?_busy_timeout=%d", escapeURIPath(db.path), db.opts.busyTimeout.Milliseconds())
	c, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return fmt.Errorf("store: open %s for compaction: %w", db.path, err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, `VACUUM`); err != nil {
		return fmt.Errorf("store: compacting %s (VACUUM): %w; run `aoi forget` again later to retry", db.path, err)
	}
	if err := c.Close(); err != nil {
		return err
	}
	// VACUUM may renumber the rows of a table without an INTEGER PRIMARY
	// KEY, as queries is: its indexes (query_index.go) are built again.
	if err := db.Write(ctx, (*Tx).rebuildQueryIndexes); err != nil {
		return err
	}
	return db.CheckpointWAL(ctx)
}

// CheckpointWAL copies every committed page into the database file and
// truncates the WAL to zero bytes.
func (db *DB) CheckpointWAL(ctx context.Context) error {
	var busy, logFrames, done int
	if err := db.cp.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done); err != nil {
		return fmt.Errorf("store: checkpointing the WAL: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("store: the WAL could not be fully checkpointed because a reader was busy; try again")
	}
	return nil
}
