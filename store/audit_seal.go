package store

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Sealing: a hash chain alone can be rewritten whole by anyone who can
// write the file (change a row, recompute every hash after it). So the
// agent seals it with its identity key: an audit.seal row carries an
// ed25519 signature over the seq and hash of the row before it. Rewriting
// any row before a seal changes that seal's prev_hash, and a new signature
// needs the key. A pruning is sealed at once (ops), so its checkpoint is
// signed as the design asks. Rows after the last seal rest on the chain
// alone until the next seal. Deleting the newest rows, seals included,
// leaves a valid chain; so each seal is also written to audit-seal.json
// beside the database (the anchor), and verification checks that the log
// still holds the anchored row as it was sealed. A copy of that file kept
// elsewhere puts the check out of reach of whoever can change the data dir.

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
	// AnchorsSignedSince is the row from which every anchor is signed
	// (audit_anchor_sign.go); the signature covers it. 0: a seal of an
	// earlier release, which said nothing of anchors.
	AnchorsSignedSince int64 `json:"anchors_signed_since,omitempty"`
}

// message is what the seal signs.
func (d sealDetail) message() []byte {
	m := "aoi audit seal\n" + strconv.FormatInt(d.Seq, 10) + "\n" + d.Hash
	if d.AnchorsSignedSince > 0 {
		m += "\nanchors signed since " + strconv.FormatInt(d.AnchorsSignedSince, 10)
	}
	return []byte(m)
}

// verifiedBy reports whether the seal's signature is k's.
func (d sealDetail) verifiedBy(k AuditKey) bool {
	sig, err := hex.DecodeString(d.Signature)
	return err == nil && k.Verify(d.message(), sig)
}

// anchorsSignedSince is where the newest seal (in the log, or filed, the
// anchor file's, when a pruning took the log's seals) says anchors are
// signed from, or, when no seal of this release says so yet, the seal
// about to be written (at seq).
func (tx *Tx) anchorsSignedSince(seq int64, filed sealDetail) (int64, error) {
	if filed.AnchorsSignedSince > 0 {
		seq = min(seq, filed.AnchorsSignedSince)
	}
	seals, err := auditOfAgent(tx.Query, AuditQuery{Agent: systemAgent, Method: sealMethod, Limit: 1})
	if err != nil {
		return 0, fmt.Errorf("store: reading the last seal: %w", err)
	}
	var last sealDetail
	if len(seals) > 0 && json.Unmarshal(seals[0].Detail, &last) == nil && last.AnchorsSignedSince > 0 {
		return min(seq, last.AnchorsSignedSince), nil
	}
	return seq, nil
}

// readAnchor reads the anchor file when it holds a seal this agent's key
// signed.
func (db *DB) readAnchor() (sealDetail, bool) {
	var d sealDetail
	k := db.key()
	raw, err := os.ReadFile(db.anchorPath())
	if k == nil || err != nil || json.Unmarshal(raw, &d) != nil || !d.verifiedBy(k) {
		return sealDetail{}, false
	}
	return d, true
}

// SealAudit appends a signed seal of the chain's head. It does nothing
// (false) without a key, on an empty log, or when the head is a seal.
func (db *DB) SealAudit(ctx context.Context) (bool, error) {
	k := db.key()
	if k == nil {
		return false, nil
	}
	var sealed bool
	var anchor sealDetail
	filed, _ := db.readAnchor() // read here, not while holding the writer
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
		since, err := tx.anchorsSignedSince(tx.head.seq+1, filed)
		if err != nil {
			return err
		}
		d := sealDetail{Seq: tx.head.seq, Hash: tx.head.hash, AnchorsSignedSince: since}
		sig, err := k.Sign(d.message())
		if err != nil {
			return fmt.Errorf("store: signing the audit seal: %w", err)
		}
		d.Signature = hex.EncodeToString(sig)
		if _, err := tx.AppendAudit(systemAgent, sealMethod, "ok", d); err != nil {
			return err
		}
		sealed, anchor = true, d
		return nil
	})
	if err != nil || !sealed {
		return false, err
	}
	if err := writeAnchor(db.anchorPath(), anchor); err != nil {
		return true, fmt.Errorf("store: the log is sealed, but its anchor was not written: %w", err)
	}
	return true, nil
}

