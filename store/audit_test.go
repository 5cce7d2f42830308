package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// appendN appends n audit rows, one Write each.
func appendN(t testing.TB, db *DB, n int) []AuditRecord {
	t.Helper()
	var out []AuditRecord
	for i := range n {
		err := db.Write(context.Background(), func(tx *Tx) error {
			rec, err := tx.AppendAudit(fmt.Sprintf("peer-%d", i%3), "aoi.query", "ok", map[string]any{"i": i, "z": "<&>", "a": []int{1, 2}})
			out = append(out, rec)
			return err
		})
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	return out
}

func mustVerify(t testing.TB, db *DB) AuditVerification {
	t.Helper()
	v, err := db.VerifyAudit(context.Background())
	if err != nil {
		t.Fatalf("VerifyAudit: %v", err)
	}
	return v
}

func TestAppendAuditChainsAndVerifies(t *testing.T) {
	db, _ := openTestDB(t, WithClock(newTestClock().Now))
	recs := appendN(t, db, 5)
	if recs[0].Seq != 1 || recs[0].PrevHash != GenesisHash {
		t.Fatalf("first row = seq %d prev %s, want seq 1 from genesis", recs[0].Seq, recs[0].PrevHash)
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].PrevHash != recs[i-1].Hash || recs[i].Seq != recs[i-1].Seq+1 {
			t.Fatalf("row %d does not chain to row %d", recs[i].Seq, recs[i-1].Seq)
		}
	}
	if want := `{"a":[1,2],"i":0,"z":"<&>"}`; string(recs[0].Detail) != want {
		t.Fatalf("canonical detail = %s, want %s", recs[0].Detail, want)
	}
	if v := mustVerify(t, db); !v.OK || v.Entries != 5 {
		t.Fatalf("verify = %+v, want OK with 5 entries", v)
	}
}

// TestAuditHashIsDocumentedScheme recomputes a hash from the documented
// byte string, independently of auditHash.
func TestAuditHashIsDocumentedScheme(t *testing.T) {
	db, _ := openTestDB(t, WithClock(newTestClock().Now))
	rec := appendN(t, db, 1)[0]
	ts := rec.Time.Format(time.RFC3339Nano)
	canon := `{"agent":"peer-0","detail":{"a":[1,2],"i":0,"z":"<&>"},"method":"aoi.query","result":"ok","seq":1,"ts":"` + ts + `"}`
	if got := auditHash(GenesisHash, 1, ts, "peer-0", "aoi.query", "ok", string(rec.Detail)); got != rec.Hash {
		t.Fatalf("stored hash differs from recomputation")
	}
	if sum := sha256.Sum256([]byte(GenesisHash + canon)); hex.EncodeToString(sum[:]) != rec.Hash {
		t.Fatalf("stored hash %s is not SHA-256 of the genesis hash and the documented string", rec.Hash)
	}
	if got := string(canonicalAuditJSON(1, ts, "peer-0", "aoi.query", "ok", string(rec.Detail))); got != canon {
		t.Fatalf("canonical JSON =\n%s\nwant\n%s", got, canon)
	}
}

func TestCanonicalDetailIsIdempotent(t *testing.T) {
	for _, in := range []any{nil, json.RawMessage(`{"b": 1.50, "a": {"y":1,"x":2}}`), map[string]any{"k": "<tag>", "n": 1e21}, []string{"x"}} {
		first, err := canonicalDetail(in)
		if err != nil {
			t.Fatal(err)
		}
		again, err := canonicalDetail(json.RawMessage(first))
		if err != nil || again != first {
			t.Fatalf("canonicalDetail not idempotent: %s → %s (%v)", first, again, err)
		}
	}
	if _, err := canonicalDetail(json.RawMessage(`{bad`)); err == nil {
		t.Fatal("invalid JSON detail accepted")
	}
	if _, err := canonicalDetail(strings.Repeat("x", maxAuditDetail+1)); err == nil {
		t.Fatal("oversized detail accepted")
	}
	if d, _ := canonicalDetail(json.RawMessage(`{"b":1.50,"a":2}`)); d != `{"a":2,"b":1.50}` {
		t.Fatalf("detail = %s, want sorted keys with the number kept as written", d)
	}
}

