package store

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// withoutKey runs f as someone who can write the database but has no key:
// rows it appends chain correctly and carry no signature.
func withoutKey(db *DB, key AuditKey, f func()) {
	db.SetAuditKey(nil)
	defer db.SetAuditKey(key)
	f()
}

// TestForgedRedactionAnchorIsRefused: the attack run rewrote a sealed row
// and made verify accept it with a redaction record and an agent.forgotten
// row it appended itself. The anchor now needs the agent's signature once
// a seal says anchors are signed; aoi forget's own anchor has one.
func TestForgedRedactionAnchorIsRefused(t *testing.T) {
	ctx := context.Background()
	db, path := openTestDB(t)
	key := newTestKey(t)
	db.SetAuditKey(key)
	recs := appendN(t, db, 6)
	if ok, err := db.SealAudit(ctx); !ok || err != nil {
		t.Fatalf("seal: %v, %v", ok, err)
	}
	// Row 3 rewritten, its hash column kept; the redaction recorded.
	raw := rawDB(t, path)
	var ts string
	if err := raw.QueryRow(`SELECT ts FROM audit_log WHERE seq = 3`).Scan(&ts); err != nil {
		t.Fatal(err)
	}
	r := recs[2]
	forged := auditHash(r.PrevHash, 3, ts, r.Agent, "aoi.ping", "ok", string(r.Detail))
	if _, err := raw.Exec(`UPDATE audit_log SET method = 'aoi.ping', result = 'ok' WHERE seq = 3`); err != nil {
		t.Fatal(err)
	}
	entries := []redaction{{Seq: 3, OriginalHash: r.Hash, RedactedHash: forged}}
	var anchor AuditRecord
	withoutKey(db, key, func() {
		err := db.Write(ctx, func(tx *Tx) error {
			var err error
			anchor, err = tx.AppendAudit("owner", forgottenMethod, "ok", forgetDetail{RedactedRows: 1, RedactionsDigest: redactionDigest(entries)})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	if _, err := raw.Exec(`INSERT INTO audit_redactions(seq, anchor_seq, original_hash, redacted_hash) VALUES (3, ?, ?, ?)`, anchor.Seq, r.Hash, forged); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.SealAudit(ctx); !ok || err != nil { // the running agent's next seal signs through it
		t.Fatalf("seal: %v, %v", ok, err)
	}
	v := mustVerify(t, db)
	if v.OK || v.FirstBad != anchor.Seq || !strings.Contains(v.Problem, "agent.forgotten row is not signed by this agent") {
		t.Fatalf("verify = %+v; want the unsigned anchor %d named", v, anchor.Seq)
	}
}

// TestForgedCheckpointIsRefused: the attack run deleted the log's first
// rows and made verify accept the gap with a checkpoint and an
// audit.checkpoint row it added itself. A pruning's own checkpoint is
// signed and accepted; the forged one is not.
func TestForgedCheckpointIsRefused(t *testing.T) {
	ctx := context.Background()
	db, path := openTestDB(t)
	key := newTestKey(t)
	db.SetAuditKey(key)
	appendN(t, db, 10)
	if ok, err := db.SealAudit(ctx); !ok || err != nil {
		t.Fatalf("seal: %v, %v", ok, err)
	}
	raw := rawDB(t, path)
	var hash5 string
	if err := raw.QueryRow(`SELECT hash FROM audit_log WHERE seq = 5`).Scan(&hash5); err != nil {
		t.Fatal(err)
	}
	cp := AuditCheckpoint{ContinuesFromSeq: 5, ContinuesFromHash: hash5, RemovedCount: 5, RemovedFrom: 1, RemovedTo: 5, CreatedAt: formatTime(time.Now())}
	cp.Hash = cp.computeHash()
	for _, q := range []string{`DELETE FROM audit_log WHERE seq <= 5`} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := raw.Exec(`INSERT INTO audit_checkpoints(continues_from_seq, continues_from_hash, removed_count, removed_from, removed_to, created_at, hash)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, cp.ContinuesFromSeq, cp.ContinuesFromHash, cp.RemovedCount, cp.RemovedFrom, cp.RemovedTo, cp.CreatedAt, cp.Hash); err != nil {
		t.Fatal(err)
	}
	var row AuditRecord
	withoutKey(db, key, func() {
		err := db.Write(ctx, func(tx *Tx) error {
			var err error
			row, err = tx.AppendAudit(systemAgent, checkpointMethod, "ok", checkpointDetail{ContinuesFrom: 5, ContinuesFromHash: hash5, RemovedCount: 5, RemovedFrom: 1, RemovedTo: 5})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	v := mustVerify(t, db)
	if v.OK || !strings.Contains(v.Problem, fmt.Sprintf("row %d:", row.Seq)) ||
		!strings.Contains(v.Problem, "not signed by this agent") && !strings.Contains(v.Problem, "no seal of this agent follows the pruning") {
		t.Fatalf("verify = %+v; want the forged checkpoint row %d named", v, row.Seq)
	}
	// With the seal after it deleted too (and the anchor file), the
	// pruned start has no seal after it: still refused.
	if _, err := raw.Exec(`DELETE FROM audit_log WHERE agent = 'system' AND method = 'audit.seal'`); err != nil {
		t.Fatal(err)
	}
	if v := mustVerify(t, db); v.OK {
		t.Fatalf("verify = %+v after deleting the seals; want it refused", v)
	}
}

// TestSignedAnchorsVerify: a pruning and an aoi forget made with the key
// leave a log that verifies, and so does a log whose anchors predate the
// first seal that says anchors are signed (an earlier release's).
func TestSignedAnchorsVerify(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	key := newTestKey(t)
	withoutKey(db, key, func() { // an earlier release's anchor: unsigned
		if err := db.Write(ctx, func(tx *Tx) error {
			_, err := tx.AppendAudit("owner", forgottenMethod, "ok", forgetDetail{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	})
	db.SetAuditKey(key)
	appendN(t, db, 6)
	if ok, err := db.SealAudit(ctx); !ok || err != nil {
		t.Fatalf("seal: %v, %v", ok, err)
	}
	if _, err := db.ForgetAgent(ctx, "peer-1", "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PruneAudit(ctx, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ok, err := db.SealAudit(ctx); !ok || err != nil {
		t.Fatalf("seal: %v, %v", ok, err)
	}
	if v := mustVerify(t, db); !v.OK {
		t.Fatalf("verify = %+v; want a log whose anchors the agent signed to verify", v)
	}
}
