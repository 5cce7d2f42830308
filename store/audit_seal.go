package store

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
)

// Sealing: a hash chain alone can be rewritten whole by anyone who can
// write the file (change a row, recompute every hash after it). So the
// agent seals it with its identity key: an audit.seal row carries an
// ed25519 signature over the seq and hash of the row before it. Rewriting
// any row before a seal changes that seal's prev_hash, and a new signature
// needs the key. A pruning is sealed at once (ops), so its checkpoint is
// signed as the design asks. Rows after the last seal are protected by the
// chain alone until the next seal; deleting the newest rows, seals
// included, still cannot be told from the file alone.

const sealMethod = "audit.seal"

// AuditKey signs seals and checks them: the agent's identity key.
type AuditKey interface {
	Sign(msg []byte) ([]byte, error)
	Verify(msg, sig []byte) bool
}

// SetAuditKey gives the store the key SealAudit signs with and VerifyAudit
// checks seals against. Without one, nothing is sealed and seals are
// checked only against the chain.
func (db *DB) SetAuditKey(k AuditKey) { db.auditKey.Store(&k) }

func (db *DB) key() AuditKey {
	if k := db.auditKey.Load(); k != nil {
		return *k
	}
	return nil
}

// isSeal tells a seal from a row that only carries its method name: the
// audit log records the method a caller sent, whatever it is, so a peer
// calling "audit.seal" leaves a row with that method under its own name.
// Only the agent's own ("system") rows are seals and checkpoints.
func isSeal(agent, method string) bool { return agent == systemAgent && method == sealMethod }

// systemAgent is the agent name of rows the store writes itself.
const systemAgent = "system"

// sealDetail is an audit.seal row's detail.
type sealDetail struct {
	Seq       int64  `json:"seq"`
	Hash      string `json:"hash"`
	Signature string `json:"signature"`
}

// sealMessage is what a seal signs.
func sealMessage(seq int64, hash string) []byte {
	return []byte("aoi audit seal\n" + strconv.FormatInt(seq, 10) + "\n" + hash)
}

// SealAudit appends a signed seal of the chain's head. It does nothing
// (false) without a key, on an empty log, or when the head is a seal.
func (db *DB) SealAudit(ctx context.Context) (bool, error) {
	k := db.key()
	if k == nil {
		return false, nil
	}
	var sealed bool
	err := db.Write(ctx, func(tx *Tx) error {
		sealed = false
		if tx.head.seq == 0 {
			return nil
		}
		var agent, method string
		if err := tx.QueryRow(`SELECT agent, method FROM audit_log WHERE seq = ?`, tx.head.seq).Scan(&agent, &method); err != nil {
			return fmt.Errorf("store: reading the audit head: %w", err)
		}
		if isSeal(agent, method) {
			return nil
		}
		sig, err := k.Sign(sealMessage(tx.head.seq, tx.head.hash))
		if err != nil {
			return fmt.Errorf("store: signing the audit seal: %w", err)
		}
		d := sealDetail{Seq: tx.head.seq, Hash: tx.head.hash, Signature: hex.EncodeToString(sig)}
		if _, err := tx.AppendAudit(systemAgent, sealMethod, "ok", d); err != nil {
			return err
		}
		sealed = true
		return nil
	})
	return sealed && err == nil, err
}

// checkSeal verifies an audit.seal row: it must name the row before it,
// and its signature must be this agent's.
func (v *chainVerifier) checkSeal(r AuditRecord) string {
	if !isSeal(r.Agent, r.Method) {
		return ""
	}
	var d sealDetail
	if err := json.Unmarshal(r.Detail, &d); err != nil || d.Seq != r.Seq-1 || d.Hash != r.PrevHash {
		return fmt.Sprintf("row %d: the seal does not name the row before it — it was edited or copied from elsewhere", r.Seq)
	}
	k := v.db.key()
	if k == nil {
		return ""
	}
	sig, err := hex.DecodeString(d.Signature)
	if err != nil || !k.Verify(sealMessage(d.Seq, d.Hash), sig) {
		return fmt.Sprintf("row %d: the seal's signature is not this agent's — the rows before it were rewritten, or the log comes from another identity", r.Seq)
	}
	v.sealedThrough, v.unsealed = d.Seq, 0
	return ""
}
