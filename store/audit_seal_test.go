package store

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testKey is an ed25519 audit key, as the agent's identity gives.
type testKey struct{ priv ed25519.PrivateKey }

func newTestKey(t *testing.T) testKey {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{priv}
}

func (k testKey) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(k.priv, msg), nil }
func (k testKey) Verify(msg, sig []byte) bool {
	return ed25519.Verify(k.priv.Public().(ed25519.PublicKey), msg, sig)
}

// TestSealCatchesARewrittenChain: a chain rewritten whole (a row changed,
// every hash after it recomputed: what the hash chain alone cannot catch)
// fails at the seal after it, whose signature needs the key; a log from
// another identity fails the same way. A seal on a sealed head adds none.
func TestSealCatchesARewrittenChain(t *testing.T) {
	ctx := context.Background()
	db, path := openTestDB(t)
	key := newTestKey(t)
	db.SetAuditKey(key)
	appendN(t, db, 4)
	if ok, err := db.SealAudit(ctx); !ok || err != nil {
		t.Fatalf("seal: %v, %v", ok, err)
	}
	if ok, _ := db.SealAudit(ctx); ok {
		t.Fatal("a sealed head was sealed again")
	}
	appendN(t, db, 2)
	v := mustVerify(t, db)
	if !v.OK || v.SealedThrough != 4 || v.Unsealed != 2 {
		t.Fatalf("verify = %+v, want intact, sealed through 4, 2 rows after", v)
	}

	// Rewrite row 2 and recompute every hash after it, seal row included.
	raw := rawDB(t, path)
	if _, err := raw.Exec(`UPDATE audit_log SET result = 'denied' WHERE seq = 2`); err != nil {
		t.Fatal(err)
	}
	rows, err := db.AuditList(ctx, AuditQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	prev := GenesisHash
	for i := len(rows) - 1; i >= 0; i-- { // oldest first
		r := rows[i]
		var ts string
		if err := raw.QueryRow(`SELECT ts FROM audit_log WHERE seq = ?`, r.Seq).Scan(&ts); err != nil {
			t.Fatal(err)
		}
		detail := string(r.Detail)
		if r.Method == sealMethod { // make the seal name the rewritten row; its signature stays
			var d sealDetail
			if err := json.Unmarshal(r.Detail, &d); err != nil {
				t.Fatal(err)
			}
			d.Hash = prev
			b, _ := json.Marshal(d)
			detail = string(b)
		}
		h := auditHash(prev, r.Seq, ts, r.Agent, r.Method, r.Result, detail)
		if _, err := raw.Exec(`UPDATE audit_log SET prev_hash = ?, detail = ?, hash = ? WHERE seq = ?`, prev, detail, h, r.Seq); err != nil {
			t.Fatal(err)
		}
		prev = h
	}
	v = mustVerify(t, db)
	if v.OK || v.FirstBad != 5 || !strings.Contains(v.Problem, "signature is not this agent's — the rows before it were rewritten") {
		t.Fatalf("rewritten chain: %+v, want the seal at 5 to catch it", v)
	}

	// The same log checked with another identity's key.
	other, _ := openTestDB(t)
	other.SetAuditKey(key)
	appendN(t, other, 3)
	if ok, err := other.SealAudit(ctx); !ok || err != nil {
		t.Fatalf("seal: %v, %v", ok, err)
	}
	other.SetAuditKey(newTestKey(t))
	if v := mustVerify(t, other); v.OK || v.FirstBad != 4 || !strings.Contains(v.Problem, "signature is not this agent's") {
		t.Fatalf("another identity's seal: %+v", v)
	}
}

// TestAPeerCannotFakeASeal: a peer that calls a method named audit.seal
// leaves a row with that method under its own name (the log records what
// callers sent); it is not taken for a seal, so it neither breaks the
// chain's verification nor stops the next seal.
func TestAPeerCannotFakeASeal(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	db.SetAuditKey(newTestKey(t))
	appendN(t, db, 2)
	err := db.Write(ctx, func(tx *Tx) error {
		_, err := tx.AppendAudit("pm-mallory", sealMethod, "METHOD_NOT_FOUND", map[string]any{"reason": "no such method"})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if v := mustVerify(t, db); !v.OK {
		t.Fatalf("a peer's audit.seal call broke verification: %+v", v)
	}
	if ok, err := db.SealAudit(ctx); !ok || err != nil {
		t.Fatalf("the peer's row stopped the seal: %v, %v", ok, err)
	}
	if v := mustVerify(t, db); !v.OK || v.SealedThrough != 3 || v.Unsealed != 0 {
		t.Fatalf("verify = %+v, want sealed through the peer's row", v)
	}
}

// TestAnchorCatchesWhatTheChainCannot: the newest seal is also kept in
// audit-seal.json beside the database, so rows deleted from the end (seals
// and all) and a chain rebuilt without its seals are caught too.
func TestAnchorCatchesWhatTheChainCannot(t *testing.T) {
	ctx := context.Background()
	sealed := func(t *testing.T) (*DB, string) {
		db, path := openTestDB(t)
		db.SetAuditKey(newTestKey(t))
		appendN(t, db, 4)
		if ok, err := db.SealAudit(ctx); !ok || err != nil {
			t.Fatalf("seal: %v, %v", ok, err)
		}
		appendN(t, db, 2)
		return db, path
	}
	t.Run("rows deleted from the end", func(t *testing.T) {
		db, path := sealed(t)
		if _, err := rawDB(t, path).Exec(`DELETE FROM audit_log WHERE seq >= 3`); err != nil {
			t.Fatal(err)
		}
		v := mustVerify(t, db)
		if v.OK || !strings.Contains(v.Problem, "sealed the log through seq 4, but it now ends at seq 2 — rows were deleted from its end") {
			t.Fatalf("verify = %+v", v)
		}
	})
	t.Run("seals removed and the chain rebuilt", func(t *testing.T) {
		db, path := sealed(t)
		raw := rawDB(t, path)
		if _, err := raw.Exec(`DELETE FROM audit_log WHERE method = ?`, sealMethod); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(`UPDATE audit_log SET result = 'denied' WHERE seq = 2`); err != nil {
			t.Fatal(err)
		}
		if _, err := raw.Exec(`UPDATE audit_log SET seq = seq - 1 WHERE seq > 5`); err != nil {
			t.Fatal(err)
		}
		rehash(t, db, raw)
		v := mustVerify(t, db)
		if v.OK || v.FirstBad != 4 || !strings.Contains(v.Problem, "row 4 is not the row audit-seal.json sealed") {
			t.Fatalf("verify = %+v", v)
		}
	})
}

// TestMissingAnchorIsAWarning: a log that holds seals but whose
// audit-seal.json is gone still verifies (the chain and the seals are
// intact), with a warning that names the file and says what could not be
// checked; with the file there, or with no seal yet, there is none.
func TestMissingAnchorIsAWarning(t *testing.T) {
	ctx := context.Background()
	db, path := openTestDB(t)
	db.SetAuditKey(newTestKey(t))
	appendN(t, db, 3)
	if v := mustVerify(t, db); !v.OK || v.Warning != "" {
		t.Fatalf("no seal yet: verify = %+v; want intact, no warning", v)
	}
	if ok, err := db.SealAudit(ctx); !ok || err != nil {
		t.Fatalf("seal: %v, %v", ok, err)
	}
	appendN(t, db, 1)
	if v := mustVerify(t, db); !v.OK || v.Warning != "" {
		t.Fatalf("sealed, anchor in place: verify = %+v; want intact, no warning", v)
	}
	anchor := filepath.Join(filepath.Dir(path), "audit-seal.json")
	if err := os.Remove(anchor); err != nil {
		t.Fatal(err)
	}
	v := mustVerify(t, db)
	if !v.OK || v.SealedThrough != 3 {
		t.Fatalf("anchor missing: verify = %+v; want the chain still intact", v)
	}
	for _, want := range []string{"audit-seal.json is missing from " + filepath.Dir(path), "the log holds 1 seal",
		"cannot be checked against that copy kept outside the database", "rows deleted from the log's end"} {
		if !strings.Contains(v.Warning, want) {
			t.Errorf("warning %q does not say %q", v.Warning, want)
		}
	}
	if ok, err := db.SealAudit(ctx); !ok || err != nil { // the next seal writes it again
		t.Fatalf("seal: %v, %v", ok, err)
	}
	if v := mustVerify(t, db); !v.OK || v.Warning != "" {
		t.Errorf("after the next seal: verify = %+v; want no warning", v)
	}
}

// rehash recomputes every row's prev_hash and hash in seq order, as an
// attacker who knows the scheme would.
func rehash(t *testing.T, db *DB, raw *sql.DB) {
	t.Helper()
	rows, err := db.AuditList(context.Background(), AuditQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	prev := GenesisHash
	for i := len(rows) - 1; i >= 0; i-- {
		r := rows[i]
		var ts string
		if err := raw.QueryRow(`SELECT ts FROM audit_log WHERE seq = ?`, r.Seq).Scan(&ts); err != nil {
			t.Fatal(err)
		}
		h := auditHash(prev, r.Seq, ts, r.Agent, r.Method, r.Result, string(r.Detail))
		if _, err := raw.Exec(`UPDATE audit_log SET prev_hash = ?, hash = ? WHERE seq = ?`, prev, h, r.Seq); err != nil {
			t.Fatal(err)
		}
		prev = h
	}
}
