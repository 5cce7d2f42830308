package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
)

// ForgetReport says what ForgetAgent removed and rewrote.
type ForgetReport struct {
	Deleted       map[string]int64 `json:"deleted"`  // rows about the agent, by table
	Scrubbed      map[string]int64 `json:"scrubbed"` // other rows whose text named it, by table
	AuditRedacted int64            `json:"audit_redacted"`
	AnchorSeq     int64            `json:"anchor_seq"` // the agent.forgotten audit row
	TaskIDs       []string         `json:"task_ids"`   // deleted tasks (their output directories go too)
}

// subjectColumns name, per table, the column whose rows are about one agent
// and are deleted outright when it is forgotten. Approvals and task
// transitions go with their tasks (ON DELETE CASCADE).
var subjectColumns = []struct{ table, column string }{
	{"agent_registry", "agent_id"},
	{"trust_requests", "claimed_agent_id"},
	{"queries", "from_agent"},
	{"asks", "to_agent"},
	{"messages", "from_agent"},
	{"outbox", "to_agent"},
	{"approvals", "requester"},
	{"tasks", "requester"},
	// A coordination task's summary is the peer's own words (its
	// task_assign's description): kept with the name scrubbed, they
	// outlived the messages they came from.
	{"coord_tasks", "peer"},
}

// ForgetAgent removes agentID from the database in one transaction: rows
// about it are deleted, other rows that name it have the name replaced by
// Forgotten, and audit rows that name it are redacted in the
// chain-preserving way described in ops_redact.go, vouched for by an
// agent.forgotten row appended by actor. Deleted content is overwritten
// (secure_delete); call Compact afterwards to also drop older free pages
// and the WAL.
func (db *DB) ForgetAgent(ctx context.Context, agentID, actor string) (ForgetReport, error) {
	var rep ForgetReport
	err := db.Write(ctx, func(tx *Tx) error {
		rep = ForgetReport{Deleted: map[string]int64{}, Scrubbed: map[string]int64{}}
		restore, err := tx.secureDelete()
		if err != nil {
			return err
		}
		defer restore()
		return tx.forget(agentID, actor, &rep)
	})
	return rep, err
}

// secureDelete turns on zeroing of deleted content for this transaction
// and returns how to restore the previous setting.
func (tx *Tx) secureDelete() (func(), error) {
	var was int
	if err := tx.QueryRow(`PRAGMA secure_delete`).Scan(&was); err != nil {
		return nil, fmt.Errorf("store: reading secure_delete: %w", err)
	}
	if err := tx.Run(`PRAGMA secure_delete = 1`); err != nil {
		return nil, fmt.Errorf("store: enabling secure_delete: %w", err)
	}
	return func() { _, _ = tx.Exec(fmt.Sprintf(`PRAGMA secure_delete = %d`, was)) }, nil
}

func (tx *Tx) forget(id, actor string, rep *ForgetReport) error {
	var err error
	if rep.TaskIDs, err = tx.taskIDsOf(id); err != nil {
		return err
	}
	for _, s := range subjectColumns {
		res, err := tx.Exec(`DELETE FROM `+quoteIdent(s.table)+` WHERE `+quoteIdent(s.column)+` = ?`, id)
		if err != nil {
			return fmt.Errorf("store: forgetting %s in %s: %w", id, s.table, err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			rep.Deleted[s.table] = n
		}
	}
	tables, err := dataTables(tx.Query)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if t.name == "audit_log" {
			continue
		}
		if err := tx.scrubTable(t, id, rep); err != nil {
			return err
		}
	}
	entries, err := tx.redactAudit(id)
	if err != nil {
		return err
	}
	return tx.anchorRedactions(actor, entries, rep)
}

