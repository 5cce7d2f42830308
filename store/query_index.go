package store

import (
	"fmt"
	"slices"
	"strings"
)

// The received questions' indexes are kept in arrears (migrations 0510
// and 0520), as the audit log's agent index is (audit_agents.go): the
// id's PRIMARY KEY and the open questions' index (queries_open) each put
// one more B-tree page into every group commit on the aoi.query path,
// where the writer is the one serial step of a request. Instead, up to a
// mark (queries_indexed), query_ids maps each question's id to its row
// and open_queries lists the questions waiting for the owner by state;
// the writer adds the questions received since, in one pass, once
// queryIndexRows of them have gathered. Triggers keep both in step with a
// question deleted, and open_queries with a question up to the mark
// that changes state.
//
// A lookup (queryByID, openRows) reads the index and walks the rows after
// the mark in one statement, or in one read transaction: one snapshot,
// so every question is found once however the mark moves. A lookup by id
// also checks the row's own id, so a row that a VACUUM renumbered is
// never taken for another (Compact rebuilds the indexes after one). Ids
// are unique by construction (wire.NewID: the time and 48 random bits),
// so the table itself no longer enforces it.

// queryIndexRows is how many questions may wait for the indexes: the most a
// lookup walks without them.
const queryIndexRows = 512

// queryIndexMarkSQL reads the indexes' mark: every question up to that rowid
// has its entries.
const queryIndexMarkSQL = `SELECT through FROM queries_indexed WHERE id = 1`

// queryByID is the condition that picks the question with an id; its
// arguments are idArgs(id).
const queryByID = `rowid IN (SELECT qrow FROM query_ids WHERE id = ?
	UNION ALL SELECT rowid FROM queries WHERE rowid > (` + queryIndexMarkSQL + `) AND id = ?) AND id = ?`

// idArgs are queryByID's arguments.
func idArgs(id string) []any { return []any{id, id, id} }

// loadQueryIndexBacklog counts, for the writer, the questions after the
// indexes' mark: a process that stopped with some waiting indexes them at
// the usual count. An unreadable count reads as 0 (the rows wait for the
// next queryIndexRows).
func (tx *Tx) loadQueryIndexBacklog() {
	var n int64
	_ = tx.conn.QueryRowContext(writerCtx, `SELECT COUNT(*) FROM queries WHERE rowid > (`+queryIndexMarkSQL+`)`).Scan(&n)
	tx.queriesUnindexed = n
}

// withQueryIndexes puts the pass that brings the indexes up to the newest
// question first in batch when it is due (see withAgentIndex).
func (tx *Tx) withQueryIndexes(batch []*writeReq) []*writeReq {
	if tx.queriesUnindexed < queryIndexRows {
		return batch
	}
	tx.queriesUnindexed = 0
	return firstInBatch(batch, (*Tx).indexQuestions)
}

// indexQuestions adds every question after the indexes' mark and moves
// the mark to the newest. Run again (its batch restarted), it adds
// nothing new.
func (tx *Tx) indexQuestions() error {
	var through, head int64
	if err := tx.QueryRow(queryIndexMarkSQL).Scan(&through); err != nil {
		return fmt.Errorf("store: reading the question indexes' mark: %w", err)
	}
	if err := tx.QueryRow(`SELECT COALESCE(MAX(rowid), 0) FROM queries`).Scan(&head); err != nil {
		return fmt.Errorf("store: reading the newest question: %w", err)
	}
	if head <= through {
		return nil
	}
	// Sorted by each index's key, the entries land in a few leaf pages in
	// order.
	if err := tx.Run(`INSERT OR IGNORE INTO query_ids(id, qrow)
		SELECT id, rowid FROM queries WHERE rowid > ? AND rowid <= ? ORDER BY id`, through, head); err != nil {
		return fmt.Errorf("store: indexing questions %d–%d by id: %w", through+1, head, err)
	}
	if err := tx.Run(`INSERT OR IGNORE INTO open_queries(state, qrow)
		SELECT state, rowid FROM queries WHERE rowid > ? AND rowid <= ? AND `+openState+` ORDER BY state, rowid`, through, head); err != nil {
		return fmt.Errorf("store: indexing open questions %d–%d: %w", through+1, head, err)
	}
	if err := tx.Run(`UPDATE queries_indexed SET through = ? WHERE id = 1`, head); err != nil {
		return fmt.Errorf("store: moving the question indexes' mark: %w", err)
	}
	return nil
}

// rebuildQueryIndexes indexes every question again, after a VACUUM that may
// have renumbered rows (Compact).
func (tx *Tx) rebuildQueryIndexes() error {
	for _, stmt := range []string{
		`DELETE FROM query_ids`,
		`DELETE FROM open_queries`,
		`INSERT OR IGNORE INTO query_ids(id, qrow) SELECT id, rowid FROM queries ORDER BY id`,
		`INSERT OR IGNORE INTO open_queries(state, qrow) SELECT state, rowid FROM queries WHERE ` + openState + ` ORDER BY state, rowid`,
		`UPDATE queries_indexed SET through = (SELECT COALESCE(MAX(rowid), 0) FROM queries) WHERE id = 1`,
	} {
		if err := tx.Run(stmt); err != nil {
			return fmt.Errorf("store: rebuilding the question indexes: %w", err)
		}
	}
	return nil
}

// openStates are the states of a question waiting for the owner: those
// open_queries lists (migration 0520's trigger names them too).
var openStates = []string{"buffered", "escalated", "awaiting"}

// openState is the condition on a question (state) that it is in one of
// openStates.
var openState = "(state = '" + strings.Join(openStates, "' OR state = '") + "')"

// isOpenState reports whether open_queries lists questions in state.
func isOpenState(state string) bool { return slices.Contains(openStates, state) }

// openRows selects the rowids of the questions in state, an open state;
// its arguments are openRowsArgs(state).
const openRows = `SELECT qrow FROM open_queries WHERE state = ? AND qrow <= (` + queryIndexMarkSQL + `)
	UNION ALL SELECT rowid FROM queries WHERE rowid > (` + queryIndexMarkSQL + `) AND state = ?`

// openRowsArgs are openRows' arguments.
func openRowsArgs(state string) []any { return []any{state, state} }

// openQueries lists the questions in state, an open state, newest first:
// those after the mark by a walk of the table's tail, then the older ones
// through open_queries. query must read one snapshot (a read transaction).
func openQueries(query queryFunc, state string, limit int) ([]QueryRecord, error) {
	through, err := readMark(query, queryIndexMarkSQL, "the question indexes' mark")
	if err != nil {
		return nil, err
	}
	rows, err := query(`SELECT `+queryColumns+` FROM queries WHERE rowid > ? AND state = ? ORDER BY rowid DESC LIMIT ?`, through, state, limit)
	if err != nil {
		return nil, fmt.Errorf("store: listing %s questions: %w", state, err)
	}
	out, err := scanQueries(rows, nil)
	if err != nil || len(out) >= limit {
		return out, err
	}
	// CROSS JOIN keeps the index as the outer loop: it walks the state's
	// entries newest first and stops at the limit.
	rows, err = query(`SELECT `+queryColumnsOf("q")+` FROM open_queries o CROSS JOIN queries q ON q.rowid = o.qrow
		WHERE o.state = ? AND o.qrow <= ? AND q.state = ? ORDER BY o.qrow DESC LIMIT ?`, state, through, state, limit-len(out))
	if err != nil {
		return nil, fmt.Errorf("store: listing %s questions: %w", state, err)
	}
	return scanQueries(rows, out)
}
