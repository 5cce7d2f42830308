package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
)

// Redacting audit rows without breaking the chain (aoi forget).
//
// The chain hashes each row's content, so rewriting a row to remove a name
// would make it fail verification. Instead a redaction:
//
//  1. rewrites the row's agent, method, result and detail, replacing the
//     forgotten id by "[forgotten]", and keeps the row's hash column — the
//     hash of the original content, which the next row's prev_hash links to;
//  2. records (seq, original_hash, redacted_hash) in audit_redactions, where
//     redacted_hash is the chain hash of the rewritten content computed the
//     same way (sha256(prev_hash || canonical JSON));
//  3. appends an agent.forgotten row to the chain whose detail carries
//     redactions_digest = hex(sha256 of "seq original_hash redacted_hash\n"
//     for every entry of the batch, in seq order), and files the batch's
//     entries under that row's seq (anchor_seq).
//
// VerifyAudit accepts a row whose content does not match its hash only when
// the newest redaction entry for it has its hash as original_hash and the
// row's current content hashes to redacted_hash, and the anchor row is in
// the chain, verified by its own content, with a digest that matches every
// entry filed under it. Editing a redacted row, or forging or editing a
// redaction entry, therefore still fails — the latter because the anchor's
// digest no longer matches and changing the anchor breaks the chain.

const (
	forgottenMethod = "agent.forgotten"
	// Forgotten is what a forgotten agent id is replaced with.
	Forgotten = "[forgotten]"
)

// redaction is one rewritten audit row.
type redaction struct {
	Seq          int64
	OriginalHash string
	RedactedHash string
}

// redactionDigest vouches for a batch of redactions.
func redactionDigest(entries []redaction) string {
	sorted := append([]redaction(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Seq < sorted[j].Seq })
	h := sha256.New()
	for _, e := range sorted {
		fmt.Fprintf(h, "%d %s %s\n", e.Seq, e.OriginalHash, e.RedactedHash)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// forgetDetail is the detail of an agent.forgotten row. It never names the
// forgotten agent.
type forgetDetail struct {
	DeletedRows      int64  `json:"deleted_rows"`
	RedactedRows     int64  `json:"redacted_rows"`
	RedactionsDigest string `json:"redactions_digest"`
	ScrubbedRows     int64  `json:"scrubbed_rows"`
	// Signature is the agent's over forgetMessage: the digest it vouches
	// for (audit_anchor_sign.go).
	Signature string `json:"signature,omitempty"`
}

// redactionState is the verifier's bookkeeping for redacted rows.
type redactionState struct {
	anchors map[int64]string // agent.forgotten rows seen: seq → digest
	needed  map[int64]int64  // anchor seq → first redacted row relying on it
}

// noteForgotten remembers an agent.forgotten row whose own content
// verified. Only the owner's and the agent's own rows are anchors: the log
// records whatever method a peer calls, under the peer's name.
func (v *chainVerifier) noteForgotten(r AuditRecord) {
	if r.Method != forgottenMethod || (r.Agent != "owner" && r.Agent != systemAgent) {
		return
	}
	var d forgetDetail
	if json.Unmarshal(r.Detail, &d) != nil {
		return
	}
	v.anchors = append(v.anchors, anchorSeen{seq: r.Seq, method: forgottenMethod, signed: v.signedBy(d.Signature, forgetMessage(d.RedactionsDigest))})
	if v.red.anchors == nil {
		v.red.anchors = map[int64]string{}
	}
	v.red.anchors[r.Seq] = d.RedactionsDigest
}

// acceptRedacted reports whether a row whose content does not match its
// hash (want is the hash of its current content) was rewritten by a
// recorded redaction.
func (v *chainVerifier) acceptRedacted(r AuditRecord, want string) (bool, error) {
	var anchor int64
	var orig, redacted string
	err := v.db.rd.QueryRowContext(v.ctx, `SELECT anchor_seq, original_hash, redacted_hash FROM audit_redactions
		WHERE seq = ? ORDER BY anchor_seq DESC LIMIT 1`, r.Seq).Scan(&anchor, &orig, &redacted)
	if isNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: reading audit redactions: %w", err)
	}
	if orig != r.Hash || redacted != want || anchor <= r.Seq {
		return false, nil
	}
	if v.red.needed == nil {
		v.red.needed = map[int64]int64{}
	}
	if _, ok := v.red.needed[anchor]; !ok {
		v.red.needed[anchor] = r.Seq
	}
	return true, nil
}

// checkRedactions runs after the walk: every redaction relied on must be
// vouched for by its agent.forgotten row. It returns the first redacted row
// that is not, and why.
func (v *chainVerifier) checkRedactions() (int64, string, error) {
	anchors := make([]int64, 0, len(v.red.needed))
	for a := range v.red.needed {
		anchors = append(anchors, a)
	}
	sort.Slice(anchors, func(i, j int) bool { return v.red.needed[anchors[i]] < v.red.needed[anchors[j]] })
	for _, a := range anchors {
		row := v.red.needed[a]
		digest, seen := v.red.anchors[a]
		if !seen {
			return row, fmt.Sprintf("row %d: its content was rewritten and no agent.forgotten row in the chain (row %d) vouches for it — the row was edited after it was written", row, a), nil
		}
		entries, err := v.db.redactionsFiled(v, a)
		if err != nil {
			return 0, "", err
		}
		if redactionDigest(entries) != digest {
			return row, fmt.Sprintf("row %d: the redaction records of agent.forgotten row %d do not match its digest — they were edited after the fact", row, a), nil
		}
	}
	return 0, "", nil
}

// redactionsFiled reads the redaction entries filed under an anchor row.
func (db *DB) redactionsFiled(v *chainVerifier, anchor int64) ([]redaction, error) {
	rows, err := db.rd.QueryContext(v.ctx, `SELECT seq, original_hash, redacted_hash FROM audit_redactions
		WHERE anchor_seq = ? ORDER BY seq`, anchor)
	if err != nil {
		return nil, fmt.Errorf("store: reading audit redactions: %w", err)
	}
	defer rows.Close()
	var out []redaction
	for rows.Next() {
		var e redaction
		if err := rows.Scan(&e.Seq, &e.OriginalHash, &e.RedactedHash); err != nil {
			return nil, fmt.Errorf("store: reading audit redactions: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}