func TestGroupCommitConcurrentWriters(t *testing.T) {
	db, _ := openTestDB(t)
	const writers, each = 64, 20
	var mu sync.Mutex
	seen := map[int64]string{}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				var rec AuditRecord
				err := db.Write(context.Background(), func(tx *Tx) error {
					var err error
					rec, err = tx.AppendAudit(fmt.Sprintf("w%d", w), "test.write", "ok", map[string]int{"i": i})
					if err != nil {
						return err
					}
					return tx.SetSetting(fmt.Sprintf("w%d-%d", w, i), "x")
				})
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				seen[rec.Seq] = rec.Hash
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(seen) != writers*each {
		t.Fatalf("%d distinct seqs acknowledged, want %d", len(seen), writers*each)
	}
	rows, err := db.AuditList(context.Background(), AuditQuery{Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := db.AuditCount(context.Background())
	if n != writers*each {
		t.Fatalf("audit count = %d, want %d", n, writers*each)
	}
	for _, r := range rows {
		if seen[r.Seq] != r.Hash {
			t.Fatalf("row %d in the DB differs from what its writer was told", r.Seq)
		}
	}
	if v := mustVerify(t, db); !v.OK || v.Entries != writers*each {
		t.Fatalf("verify = %+v", v)
	}
}

func TestSavepointFailureIsolatesOneWrite(t *testing.T) {
	db, _ := openTestDB(t)
	// Hold the writer busy so the next three writes land in one batch.
	// The function runs again when a later one in its batch fails, so it
	// signals only once.
	release := make(chan struct{})
	started := make(chan struct{})
	var once sync.Once
	go db.Write(context.Background(), func(tx *Tx) error {
		once.Do(func() { close(started) })
		<-release
		_, err := tx.AppendAudit("a", "first", "ok", nil)
		return err
	})
	<-started
	boom := errors.New("boom")
	results := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = db.Write(context.Background(), func(tx *Tx) error {
				if _, err := tx.AppendAudit("b", fmt.Sprintf("m%d", i), "ok", nil); err != nil {
					return err
				}
				if err := tx.SetSetting(fmt.Sprintf("k%d", i), "v"); err != nil {
					return err
				}
				if i == 1 {
					return boom
				}
				return nil
			})
		}()
	}
	waitQueued(t, db, 3)
	close(release)
	wg.Wait()
	if results[0] != nil || results[2] != nil || !errors.Is(results[1], boom) {
		t.Fatalf("results = %v, want nil, boom, nil", results)
	}
	if _, ok, _ := db.Setting(context.Background(), "k1"); ok {
		t.Fatal("the failed write's setting was committed")
	}
	for _, k := range []string{"k0", "k2"} {
		if _, ok, _ := db.Setting(context.Background(), k); !ok {
			t.Fatalf("setting %s from a successful write is missing", k)
		}
	}
	// The chain head rolled back with the savepoint: seqs stay contiguous.
	rec := appendN(t, db, 1)[0]
	if rec.Seq != 4 {
		t.Fatalf("next seq = %d, want 4 (the failed write's seq reused)", rec.Seq)
	}
	if v := mustVerify(t, db); !v.OK || v.Entries != 4 {
		t.Fatalf("verify = %+v", v)
	}
}

