package store

import "fmt"

// The audit log's index by agent is kept in arrears (migration 0500). An
// ordinary index on audit_log(agent, seq) put one more B-tree page into
// every group commit on the aoi.query path, where the writer is the one
// serial step of a request (about 2 of the 20-odd µs of CPU a query's
// write costs, BenchmarkQueryWriteParallel). Instead, audit_agent_seqs
// holds (agent, seq) for every row up to a mark (audit_agent_seqs_through),
// and the writer adds the rows appended since, in one statement, once
// agentIndexRows of them have gathered: a few leaf pages per pass instead
// of one per commit.
//
// A listing by agent (auditOfAgent) reads the rows after the mark by a
// walk of the log's tail, newest first, and the rest through the index.
// The mark and the index move in one transaction, so a reader that takes
// both from one snapshot sees every row exactly once.

// agentIndexRows is how many audit rows may wait for the agent index: the
// most a listing by agent walks without it. A pass over 512 rows takes
// the writer well under a millisecond.
const agentIndexRows = 512

// agentIndexMarkSQL reads the agent index's mark: every audit row up to
// it has its entry.
const agentIndexMarkSQL = `SELECT through FROM audit_agent_seqs_through WHERE id = 1`

// loadAgentIndexMark reads the agent index's mark for the writer. An
// unreadable mark reads as 0: the next pass reads the table's own.
func (tx *Tx) loadAgentIndexMark() {
	var through int64
	_ = tx.conn.QueryRowContext(writerCtx, agentIndexMarkSQL).Scan(&through)
	tx.agentsIndexed = through
}

// withAgentIndex puts the pass that brings the agent index up to the
// audit head first in batch when it is due: it commits with the callers'
// writes, not in a commit of its own. The pass is not tried again for
// another agentIndexRows rows, whether it succeeds or not (failed, the
// listings stay right: the tail they walk only grows).
func (tx *Tx) withAgentIndex(batch []*writeReq) []*writeReq {
	if tx.head.seq-tx.agentsIndexed < agentIndexRows {
		return batch
	}
	tx.agentsIndexed = tx.head.seq
	return firstInBatch(batch, (*Tx).indexAuditAgents)
}

// firstInBatch puts the writer's own pass fn before the callers' writes
// in batch: it commits with them, not in a commit of its own.
func firstInBatch(batch []*writeReq, fn func(*Tx) error) []*writeReq {
	pass := &writeReq{ctx: writerCtx, fn: fn, pass: true, done: make(chan error, 1)}
	batch = append(batch, nil)
	copy(batch[1:], batch)
	batch[0] = pass
	return batch
}

// indexAuditAgents adds every audit row after the index's mark, up to the
// head, and moves the mark. Run again (a later write of its batch failed
// and the batch restarted), it finds its rows present and adds nothing.
func (tx *Tx) indexAuditAgents() error {
	var through int64
	if err := tx.QueryRow(agentIndexMarkSQL).Scan(&through); err != nil {
		return fmt.Errorf("store: reading the audit agent index's mark: %w", err)
	}
	head := tx.head.seq
	if head <= through {
		return nil
	}
	// Sorted by the index's key, the rows land in a few leaf pages in
	// order instead of one descent each at random.
	if err := tx.Run(`INSERT OR IGNORE INTO audit_agent_seqs(agent, seq)
		SELECT agent, seq FROM audit_log WHERE seq > ? AND seq <= ? ORDER BY agent, seq`, through, head); err != nil {
		return fmt.Errorf("store: indexing audit rows %d–%d by agent: %w", through+1, head, err)
	}
	if err := tx.Run(`UPDATE audit_agent_seqs_through SET through = ? WHERE id = 1`, head); err != nil {
		return fmt.Errorf("store: moving the audit agent index's mark: %w", err)
	}
	return nil
}

// auditOfAgent lists q.Agent's audit rows that match q, newest first:
// those after the agent index's mark by a walk of the log's tail, then
// the older ones through the index. query must read one snapshot (a read
// transaction, or the writer's).
func auditOfAgent(query queryFunc, q AuditQuery) ([]AuditRecord, error) {
	limit := clampLimit(q.Limit, 100, 1000)
	through, err := agentIndexMark(query)
	if err != nil {
		return nil, err
	}

	where, args := auditWhere(q, "")
	where = append([]string{"seq > ?", "agent = ?"}, where...)
	rows, err := query(`SELECT `+auditColumns+` FROM audit_log`+whereClause(where)+` ORDER BY seq DESC LIMIT ?`,
		append(append([]any{through, q.Agent}, args...), limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: listing audit rows of %s: %w", q.Agent, err)
	}
	out, err := scanAuditRows(rows, nil)
	if err != nil || len(out) >= limit {
		return out, err
	}

	// CROSS JOIN keeps the index as the outer loop: it walks the agent's
	// entries newest first and stops at the limit, whatever the planner
	// would guess about the two tables' sizes.
	where, args = auditWhere(q, "a.")
	where = append([]string{"s.agent = ?", "s.seq <= ?", "a.agent = ?"}, where...)
	rows, err = query(`SELECT `+auditColumnsOf("a")+` FROM audit_agent_seqs s CROSS JOIN audit_log a ON a.seq = s.seq`+
		whereClause(where)+` ORDER BY s.seq DESC LIMIT ?`,
		append(append([]any{q.Agent, through, q.Agent}, args...), limit-len(out))...)
	if err != nil {
		return nil, fmt.Errorf("store: listing audit rows of %s: %w", q.Agent, err)
	}
	return scanAuditRows(rows, out)
}

// agentIndexMark reads the agent index's mark through query (a reader's
// snapshot).
func agentIndexMark(query queryFunc) (int64, error) {
	return readMark(query, agentIndexMarkSQL, "the audit agent index's mark")
}

// readMark reads an index's mark (markSQL: one row, one number) through
// query. No row reads as a mark of 0: every row is in the tail.
func readMark(query queryFunc, markSQL, what string) (int64, error) {
	rows, err := query(markSQL)
	if err != nil {
		return 0, fmt.Errorf("store: reading %s: %w", what, err)
	}
	defer rows.Close()
	var through int64
	if !rows.Next() {
		err = rows.Err()
	} else {
		err = rows.Scan(&through)
	}
	if err != nil {
		return 0, fmt.Errorf("store: reading %s: %w", what, err)
	}
	return through, nil
}

// auditColumnsOf is auditColumns of the table aliased alias.
func auditColumnsOf(alias string) string {
	return alias + ".seq, " + alias + ".ts, " + alias + ".agent, " + alias + ".method, " + alias + ".result, " +
		alias + ".detail, " + alias + ".prev_hash, " + alias + ".hash"
}

// renameInAgentIndex follows a rewritten row's agent (forget).
func (tx *Tx) renameInAgentIndex(seq int64, from, to string) error {
	if from == to {
		return nil
	}
	if err := tx.Run(`UPDATE audit_agent_seqs SET agent = ? WHERE agent = ? AND seq = ?`, to, from, seq); err != nil {
		return fmt.Errorf("store: renaming audit row %d in the agent index: %w", seq, err)
	}
	return nil
}

// pruneAgentIndex drops the index entries of pruned rows.
func (tx *Tx) pruneAgentIndex(last int64) error {
	if err := tx.Run(`DELETE FROM audit_agent_seqs WHERE seq <= ?`, last); err != nil {
		return fmt.Errorf("store: pruning the audit agent index: %w", err)
	}
	return nil
}
