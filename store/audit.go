package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// AuditRecord is one row of the hash-chained audit log.
type AuditRecord struct {
	Seq      int64           `json:"seq"`
	Time     time.Time       `json:"ts"`
	Agent    string          `json:"agent"`
	Method   string          `json:"method"`
	Result   string          `json:"result"`
	Detail   json.RawMessage `json:"detail"`
	PrevHash string          `json:"prev_hash"`
	Hash     string          `json:"hash"`
}

// AuditQuery narrows AuditList. Empty fields match everything; each word
// of Text is a case-insensitive substring of agent, method, result or detail
// (a word key=value also matches the detail's JSON "key":"value…"). BeforeSeq
// (exclusive) pages backwards; Limit defaults to 100 and is capped at 1000.
type AuditQuery struct {
	Agent     string
	Method    string
	Result    string
	Text      string
	BeforeSeq int64
	Limit     int
}

const auditColumns = `seq, ts, agent, method, result, detail, prev_hash, hash`

// AppendAudit appends a row to the audit chain in the current transaction.
// detail is any JSON-encodable value (or json.RawMessage); it is stored in
// canonical form. If the surrounding write function fails, the row and the
// chain head are rolled back with it; the returned record is final once the
// DB.Write that ran this returns nil.
func (tx *Tx) AppendAudit(agent, method, result string, detail any) (AuditRecord, error) {
	d, err := canonicalDetail(detail)
	if err != nil {
		return AuditRecord{}, err
	}
	now := tx.Now().UTC()
	rec := AuditRecord{
		Seq:      tx.head.seq + 1,
		Time:     now,
		Agent:    strings.ToValidUTF8(agent, "\uFFFD"),
		Method:   strings.ToValidUTF8(method, "\uFFFD"),
		Result:   strings.ToValidUTF8(result, "\uFFFD"),
		Detail:   json.RawMessage(d),
		PrevHash: tx.head.hash,
	}
	ts := now.Format(time.RFC3339Nano)
	rec.Hash = auditHash(rec.PrevHash, rec.Seq, ts, rec.Agent, rec.Method, rec.Result, d)
	if err := tx.Run(`INSERT INTO audit_log(`+auditColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		rec.Seq, ts, rec.Agent, rec.Method, rec.Result, d, rec.PrevHash, rec.Hash); err != nil {
		return AuditRecord{}, fmt.Errorf("store: appending audit row %d: %w", rec.Seq, err)
	}
	tx.head = auditHead{seq: rec.Seq, hash: rec.Hash}
	return rec, nil
}

// loadAuditHead reads the end of the chain at open.
func (db *DB) loadAuditHead(ctx context.Context) (auditHead, error) {
	h := auditHead{hash: GenesisHash}
	err := db.wr.QueryRowContext(ctx, `SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1`).Scan(&h.seq, &h.hash)
	if err != nil && !isNoRows(err) {
		return h, fmt.Errorf("open database %s: reading the audit chain head: %w", db.path, err)
	}
	return h, nil
}

// AuditList returns audit rows matching q, newest first. A listing by
// agent goes through the agent index (auditOfAgent); any other walks the
// log from its newest row.
func (db *DB) AuditList(ctx context.Context, q AuditQuery) ([]AuditRecord, error) {
	if q.Agent != "" {
		tx, err := db.rd.BeginTx(ctx, nil) // one snapshot for the index's mark and both reads
		if err != nil {
			return nil, fmt.Errorf("store: listing audit rows: %w", err)
		}
		defer tx.Rollback()
		return auditOfAgent(func(query string, args ...any) (*sql.Rows, error) {
			return tx.QueryContext(ctx, query, args...)
		}, q)
	}
	where, args := auditWhere(q, "")
	query := `SELECT ` + auditColumns + ` FROM audit_log` + whereClause(where) + ` ORDER BY seq DESC LIMIT ?`
	rows, err := db.rd.QueryContext(ctx, query, append(args, clampLimit(q.Limit, 100, 1000))...)
	if err != nil {
		return nil, fmt.Errorf("store: listing audit rows: %w", err)
	}
	return scanAuditRows(rows, nil)
}