// waitQueued waits until n writes are queued behind the running one.
func waitQueued(t testing.TB, db *DB, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(db.reqs) < n {
		if time.Now().After(deadline) {
			t.Fatalf("only %d writes queued, want %d", len(db.reqs), n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFailedSoloWriteRollsBackHead(t *testing.T) {
	db, _ := openTestDB(t)
	appendN(t, db, 2)
	err := db.Write(context.Background(), func(tx *Tx) error {
		tx.AppendAudit("x", "y", "ok", nil)
		return errors.New("no")
	})
	if err == nil {
		t.Fatal("failing write reported success")
	}
	if rec := appendN(t, db, 1)[0]; rec.Seq != 3 {
		t.Fatalf("seq after a failed write = %d, want 3", rec.Seq)
	}
	if v := mustVerify(t, db); !v.OK {
		t.Fatalf("verify = %+v", v)
	}
}

func TestReopenContinuesChain(t *testing.T) {
	db, path := openTestDB(t)
	first := appendN(t, db, 3)
	db.Close()
	db2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	next := appendN(t, db2, 1)[0]
	if next.Seq != 4 || next.PrevHash != first[2].Hash {
		t.Fatalf("after reopen: seq %d prev %s, want 4 chained to %s", next.Seq, next.PrevHash, first[2].Hash)
	}
	if v := mustVerify(t, db2); !v.OK || v.Entries != 4 {
		t.Fatalf("verify = %+v", v)
	}
}

func TestVerifyDetectsTampering(t *testing.T) {
	cases := []struct {
		name    string
		sql     string
		bad     int64
		problem string
	}{
		{"edited detail", `UPDATE audit_log SET detail = '{"i":99}' WHERE seq = 4`, 4, "row 4: hash does not match its content — the row was edited"},
		{"edited result", `UPDATE audit_log SET result = 'error' WHERE seq = 2`, 2, "row 2: hash does not match"},
		{"deleted row", `DELETE FROM audit_log WHERE seq = 3`, 4, "row 4: row 3 is missing"},
		{"deleted first rows", `DELETE FROM audit_log WHERE seq <= 2`, 3, "row 3: rows 1–2 are missing"},
		{"inserted row", `INSERT INTO audit_log VALUES (7, '2025-05-01T09:00:00Z', 'evil', 'aoi.query', 'ok', 'null', 'x', 'y')`, 7, "row 7: hash does not match"},
		{"inserted row 0", `INSERT INTO audit_log VALUES (0, '2025-05-01T09:00:00Z', 'evil', 'aoi.query', 'ok', 'null', 'x', 'y')`, 0, "row 0: sequence numbers start at 1"},
		{"rehashed edit", `UPDATE audit_log SET hash = 'feed' WHERE seq = 5`, 5, "row 5: hash does not match"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db, path := openTestDB(t)
			appendN(t, db, 6)
			if v := mustVerify(t, db); !v.OK {
				t.Fatalf("fresh chain fails: %+v", v)
			}
			if _, err := rawDB(t, path).Exec(tc.sql); err != nil {
				t.Fatal(err)
			}
			v := mustVerify(t, db)
			if v.OK || v.FirstBad != tc.bad || !strings.HasPrefix(v.Problem, tc.problem) {
				t.Fatalf("verify = %+v, want first bad %d with %q", v, tc.bad, tc.problem)
			}
		})
	}
}

// TestVerifyDetectsForgedRelink rewrites a row with a correct self-hash (an
// attacker who knows the scheme): the next row's link breaks.
func TestVerifyDetectsForgedRelink(t *testing.T) {
	db, path := openTestDB(t)
	recs := appendN(t, db, 4)
	r := recs[1]
	ts := r.Time.Format(time.RFC3339Nano)
	forged := auditHash(r.PrevHash, r.Seq, ts, r.Agent, r.Method, "denied", string(r.Detail))
	if _, err := rawDB(t, path).Exec(`UPDATE audit_log SET result = 'denied', hash = ? WHERE seq = 2`, forged); err != nil {
		t.Fatal(err)
	}
	v := mustVerify(t, db)
	if v.OK || v.FirstBad != 3 || !strings.Contains(v.Problem, "row 2 was replaced") {
		t.Fatalf("verify = %+v, want row 3 naming row 2", v)
	}
}

func TestPruneAuditKeepsChainVerifiable(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, WithClock(clock.Now))
	recs := appendN(t, db, 10)
	if removed, err := db.PruneAudit(context.Background(), recs[0].Time); err != nil || removed != 0 {
		t.Fatalf("prune with nothing older = %d, %v; want 0", removed, err)
	}
	if n, _ := db.AuditCount(context.Background()); n != 10 {
		t.Fatalf("a no-op prune changed the log: %d rows", n)
	}
	cut := recs[6].Time // rows 1–6 are older
	removed, err := db.PruneAudit(context.Background(), cut)
	if err != nil || removed != 6 {
		t.Fatalf("PruneAudit = %d, %v; want 6 removed", removed, err)
	}
	if v := mustVerify(t, db); !v.OK || v.Entries != 5 {
		t.Fatalf("verify after prune = %+v, want OK with 5 entries (4 kept + checkpoint)", v)
	}
	appendN(t, db, 2)
	if v := mustVerify(t, db); !v.OK {
		t.Fatalf("verify after more appends = %+v", v)
	}
	// A second prune that removes the first checkpoint row still verifies.
	if removed, err := db.PruneAudit(context.Background(), clock.Now()); err != nil || removed != 6 {
		t.Fatalf("second prune = %d, %v; want 6 (all but the newest)", removed, err)
	}
	if v := mustVerify(t, db); !v.OK || v.Entries != 2 {
		t.Fatalf("verify after second prune = %+v", v)
	}
	// Deleting the checkpoint table's vouching row breaks verification.
	if _, err := rawDB(t, path).Exec(`DELETE FROM audit_checkpoints`); err != nil {
		t.Fatal(err)
	}
	if v := mustVerify(t, db); v.OK || !strings.Contains(v.Problem, "no pruning checkpoint") {
		t.Fatalf("verify without checkpoint = %+v, want a failure", v)
	}
}

func TestForgedCheckpointIsRejected(t *testing.T) {
	db, path := openTestDB(t)
	recs := appendN(t, db, 6)
	raw := rawDB(t, path)
	// Hide rows 1–3 and forge a self-consistent checkpoint for them.
	cp := AuditCheckpoint{ContinuesFromSeq: 3, ContinuesFromHash: recs[2].Hash, RemovedCount: 3, RemovedFrom: 1, RemovedTo: 3, CreatedAt: "x"}
	cp.Hash = cp.computeHash()
	if _, err := raw.Exec(`DELETE FROM audit_log WHERE seq <= 3`); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO audit_checkpoints(continues_from_seq, continues_from_hash, removed_count, removed_from, removed_to, created_at, hash)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, cp.ContinuesFromSeq, cp.ContinuesFromHash, cp.RemovedCount, cp.RemovedFrom, cp.RemovedTo, cp.CreatedAt, cp.Hash); err != nil {
		t.Fatal(err)
	}
	v := mustVerify(t, db)
	if v.OK || v.FirstBad != 4 || !strings.Contains(v.Problem, "added by hand") {
		t.Fatalf("verify = %+v, want the forged checkpoint named at row 4", v)
	}
}

func TestAuditListFilters(t *testing.T) {
	db, _ := openTestDB(t)
	appendN(t, db, 9)
	ctx := context.Background()
	all, err := db.AuditList(ctx, AuditQuery{})
	if err != nil || len(all) != 9 || all[0].Seq != 9 || all[8].Seq != 1 {
		t.Fatalf("AuditList = %d rows (%v), want 9 newest first", len(all), err)
	}
	byAgent, _ := db.AuditList(ctx, AuditQuery{Agent: "peer-1"})
	if len(byAgent) != 3 {
		t.Fatalf("by agent: %d rows, want 3", len(byAgent))
	}
	page, _ := db.AuditList(ctx, AuditQuery{BeforeSeq: 5, Limit: 2})
	if len(page) != 2 || page[0].Seq != 4 || page[1].Seq != 3 {
		t.Fatalf("page = %+v, want seqs 4, 3", page)
	}
	text, _ := db.AuditList(ctx, AuditQuery{Text: `"i":7`})
	if len(text) != 1 || text[0].Seq != 8 {
		t.Fatalf("text search = %+v, want seq 8", text)
	}
	both, _ := db.AuditList(ctx, AuditQuery{Text: `PEER-1 "i":7`}) // every word, any case
	one, _ := db.AuditList(ctx, AuditQuery{Text: `peer-1 "i":6`})
	if len(both) != 1 || both[0].Seq != 8 || len(one) != 0 {
		t.Fatalf("every word must match: %d rows for peer-1+i7 (want seq 8), %d for peer-1+i6 (want 0)", len(both), len(one))
	}
	none, _ := db.AuditList(ctx, AuditQuery{Text: "100%_"})
	if len(none) != 0 {
		t.Fatalf("LIKE wildcards were not escaped: %d rows", len(none))
	}
	// key=value, as the Audit pane shows a detail (the walk typed what it
	// read: decision=ESCALATE), matches the JSON.
	if err := db.Write(ctx, func(tx *Tx) error {
		_, err := tx.AppendAudit("pm", "aoi.query", "ok", map[string]any{"decision": "ESCALATE", "confidence": 0.2})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"decision=ESCALATE", "decision=esc", "confidence=0.2"} {
		if got, _ := db.AuditList(ctx, AuditQuery{Text: text}); len(got) != 1 || got[0].Agent != "pm" {
			t.Errorf("%q matched %d rows, want the pm row", text, len(got))
		}
	}
}

func TestExportAudit(t *testing.T) {
	db, _ := openTestDB(t)
	recs := appendN(t, db, 3)
	ctx := context.Background()

	var js bytes.Buffer
	if err := db.ExportAudit(ctx, &js, ExportJSON); err != nil {
		t.Fatal(err)
	}
	var arr []map[string]json.RawMessage
	if err := json.Unmarshal(js.Bytes(), &arr); err != nil || len(arr) != 3 {
		t.Fatalf("json export is not a 3-element array: %v\n%s", err, js.String())
	}
	// Details appear byte for byte as stored, so the export re-verifies.
	if !strings.Contains(js.String(), `"detail":`+string(recs[0].Detail)) {
		t.Fatalf("json export altered the detail bytes:\n%s", js.String())
	}

	var jl bytes.Buffer
	if err := db.ExportAudit(ctx, &jl, ExportJSONLines); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(jl.String()), "\n"); len(lines) != 3 {
		t.Fatalf("jsonl export has %d lines, want 3", len(lines))
	}

	var cs bytes.Buffer
	if err := db.ExportAudit(ctx, &cs, ExportCSV); err != nil {
		t.Fatal(err)
	}
	records, err := csv.NewReader(&cs).ReadAll()
	if err != nil || len(records) != 4 || records[0][0] != "seq" || records[3][7] != recs[2].Hash {
		t.Fatalf("csv export = %v (%v)", records, err)
	}
	ts := records[1][1]
	if got := auditHash(records[1][6], 1, ts, records[1][2], records[1][3], records[1][4], records[1][5]); got != records[1][7] {
		t.Fatal("a CSV row does not re-verify with the documented scheme")
	}
	if err := db.ExportAudit(ctx, &cs, "xml"); err == nil || !strings.Contains(err.Error(), "json, jsonl or csv") {
		t.Fatalf("unknown format error = %v", err)
	}
}

func TestAppendAuditSanitisesUTF8(t *testing.T) {
	db, _ := openTestDB(t)
	var rec AuditRecord
	err := db.Write(context.Background(), func(tx *Tx) (err error) {
		rec, err = tx.AppendAudit("bad\xff", "m", "ok", nil)
		return err
	})
	if err != nil || !utf8.ValidString(rec.Agent) {
		t.Fatalf("agent %q (%v): want valid UTF-8", rec.Agent, err)
	}
	if v := mustVerify(t, db); !v.OK {
		t.Fatalf("verify = %+v", v)
	}
}

// TestASecondHandleIsRefused: a second DB on a file one already has in
// this process (by another path to it, too) would keep a second audit head
// and fork the chain, so Open refuses it, saying which handle has the file;
// once that one is closed the file opens again and the chain continues.
// (Another process is refused by the file's lock:
// TestOtherProcessesCannotOpenTheDatabaseWhileAoiHasIt.)
func TestASecondHandleIsRefused(t *testing.T) {
	db1, path := openTestDB(t)
	appendN(t, db1, 2)
	link := filepath.Join(t.TempDir(), "same.db")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, link} {
		db2, err := Open(p)
		if err == nil {
			db2.Close()
			t.Fatalf("a second Open of %s succeeded while the first handle is open", p)
		}
		if !strings.Contains(err.Error(), "already open in this process") || !strings.Contains(err.Error(), path) {
			t.Fatalf("Open(%s) = %v; want it to say the file is already open, as %s", p, err, path)
		}
	}
	if err := db1.Close(); err != nil {
		t.Fatal(err)
	}
	db2, err := Open(link)
	if err != nil {
		t.Fatalf("Open after the first handle closed: %v", err)
	}
	defer db2.Close()
	appendN(t, db2, 3)
	if v := mustVerify(t, db2); !v.OK || v.Entries != 5 {
		t.Fatalf("verify = %+v, want 5 chained rows", v)
	}
}

