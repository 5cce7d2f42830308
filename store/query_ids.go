package store

import "fmt"

// The received questions' index by id is kept in arrears (migration
// 0510), as the audit log's agent index is (audit_agents.go). The id's
// PRIMARY KEY put one more B-tree page into every group commit on the
// aoi.query path, where the writer is the one serial step of a request.
// Instead, query_ids maps the id of every question up to a mark
// (query_ids_through) to its row, and the writer adds the questions
// received since, in one statement, once queryIDRows of them have
// gathered.
//
// A lookup by id (queryByID) reads query_ids and walks the rows after the
// mark, in one statement: one snapshot, so every question is found
// however the mark moves. It also checks the row's own id, so a row that
// a VACUUM renumbered is never taken for another (Compact rebuilds the
// map after one). Ids are unique by construction (wire.NewID: the time
// and 48 random bits), so the table itself no longer enforces it.

// queryIDRows is how many questions may wait for the id index: the most
// a lookup by id walks without it.
const queryIDRows = 512

// queryIDMarkSQL reads the id index's mark: every question up to that
// rowid has its entry.
const queryIDMarkSQL = `SELECT through FROM query_ids_through WHERE id = 1`

// queryByID is the condition that picks the question with an id; its
// arguments are idArgs(id).
const queryByID = `rowid IN (SELECT qrow FROM query_ids WHERE id = ?
	UNION ALL SELECT rowid FROM queries WHERE rowid > (` + queryIDMarkSQL + `) AND id = ?) AND id = ?`

// idArgs are queryByID's arguments.
func idArgs(id string) []any { return []any{id, id, id} }

// loadQueryIDBacklog counts, for the writer, the questions after the id
// index's mark: a process that stopped with some waiting indexes them at
// the usual count. An unreadable count reads as 0 (the rows wait for the
// next queryIDRows).
func (tx *Tx) loadQueryIDBacklog() {
	var n int64
	_ = tx.conn.QueryRowContext(writerCtx, `SELECT COUNT(*) FROM queries WHERE rowid > (`+queryIDMarkSQL+`)`).Scan(&n)
	tx.queriesUnindexed = n
}

// withQueryIDs puts the pass that brings the id index up to the newest
// question first in batch when it is due (see withAgentIndex).
func (tx *Tx) withQueryIDs(batch []*writeReq) []*writeReq {
	if tx.queriesUnindexed < queryIDRows {
		return batch
	}
	tx.queriesUnindexed = 0
	return firstInBatch(batch, (*Tx).indexQueryIDs)
}

// indexQueryIDs adds every question after the id index's mark and moves
// the mark to the newest. Run again (its batch restarted), it adds
// nothing new.
func (tx *Tx) indexQueryIDs() error {
	var through, head int64
	if err := tx.QueryRow(queryIDMarkSQL).Scan(&through); err != nil {
		return fmt.Errorf("store: reading the question id index's mark: %w", err)
	}
	if err := tx.QueryRow(`SELECT COALESCE(MAX(rowid), 0) FROM queries`).Scan(&head); err != nil {
		return fmt.Errorf("store: reading the newest question: %w", err)
	}
	if head <= through {
		return nil
	}
	// Sorted by id, the entries land in a few leaf pages in order.
	if err := tx.Run(`INSERT OR IGNORE INTO query_ids(id, qrow)
		SELECT id, rowid FROM queries WHERE rowid > ? AND rowid <= ? ORDER BY id`, through, head); err != nil {
		return fmt.Errorf("store: indexing questions %d–%d by id: %w", through+1, head, err)
	}
	if err := tx.Run(`UPDATE query_ids_through SET through = ? WHERE id = 1`, head); err != nil {
		return fmt.Errorf("store: moving the question id index's mark: %w", err)
	}
	return nil
}

// rebuildQueryIDs maps every question again, after a VACUUM that may
// have renumbered rows (Compact).
func (tx *Tx) rebuildQueryIDs() error {
	for _, stmt := range []string{
		`DELETE FROM query_ids`,
		`INSERT OR IGNORE INTO query_ids(id, qrow) SELECT id, rowid FROM queries ORDER BY id`,
		`UPDATE query_ids_through SET through = (SELECT COALESCE(MAX(rowid), 0) FROM queries) WHERE id = 1`,
	} {
		if err := tx.Run(stmt); err != nil {
			return fmt.Errorf("store: rebuilding the question id index: %w", err)
		}
	}
	return nil
}
