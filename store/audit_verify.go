package store

import (
	"context"
	"fmt"
)

// AuditVerification is the outcome of walking the audit chain.
type AuditVerification struct {
	OK       bool   `json:"ok"`
	Entries  int64  `json:"entries"`
	FirstBad int64  `json:"first_bad_seq,omitempty"`
	Problem  string `json:"problem,omitempty"`
	// SealedThrough is the last row a seal signed with this agent's key
	// covers (0: none); the Unsealed rows after it (the seal's own row
	// aside) rest on the chain alone.
	SealedThrough int64 `json:"sealed_through,omitempty"`
	Unsealed      int64 `json:"unsealed_rows"`
	// Warning says what the walk could not check though the chain
	// verifies: the log holds seals but audit-seal.json, the newest
	// seal's copy outside the database, is missing ("": nothing).
	Warning string `json:"warning,omitempty"`
}

// VerifyAudit walks the whole chain in seq order, streaming, and reports the
// first row that was edited, inserted or follows a deletion. A chain that
// starts after seq 1 is accepted only when an audit checkpoint (written by
// PruneAudit) vouches for its first row and the chain itself records that
// checkpoint. Deleting the newest rows cannot be detected from the chain
// alone: the anchor file of the newest seal catches it (audit_seal.go).
func (db *DB) VerifyAudit(ctx context.Context) (AuditVerification, error) {
	rows, err := db.rd.QueryContext(ctx, `SELECT `+auditColumns+` FROM audit_log ORDER BY seq`)
	if err != nil {
		return AuditVerification{}, fmt.Errorf("store: reading the audit log: %w", err)
	}
	defer rows.Close()
	v := chainVerifier{db: db, ctx: ctx}
	for rows.Next() {
		r, ts, err := scanAudit(rows)
		if err != nil {
			return AuditVerification{}, err
		}
		if problem, err := v.check(r, ts); err != nil || problem != "" {
			return v.bad(r.Seq, problem), err
		}
	}
	if err := rows.Err(); err != nil {
		return AuditVerification{}, fmt.Errorf("store: reading the audit log: %w", err)
	}
	if problem := v.finish(); problem != "" {
		return v.bad(v.firstSeq, problem), nil
	}
	if seq, problem, err := v.checkRedactions(); err != nil || problem != "" {
		return v.bad(seq, problem), err
	}
	seq, problem, since, err := db.checkAnchor(ctx, v.firstSeq, v.prev.seq)
	if err != nil || problem != "" {
		return v.bad(seq, problem), err
	}
	v.noteSignedSince(since)
	if seq, problem := v.checkAnchorSignatures(); problem != "" {
		return v.bad(seq, problem), nil
	}
	return AuditVerification{OK: true, Entries: v.n, SealedThrough: v.sealedThrough, Unsealed: v.unsealed,
		Warning: db.anchorMissing(v.seals)}, nil
}

// chainVerifier holds the state of one walk.
type chainVerifier struct {
	db       *DB
	ctx      context.Context
	n        int64
	prev     auditHead
	firstSeq int64
	// checkpoint that vouches for a pruned start, and whether the chain's
	// own audit.checkpoint row confirmed it.
	cp        *AuditCheckpoint
	confirmed bool
	cpRow     int64          // the audit.checkpoint row that confirmed cp
	red       redactionState // rows rewritten by aoi forget
	// sealedThrough is the newest row a verified seal covers; unsealed
	// counts the rows after that seal.
	sealedThrough, unsealed int64
	// seals counts the audit.seal rows met, checked against a key or not.
	seals int64
	// anchors are the agent.forgotten and audit.checkpoint rows met;
	// from signedSince on (a seal says so), each must be signed
	// (audit_anchor_sign.go).
	anchors     []anchorSeen
	signedSince int64
}

func (v *chainVerifier) bad(seq int64, problem string) AuditVerification {
	return AuditVerification{OK: false, Entries: v.n, FirstBad: seq, Problem: problem}
}