// TestNewAuditDetailStoresTheSameRow: a detail encoded before DB.Write
// (NewAuditDetail) is stored and hashed exactly as the same detail passed
// to AppendAudit directly.
func TestNewAuditDetailStoresTheSameRow(t *testing.T) {
	db, _ := openTestDB(t)
	detail := map[string]any{"query_id": "q-1", "scope": []string{"acme/webapp"}, "confidence": 0.5, "text": "<b>認証</b>"}
	pre, err := NewAuditDetail(detail)
	if err != nil {
		t.Fatal(err)
	}
	var direct, encoded AuditRecord
	err = db.Write(context.Background(), func(tx *Tx) error {
		var err error
		if direct, err = tx.AppendAudit("pm", "aoi.query", "ok", detail); err != nil {
			return err
		}
		encoded, err = tx.AppendAudit("pm", "aoi.query", "ok", pre)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if string(direct.Detail) != string(encoded.Detail) {
		t.Fatalf("pre-encoded detail %s, direct %s", encoded.Detail, direct.Detail)
	}
	if _, err := NewAuditDetail(map[string]any{"f": func() {}}); err == nil {
		t.Fatal("NewAuditDetail accepted a detail JSON cannot encode")
	}
	if v, err := db.VerifyAudit(context.Background()); err != nil || !v.OK {
		t.Fatalf("chain: %+v, %v", v, err)
	}
	var empty AuditDetail
	err = db.Write(context.Background(), func(tx *Tx) error {
		rec, err := tx.AppendAudit("pm", "aoi.ping", "ok", empty)
		if err == nil && string(rec.Detail) != "null" {
			t.Errorf("zero AuditDetail stored as %s, want null", rec.Detail)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The daily call budget is seeded at start from today's rows of calls:
// yesterday's rows, rows that are no call (no latency_ms) and rows the
// filter refuses are not counted, and the count survives reopening the
// file.
func TestAuditCallsOnCountsOneDaysCalls(t *testing.T) {
	clock := newTestClock()
	path := filepath.Join(t.TempDir(), "aoi.db")
	db, err := Open(path, WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	appendRows := func(agent, method, result string, detail any, n int) {
		t.Helper()
		for range n {
			if err := db.Write(ctx, func(tx *Tx) error {
				_, err := tx.AppendAudit(agent, method, result, detail)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	call := map[string]any{"id": "1", "latency_ms": 2}
	appendRows("pm-tanaka", "aoi.ping", "ok", call, 5) // yesterday
	clock.mu.Lock()
	clock.now = clock.now.Add(24 * time.Hour)
	today := clock.now
	clock.mu.Unlock()
	appendRows("pm-tanaka", "aoi.ping", "ok", call, 3)
	appendRows("pm-tanaka", "aoi.query", "PERMISSION_DENIED", call, 2)
	appendRows("pm-tanaka", "aoi.ping", "RATE_LIMIT", call, 4)
	appendRows("pm-tanaka", "task.start", "ok", map[string]any{"task_id": "t1", "note": `"latency_ms": 1`}, 2)
	appendRows("pm-sato", "aoi.ping", "ok", call, 1)
	db.Close()
	if db, err = Open(path, WithClock(clock.Now)); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	counts, err := db.AuditCallsOn(ctx, today, func(_, result string) bool { return result != "RATE_LIMIT" })
	if err != nil {
		t.Fatal(err)
	}
	if counts["pm-tanaka"] != 5 || counts["pm-sato"] != 1 || len(counts) != 2 {
		t.Errorf("counts = %v; want pm-tanaka 5 (3 ok, 2 refused by the ACL; not yesterday's, the rate-limited or the task rows), pm-sato 1", counts)
	}
}