// taskIDsOf lists the tasks an agent requested.
func (tx *Tx) taskIDsOf(id string) ([]string, error) {
	rows, err := tx.Query(`SELECT id FROM tasks WHERE requester = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("store: listing tasks of %s: %w", id, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, err
		}
		ids = append(ids, t)
	}
	return ids, rows.Err()
}

// scrubTable replaces id, as a whole name, in every text column of the rows
// of t that name it. A rewrite that collides with a unique key replaces the
// other row (which then also named the forgotten agent).
func (tx *Tx) scrubTable(t dataTable, id string, rep *ForgetReport) error {
	where, args := t.mentionFilter(id)
	cols := ""
	for _, c := range t.textCols {
		cols += ", " + quoteIdent(c)
	}
	rows, err := tx.Query(`SELECT rowid`+cols+` FROM `+quoteIdent(t.name)+` WHERE `+where, args...)
	if err != nil {
		return fmt.Errorf("store: scanning %s: %w", t.name, err)
	}
	type change struct {
		rowid int64
		vals  []any
	}
	var changes []change
	for rows.Next() {
		vals := make([]sql.NullString, len(t.textCols))
		ptrs := []any{new(int64)}
		for i := range vals {
			ptrs = append(ptrs, &vals[i])
		}
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return fmt.Errorf("store: scanning %s: %w", t.name, err)
		}
		if out, changed := scrubValues(vals, id); changed {
			changes = append(changes, change{rowid: *ptrs[0].(*int64), vals: out})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	set := ""
	for i, c := range t.textCols {
		if i > 0 {
			set += ", "
		}
		set += quoteIdent(c) + " = ?"
	}
	for _, ch := range changes {
		if err := tx.Run(`UPDATE OR REPLACE `+quoteIdent(t.name)+` SET `+set+` WHERE rowid = ?`, append(ch.vals, ch.rowid)...); err != nil {
			return fmt.Errorf("store: scrubbing %s: %w", t.name, err)
		}
	}
	if len(changes) > 0 {
		rep.Scrubbed[t.name] = int64(len(changes))
	}
	return nil
}

// scrubValues replaces id in each value, keeping NULLs.
func scrubValues(vals []sql.NullString, id string) ([]any, bool) {
	out := make([]any, len(vals))
	changed := false
	for i, v := range vals {
		if !v.Valid {
			out[i] = nil
			continue
		}
		s, ok := replaceMentions(v.String, id, Forgotten)
		changed = changed || ok
		out[i] = s
	}
	return out, changed
}

// redactAudit rewrites the audit rows that name id and returns the
// redaction entries (not yet filed under an anchor).
func (tx *Tx) redactAudit(id string) ([]redaction, error) {
	low := lowerASCII(id)
	rows, err := tx.Query(`SELECT `+auditColumns+` FROM audit_log WHERE instr(lower(agent), ?) > 0
		OR instr(lower(method), ?) > 0 OR instr(lower(result), ?) > 0 OR instr(lower(detail), ?) > 0 ORDER BY seq`,
		low, low, low, low)
	if err != nil {
		return nil, fmt.Errorf("store: scanning the audit log: %w", err)
	}
	var rewritten []AuditRecord
	var tss, agents []string // each rewritten row's ts and agent as stored
	for rows.Next() {
		r, ts, err := scanAudit(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		if red, ok := redactRecord(r, id); ok {
			rewritten, tss, agents = append(rewritten, red), append(tss, ts), append(agents, r.Agent)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	entries := make([]redaction, 0, len(rewritten))
	for i, r := range rewritten {
		if err := tx.Run(`UPDATE audit_log SET agent = ?, method = ?, result = ?, detail = ? WHERE seq = ?`,
			r.Agent, r.Method, r.Result, string(r.Detail), r.Seq); err != nil {
			return nil, fmt.Errorf("store: redacting audit row %d: %w", r.Seq, err)
		}
		if err := tx.renameInAgentIndex(r.Seq, agents[i], r.Agent); err != nil {
			return nil, err
		}
		entries = append(entries, redaction{Seq: r.Seq, OriginalHash: r.Hash,
			RedactedHash: auditHash(r.PrevHash, r.Seq, tss[i], r.Agent, r.Method, r.Result, string(r.Detail))})
	}
	return entries, nil
}

// redactRecord replaces id in a row's text fields; the detail stays
// canonical JSON.
func redactRecord(r AuditRecord, id string) (AuditRecord, bool) {
	var a, m, res, d bool
	r.Agent, a = replaceMentions(r.Agent, id, Forgotten)
	r.Method, m = replaceMentions(r.Method, id, Forgotten)
	r.Result, res = replaceMentions(r.Result, id, Forgotten)
	detail, d := replaceMentions(string(r.Detail), id, Forgotten)
	if d {
		if c, err := canonicalDetail(json.RawMessage(detail)); err == nil {
			detail = c
		}
		r.Detail = json.RawMessage(detail)
	}
	return r, a || m || res || d
}

// anchorRedactions appends the agent.forgotten row and files the
// redaction entries under it.
func (tx *Tx) anchorRedactions(actor string, entries []redaction, rep *ForgetReport) error {
	d := forgetDetail{RedactedRows: int64(len(entries)), RedactionsDigest: redactionDigest(entries)}
	for _, n := range rep.Deleted {
		d.DeletedRows += n
	}
	for _, n := range rep.Scrubbed {
		d.ScrubbedRows += n
	}
	sig, err := tx.anchorSignature(forgetMessage(d.RedactionsDigest))
	if err != nil {
		return err
	}
	d.Signature = sig
	rec, err := tx.AppendAudit(actor, forgottenMethod, "ok", d)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := tx.Run(`INSERT INTO audit_redactions(seq, anchor_seq, original_hash, redacted_hash) VALUES (?, ?, ?, ?)`,
			e.Seq, rec.Seq, e.OriginalHash, e.RedactedHash); err != nil {
			return fmt.Errorf("store: recording the redaction of audit row %d: %w", e.Seq, err)
		}
	}
	rep.AuditRedacted, rep.AnchorSeq = int64(len(entries)), rec.Seq
	return nil
}