// anchorPath is where the newest seal is kept outside the database.
func (db *DB) anchorPath() string { return filepath.Join(filepath.Dir(db.path), anchorFile) }

// anchorFile is the anchor's name in the database's folder.
const anchorFile = "audit-seal.json"

// writeAnchor replaces the anchor file atomically (a temporary file, then
// rename), so a crash leaves the old anchor or the new one.
func writeAnchor(path string, d sealDetail) error {
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".audit-seal-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// checkAnchor compares the log with the anchor file, when there is one
// and a key to check it with: the anchored row must still be in the log
// as it was sealed. It returns the seq at fault and what is wrong, or 0
// and "", and where the file says anchors are signed from (0: it does not
// say). An anchored row older than the log's first row was pruned, which
// the pruning checkpoint accounts for.
func (db *DB) checkAnchor(ctx context.Context, first, last int64) (int64, string, int64, error) {
	k := db.key()
	raw, err := os.ReadFile(db.anchorPath())
	if k == nil || errors.Is(err, fs.ErrNotExist) {
		return 0, "", 0, nil
	}
	if err != nil {
		return 0, "", 0, fmt.Errorf("store: reading the audit anchor: %w", err)
	}
	var d sealDetail
	if json.Unmarshal(raw, &d) != nil {
		return last, anchorFile + " is not a seal: it was edited", 0, nil
	}
	if !d.verifiedBy(k) {
		return last, anchorFile + "'s signature is not this agent's: it was edited or comes from another identity", 0, nil
	}
	switch {
	case d.Seq > last:
		return last, fmt.Sprintf("%s sealed the log through seq %d, but it now ends at seq %d — rows were deleted from its end", anchorFile, d.Seq, last), 0, nil
	case d.Seq < first:
		return 0, "", d.AnchorsSignedSince, nil
	}
	var hash string
	err = db.rd.QueryRowContext(ctx, `SELECT hash FROM audit_log WHERE seq = ?`, d.Seq).Scan(&hash)
	if isNoRows(err) || err == nil && hash != d.Hash {
		return d.Seq, fmt.Sprintf("row %d is not the row %s sealed — the log was rewritten", d.Seq, anchorFile), 0, nil
	}
	return 0, "", d.AnchorsSignedSince, err
}

// anchorMissing warns when the log holds seals but the anchor file is
// gone: checkAnchor then has nothing to compare the log with, so rows
// deleted from its end (seals and all) would pass. Not a failure: a
// verified chain is still verified, and the next seal writes the file
// again; but the owner should know the check did not run.
func (db *DB) anchorMissing(seals int64) string {
	if seals == 0 {
		return ""
	}
	if _, err := os.Stat(db.anchorPath()); !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	what := "1 seal"
	if seals != 1 {
		what = strconv.FormatInt(seals, 10) + " seals"
	}
	return fmt.Sprintf("%s is missing from %s, though the log holds %s: the newest seal cannot be checked against that copy "+
		"kept outside the database, so rows deleted from the log's end (seals and all) would go unnoticed. "+
		"Put back a copy you kept elsewhere and verify again; aoi writes a new one at its next seal",
		anchorFile, filepath.Dir(db.anchorPath()), what)
}

// checkSeal verifies an audit.seal row: it must name the row before it,
// and its signature must be this agent's.
func (v *chainVerifier) checkSeal(r AuditRecord) string {
	if !isSeal(r.Agent, r.Method) {
		return ""
	}
	v.seals++
	var d sealDetail
	if err := json.Unmarshal(r.Detail, &d); err != nil || d.Seq != r.Seq-1 || d.Hash != r.PrevHash {
		return fmt.Sprintf("row %d: the seal does not name the row before it — it was edited or copied from elsewhere", r.Seq)
	}
	k := v.db.key()
	if k == nil {
		return ""
	}
	if !d.verifiedBy(k) {
		return fmt.Sprintf("row %d: the seal's signature is not this agent's — the rows before it were rewritten, or the log comes from another identity", r.Seq)
	}
	v.sealedThrough, v.unsealed = d.Seq, 0
	v.noteSignedSince(d.AnchorsSignedSince)
	return ""
}
