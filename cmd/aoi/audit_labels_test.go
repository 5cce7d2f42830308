package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/store"
)

// TestAuditTableSaysResultsAsThePaneDoes: `aoi audit` reads a refused
// call's result as the interface's Audit pane does (`denied`, the walk
// read PERMISSION_DENIED in one and denied in the other), and --json keeps
// the error's name, which scripts match.
func TestAuditTableSaysResultsAsThePaneDoes(t *testing.T) {
	isolate(t)
	dir := initDir(t)
	db, err := store.Open(filepath.Join(dir, "aoi.db"))
	if err != nil {
		t.Fatal(err)
	}
	err = db.Write(context.Background(), func(tx *store.Tx) error {
		if _, err := tx.AppendAudit("qa-ito", "aoi.query", "PERMISSION_DENIED", map[string]any{"reason": "acl"}); err != nil {
			return err
		}
		_, err := tx.AppendAudit("qa-ito", "aoi.query", "RATE_LIMIT", map[string]any{"reason": "burst"})
		return err
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := runAOI(t, "--data-dir", dir, "audit", "--agent", "qa-ito")
	if r.code != exitOK || !strings.Contains(r.stdout, " denied ") || !strings.Contains(r.stdout, " rate-limit ") ||
		strings.Contains(r.stdout, "PERMISSION_DENIED") || strings.Contains(r.stdout, "RATE_LIMIT") {
		t.Errorf("aoi audit: exit %d, printed\n%s%s\nwant the results as the pane says them: denied, rate-limit", r.code, r.stdout, r.stderr)
	}
	r = runAOI(t, "--data-dir", dir, "--json", "audit", "--agent", "qa-ito")
	var rows []struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 2 || rows[0].Result != "RATE_LIMIT" || rows[1].Result != "PERMISSION_DENIED" {
		t.Errorf("aoi --json audit: %v %+v; want the error names kept:\n%s", err, rows, r.stdout)
	}
}

// TestInboxSaysKindsAsThePaneDoes: `aoi inbox` names a message's kind as
// the interface's Messages pane does ("answer", "task done"), under KIND;
// the walk's `aoi inbox` read query.completed beside the pane's answer.
// --json keeps the protocol's event.
func TestInboxSaysKindsAsThePaneDoes(t *testing.T) {
	isolate(t)
	dir := initDir(t)
	db, err := store.Open(filepath.Join(dir, "aoi.db"))
	if err != nil {
		t.Fatal(err)
	}
	err = db.Write(context.Background(), func(tx *store.Tx) error {
		if _, _, err := tx.InsertMessage(store.MessageRecord{From: "pm-tanaka", Event: "query.completed", Data: json.RawMessage(`{"summary":"Thursday"}`)}); err != nil {
			return err
		}
		_, _, err := tx.InsertMessage(store.MessageRecord{From: "qa-ito", Event: "task.completed", Data: json.RawMessage(`{"summary":"lint passed"}`)})
		return err
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	r := runAOI(t, "--data-dir", dir, "inbox")
	for _, want := range []string{" KIND ", "pm-tanaka  answer ", "qa-ito     task done "} {
		if r.code != exitOK || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "query.completed") {
			t.Errorf("aoi inbox: exit %d, printed\n%s%s\nwant %q, the kinds as the Messages pane says them", r.code, r.stdout, r.stderr, want)
		}
	}
	r = runAOI(t, "--data-dir", dir, "--json", "inbox")
	if !strings.Contains(r.stdout, `"event": "query.completed"`) && !strings.Contains(r.stdout, `"event":"query.completed"`) {
		t.Errorf("aoi --json inbox lost the protocol's event:\n%s", r.stdout)
	}
}