// auditWhere is q's conditions other than the agent, on the audit_log
// columns named with prefix ("" or a table alias and a dot).
func auditWhere(q AuditQuery, prefix string) (where []string, args []any) {
	col := func(name string) string { return prefix + name }
	add := func(cond string, a ...any) {
		where = append(where, cond)
		args = append(args, a...)
	}
	if q.Method != "" {
		add(col("method")+" = ?", q.Method)
	}
	if q.Result != "" {
		add(col("result")+" = ?", q.Result)
	}
	if q.BeforeSeq > 0 {
		add(col("seq")+" < ?", q.BeforeSeq)
	}
	like := func(c string) string { return col(c) + ` LIKE ? ESCAPE '\'` }
	anyText := "(" + like("agent") + " OR " + like("method") + " OR " + like("result") + " OR " + like("detail")
	for _, w := range strings.Fields(q.Text) { // every word must match somewhere in the row
		p := "%" + escapeLike(w) + "%"
		if k, v, ok := strings.Cut(w, "="); ok && k != "" {
			// The interface shows a detail as key=value (decision=ESCALATE):
			// such a word also matches the JSON it was read from.
			str, bare := `%"`+escapeLike(k)+`":"`+escapeLike(v)+`%`, `%"`+escapeLike(k)+`":`+escapeLike(v)+`%`
			add(anyText+" OR "+like("detail")+" OR "+like("detail")+")", p, p, p, p, str, bare)
			continue
		}
		add(anyText+")", p, p, p, p)
	}
	return where, args
}

// whereClause joins conditions with AND after a WHERE, or is empty.
func whereClause(where []string) string {
	if len(where) == 0 {
		return ""
	}
	return ` WHERE ` + strings.Join(where, " AND ")
}

// scanAuditRows reads every row into out and closes rows.
func scanAuditRows(rows *sql.Rows, out []AuditRecord) ([]AuditRecord, error) {
	defer rows.Close()
	for rows.Next() {
		r, _, err := scanAudit(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// AuditCount returns how many rows the audit log holds.
func (db *DB) AuditCount(ctx context.Context) (int64, error) {
	var n int64
	if err := db.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: counting audit rows: %w", err)
	}
	return n, nil
}

// scanAudit reads one row; it also returns the ts column verbatim, which is
// what the hash covers.
func scanAudit(rows *sql.Rows) (AuditRecord, string, error) {
	var r AuditRecord
	var ts, detail string
	if err := rows.Scan(&r.Seq, &ts, &r.Agent, &r.Method, &r.Result, &detail, &r.PrevHash, &r.Hash); err != nil {
		return r, "", fmt.Errorf("store: reading an audit row: %w", err)
	}
	r.Detail = json.RawMessage(detail)
	// A ts that does not parse is left zero here; VerifyAudit reports it.
	r.Time, _ = time.Parse(time.RFC3339Nano, ts)
	return r, ts, nil
}

// escapeLike escapes LIKE's wildcards so user text matches literally.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// AuditHeadSeq is the sequence number of the newest committed audit row
// (0 for an empty log). It reads committed data, so a front end that sees
// it grow can list the new rows.
func (db *DB) AuditHeadSeq(ctx context.Context) (int64, error) {
	var seq int64
	if err := db.rd.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM audit_log`).Scan(&seq); err != nil {
		return 0, fmt.Errorf("store: reading the audit head: %w", err)
	}
	return seq, nil
}

// AuditCallsOn counts, per agent, the audit rows of day's UTC date that
// isCall accepts (by method and result) among rows whose detail has a
// "latency_ms" (the peer server's rows of calls). It walks the log from
// its newest row back and stops at the first row of an earlier date, so
// it reads that day's rows only (the peer server seeds each peer's daily
// budget with today's count at start: a restart does not renew it).
func (db *DB) AuditCallsOn(ctx context.Context, day time.Time, isCall func(method, result string) bool) (map[string]int, error) {
	date := day.UTC().Format(time.DateOnly)
	rows, err := db.rd.QueryContext(ctx, `SELECT agent, method, result, substr(ts, 1, 10),
		instr(detail, '"latency_ms":') > 0 FROM audit_log ORDER BY seq DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: counting today's calls: %w", err)
	}
	defer rows.Close()
	counts := map[string]int{}
	for rows.Next() {
		var agent, method, result, rowDate string
		var call bool
		if err := rows.Scan(&agent, &method, &result, &rowDate, &call); err != nil {
			return nil, fmt.Errorf("store: counting today's calls: %w", err)
		}
		if rowDate < date {
			break
		}
		if rowDate == date && call && isCall(method, result) {
			counts[agent]++
		}
	}
	return counts, rows.Err()
}