// check verifies one row against its own hash and its predecessor.
func (v *chainVerifier) check(r AuditRecord, ts string) (string, error) {
	if r.Seq < 1 {
		return fmt.Sprintf("row %d: sequence numbers start at 1 — the row was inserted by hand", r.Seq), nil
	}
	if want := auditHash(r.PrevHash, r.Seq, ts, r.Agent, r.Method, r.Result, string(r.Detail)); want != r.Hash {
		// A row rewritten by aoi forget is accepted only as recorded (ops_redact.go).
		if ok, err := v.acceptRedacted(r, want); err != nil || !ok {
			return fmt.Sprintf("row %d: hash does not match its content — the row was edited after it was written", r.Seq), err
		}
	} else {
		v.noteForgotten(r)
	}
	v.n++
	v.unsealed++
	if v.n == 1 {
		v.firstSeq = r.Seq
		return v.checkStart(r)
	}
	defer func() { v.prev = auditHead{seq: r.Seq, hash: r.Hash} }()
	if r.Seq != v.prev.seq+1 {
		return fmt.Sprintf("row %d: %s missing before it — deleted from the log", r.Seq, rowSpan(v.prev.seq+1, r.Seq-1)), nil
	}
	if r.PrevHash != v.prev.hash {
		return fmt.Sprintf("row %d: its prev_hash does not match row %d's hash — row %d was replaced or the chain was rewritten", r.Seq, v.prev.seq, v.prev.seq), nil
	}
	v.noteCheckpoint(r)
	return v.checkSeal(r), nil
}

// checkStart verifies the first row: genesis, or a vouched-for pruned start.
func (v *chainVerifier) checkStart(r AuditRecord) (string, error) {
	v.prev = auditHead{seq: r.Seq, hash: r.Hash}
	if r.Seq == 1 {
		if r.PrevHash != GenesisHash {
			return "row 1: prev_hash is not the genesis value — the start of the log was rewritten", nil
		}
		return "", nil
	}
	cp, ok, err := v.db.checkpointFor(v.ctx, r.Seq-1)
	if err != nil {
		return "", err
	}
	if !ok {
		return fmt.Sprintf("row %d: %s missing before it and no pruning checkpoint accounts for them — deleted from the log", r.Seq, rowSpan(1, r.Seq-1)), nil
	}
	if cp.Hash != cp.computeHash() {
		return fmt.Sprintf("row %d: the pruning checkpoint that vouches for the rows before it was edited", r.Seq), nil
	}
	if cp.ContinuesFromHash != r.PrevHash {
		return fmt.Sprintf("row %d: its prev_hash does not match the pruning checkpoint — the row was replaced", r.Seq), nil
	}
	v.cp = &cp
	v.noteCheckpoint(r)
	return "", nil
}

// noteCheckpoint records an audit.checkpoint row, and marks the start
// checkpoint confirmed when it is the row PruneAudit wrote for it.
func (v *chainVerifier) noteCheckpoint(r AuditRecord) {
	if r.Method != checkpointMethod || r.Agent != systemAgent {
		return
	}
	d, err := parseCheckpointDetail(r.Detail)
	if err != nil {
		return
	}
	v.anchors = append(v.anchors, anchorSeen{seq: r.Seq, method: checkpointMethod,
		signed: v.signedBy(d.Signature, checkpointMessage(d.ContinuesFrom, d.ContinuesFromHash))})
	if v.cp != nil && !v.confirmed && d.ContinuesFrom == v.cp.ContinuesFromSeq && d.ContinuesFromHash == v.cp.ContinuesFromHash {
		v.confirmed, v.cpRow = true, r.Seq
	}
}

// finish reports problems that show only at the end of the walk.
func (v *chainVerifier) finish() string {
	if v.cp != nil && !v.confirmed {
		return fmt.Sprintf("row %d: the pruning checkpoint before it is not recorded in the chain — it was added by hand to hide deleted rows", v.firstSeq)
	}
	if v.cp != nil && v.db.key() != nil && v.sealedThrough < v.cpRow {
		// A pruning is sealed at once: a pruned start no seal of this
		// agent follows was made without its key (the re-check rebuilt a
		// whole log that way, its seal file deleted).
		return fmt.Sprintf("row %d: the log's start was pruned, but no seal of this agent follows the pruning — the log was rebuilt by hand", v.cpRow)
	}
	return ""
}

// rowSpan names one row or a range of rows.
func rowSpan(from, to int64) string {
	if from == to {
		return fmt.Sprintf("row %d is", from)
	}
	return fmt.Sprintf("rows %d–%d are", from, to)
}
