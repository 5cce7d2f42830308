package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Pruning keeps the chain verifiable without the rows it removes:
//
//  1. the oldest rows (ts before the cut-off; never the newest row) are deleted;
//  2. a row in audit_checkpoints records the last removed row's seq and hash
//     (continues_from_seq, continues_from_hash), how many rows were removed
//     and their seq range; its own hash column is
//     hex(sha256(canonical JSON of the other columns except id, sorted keys));
//  3. an audit row with method "audit.checkpoint" and detail
//     {"continues_from","continues_from_hash","removed_count","removed_from","removed_to"}
//     is appended to the chain, so the checkpoint itself is hash-chained.
//
// VerifyAudit accepts a chain whose first row has seq > 1 only when a
// checkpoint with continues_from_seq = seq-1 and continues_from_hash = that
// row's prev_hash exists, its hash is intact, and the chain contains the
// matching audit.checkpoint row. Forging a checkpoint to hide deleted rows
// would need a new row inside the chain, which breaks it.

const checkpointMethod = "audit.checkpoint"

// AuditCheckpoint is one pruning of the audit log.
type AuditCheckpoint struct {
	ID                int64  `json:"-"`
	ContinuesFromHash string `json:"continues_from_hash"`
	ContinuesFromSeq  int64  `json:"continues_from_seq"`
	CreatedAt         string `json:"created_at"`
	RemovedCount      int64  `json:"removed_count"`
	RemovedFrom       int64  `json:"removed_from"`
	RemovedTo         int64  `json:"removed_to"`
	Hash              string `json:"-"`
}

// checkpointDetail is the detail of the chain's audit.checkpoint row.
type checkpointDetail struct {
	ContinuesFrom     int64  `json:"continues_from"`
	ContinuesFromHash string `json:"continues_from_hash"`
	RemovedCount      int64  `json:"removed_count"`
	RemovedFrom       int64  `json:"removed_from"`
	RemovedTo         int64  `json:"removed_to"`
	// Signature is the agent's over checkpointMessage: the start it
	// vouches for (audit_anchor_sign.go).
	Signature string `json:"signature,omitempty"`
}

func parseCheckpointDetail(raw json.RawMessage) (checkpointDetail, error) {
	var d checkpointDetail
	err := json.Unmarshal(raw, &d)
	return d, err
}

// computeHash is the checkpoint's hash: sha256 over the JSON of its fields
// with sorted keys (encoding/json emits struct fields in declaration order,
// which is sorted here).
func (c AuditCheckpoint) computeHash() string {
	b, _ := json.Marshal(c) // ints and hex strings always marshal
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// checkpointFor returns the newest checkpoint continuing from seq.
func (db *DB) checkpointFor(ctx context.Context, seq int64) (AuditCheckpoint, bool, error) {
	var c AuditCheckpoint
	err := db.rd.QueryRowContext(ctx, `SELECT id, continues_from_seq, continues_from_hash, removed_count,
		removed_from, removed_to, created_at, hash FROM audit_checkpoints
		WHERE continues_from_seq = ? ORDER BY id DESC LIMIT 1`, seq).
		Scan(&c.ID, &c.ContinuesFromSeq, &c.ContinuesFromHash, &c.RemovedCount, &c.RemovedFrom, &c.RemovedTo, &c.CreatedAt, &c.Hash)
	if isNoRows(err) {
		return c, false, nil
	}
	if err != nil {
		return c, false, fmt.Errorf("store: reading audit checkpoints: %w", err)
	}
	return c, true, nil
}

// PruneAudit deletes audit rows written before the cut-off (always keeping
// the newest row), records a checkpoint so the remaining chain still
// verifies, and returns how many rows it removed.
func (db *DB) PruneAudit(ctx context.Context, before time.Time) (removed int64, err error) {
	err = db.Write(ctx, func(tx *Tx) error {
		removed, err = tx.pruneAudit(before)
		return err
	})
	if err != nil {
		return 0, err
	}
	return removed, nil
}

func (tx *Tx) pruneAudit(before time.Time) (int64, error) {
	first, last, lastHash, err := tx.pruneRange(before)
	if err != nil || last == 0 {
		return 0, err
	}
	cp := AuditCheckpoint{
		ContinuesFromSeq: last, ContinuesFromHash: lastHash,
		RemovedCount: last - first + 1, RemovedFrom: first, RemovedTo: last,
		CreatedAt: formatTime(tx.Now()),
	}
	cp.Hash = cp.computeHash()
	if err := tx.Run(`DELETE FROM audit_log WHERE seq <= ?`, last); err != nil {
		return 0, fmt.Errorf("store: pruning the audit log: %w", err)
	}
	if err := tx.pruneAgentIndex(last); err != nil {
		return 0, err
	}
	if err := tx.Run(`INSERT INTO audit_checkpoints(continues_from_seq, continues_from_hash, removed_count,
		removed_from, removed_to, created_at, hash) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		cp.ContinuesFromSeq, cp.ContinuesFromHash, cp.RemovedCount, cp.RemovedFrom, cp.RemovedTo, cp.CreatedAt, cp.Hash); err != nil {
		return 0, fmt.Errorf("store: recording the audit checkpoint: %w", err)
	}
	sig, err := tx.anchorSignature(checkpointMessage(cp.ContinuesFromSeq, cp.ContinuesFromHash))
	if err != nil {
		return 0, err
	}
	_, err = tx.AppendAudit(systemAgent, checkpointMethod, "ok", checkpointDetail{
		ContinuesFrom: cp.ContinuesFromSeq, ContinuesFromHash: cp.ContinuesFromHash,
		RemovedCount: cp.RemovedCount, RemovedFrom: cp.RemovedFrom, RemovedTo: cp.RemovedTo, Signature: sig,
	})
	return cp.RemovedCount, err
}

// pruneRange finds the run of oldest rows written before the cut-off,
// stopping at the first newer row and never including the newest row. It
// returns last == 0 when there is nothing to prune.
func (tx *Tx) pruneRange(before time.Time) (first, last int64, lastHash string, err error) {
	rows, err := tx.Query(`SELECT seq, ts, hash FROM audit_log WHERE seq < ? ORDER BY seq`, tx.head.seq)
	if err != nil {
		return 0, 0, "", fmt.Errorf("store: scanning the audit log for pruning: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var ts, hash string
		if err := rows.Scan(&seq, &ts, &hash); err != nil {
			return 0, 0, "", fmt.Errorf("store: scanning the audit log for pruning: %w", err)
		}
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil || !t.Before(before) {
			break
		}
		if first == 0 {
			first = seq
		}
		last, lastHash = seq, hash
	}
	return first, last, lastHash, rows.Err()
}
