package agent_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/config"
)

// rawSQL opens an agent's database the way a person with the sqlite3 CLI
// would, to tamper with it.
func rawSQL(t *testing.T, a *testAgent) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+a.DBPath()+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestPruneKeepsTheChainVerifiableAndTamperEvident(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	for range 3 {
		if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "status?", ContextScope: []string{"acme/webapp"}}); err != nil {
			t.Fatal(err)
		}
	}
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"})
	if err != nil {
		t.Fatal(err)
	}
	aps, _ := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending})
	if len(aps) != 1 {
		t.Fatalf("approvals = %+v", aps)
	}
	if err := eng.Reject(ctx, agent.RejectRequest{ID: aps[0].ID, Reason: "not now"}); err != nil {
		t.Fatal(err)
	}
	waitMessage(t, pm, ticket.RequestID)
	outDir := filepath.Join(eng.Dir, "tasks", ticket.TaskID)
	if err := os.MkdirAll(outDir, 0o700); err != nil {
		t.Fatal(err)
	}
	before, _ := eng.VerifyAudit(ctx)

	rep, err := eng.Prune(ctx, agent.PruneRequest{OlderThan: time.Nanosecond}) // everything written so far is older
	if err != nil {
		t.Fatal(err)
	}
	if rep.AuditRows < 5 || rep.Tasks != 1 {
		t.Fatalf("prune report = %+v; want the audit rows and the rejected task gone", rep)
	}
	if _, err := os.Stat(outDir); !os.IsNotExist(err) {
		t.Fatalf("task output dir %s still there (%v)", outDir, err)
	}
	v, err := eng.VerifyAudit(ctx)
	if err != nil || !v.OK || v.Entries >= before.Entries {
		t.Fatalf("verify after prune = %+v, %v (before: %d rows)", v, err, before.Entries)
	}
	rows, _ := eng.Audit(ctx, agent.AuditFilter{Method: "audit.checkpoint"})
	if len(rows) != 1 {
		t.Fatalf("want one audit.checkpoint row, got %+v", rows)
	}
	if _, err := rawSQL(t, eng).Exec(`UPDATE audit_log SET detail = '{"removed_count":0}' WHERE seq = ?`, rows[0].Seq); err != nil {
		t.Fatal(err)
	}
	v, err = eng.VerifyAudit(ctx)
	if err != nil || v.OK || v.FirstBad != rows[0].Seq {
		t.Fatalf("verify after tampering row %d = %+v, %v; want that row named", rows[0].Seq, v, err)
	}
}

func TestExportThenForgetLeavesNoTraceInTheDatabase(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "auth progress?", ContextScope: []string{"acme/webapp"}}); err != nil {
		t.Fatal(err)
	}
	ticket, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"})
	if err != nil {
		t.Fatal(err)
	}
	aps, _ := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending})
	if err := eng.Approve(ctx, agent.ApproveRequest{ID: aps[0].ID}); err != nil {
		t.Fatal(err)
	}
	waitMessage(t, pm, ticket.RequestID)

	// Over the control socket, as `aoi export` / `aoi forget` do.
	cl, err := ctlclient.Dial(eng.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	raw, err := cl.Export(ctx, agent.AgentRequest{AgentID: "pm-tanaka"})
	if err != nil {
		t.Fatal(err)
	}
	var exp agent.AgentExport
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"agent_registry", "queries", "tasks", "approvals", "audit_log"} {
		if len(exp.Tables[table]) == 0 {
			t.Errorf("export has no %s rows: %s", table, raw)
		}
	}
	rep, err := cl.Forget(ctx, agent.AgentRequest{AgentID: "pm-tanaka"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deleted["queries"] != 1 || rep.Deleted["tasks"] != 1 || rep.AuditRedacted == 0 || rep.AuditEventSeq == 0 {
		t.Fatalf("forget report = %+v", rep)
	}
	if v, err := eng.VerifyAudit(ctx); err != nil || !v.OK {
		t.Fatalf("verify after forget = %+v, %v", v, err)
	}
	if f, i := storedAt(t, eng, "pm-tanaka"); f != "" {
		t.Fatalf("%s still holds pm-tanaka at byte %d", f, i)
	}
	rows, _ := eng.Audit(ctx, agent.AuditFilter{Method: "agent.forgotten"})
	if len(rows) != 1 || strings.Contains(string(rows[0].Detail), "pm-tanaka") {
		t.Fatalf("agent.forgotten rows = %+v", rows)
	}
	if _, err := cl.Forget(ctx, agent.AgentRequest{AgentID: "eng-suzuki"}); err == nil {
		t.Fatal("forgetting this agent itself must be refused")
	}
}

func TestDoctorReportsPermissionsAndBrokenConfigWithTheFix(t *testing.T) {
	dir := t.TempDir()
	res, err := agent.Init(agent.InitOptions{DataDir: filepath.Join(dir, "data"), AgentID: "eng-suzuki", Role: "engineer"})
	if err != nil {
		t.Fatal(err)
	}
	checks := agent.LocalChecks(res.DataDir, res.ConfigPath, time.Now())
	for _, c := range checks {
		if c.Status != agent.CheckOK {
			t.Fatalf("fresh init: %+v", c)
		}
	}
	// A context path with a typo is a warning that names the path meant.
	repo := filepath.Join(dir, "webapp")
	if err := os.Mkdir(repo, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(res.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: filepath.Join(dir, "wbeapp")}}
	if err := config.Write(res.ConfigPath, cfg); err != nil {
		t.Fatal(err)
	}
	if c := agent.LocalChecks(res.DataDir, res.ConfigPath, time.Now())[0]; c.Status != agent.CheckWarn || !strings.Contains(c.Fix, "did you mean "+repo) {
		t.Errorf("config check with a local_path typo = %+v, want a warning naming %s", c, repo)
	}
	if err := os.Chmod(res.DataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(res.ConfigPath, []byte(`{"agent": {"id": "Eng A"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	byName := map[string]agent.DoctorCheck{}
	for _, c := range agent.LocalChecks(res.DataDir, res.ConfigPath, time.Now()) {
		byName[c.Name] = c
	}
	if c := byName["data dir"]; c.Status != agent.CheckFail || c.Fix != "chmod 700 "+res.DataDir {
		t.Errorf("data dir check = %+v, want a failure with the chmod fix", c)
	}
	if c := byName["config"]; c.Status != agent.CheckFail || !strings.Contains(c.Fix, res.ConfigPath) || c.Detail == "" {
		t.Errorf("config check = %+v, want a failure naming the file", c)
	}
	if c := byName["task confinement"]; c.Status != agent.CheckOK || !strings.Contains(c.Detail, "Landlock ABI") {
		t.Errorf("task confinement check = %+v, want ok naming the Landlock ABI (this machine and CI have it)", c)
	}
	if c := byName["certificate"]; c.Status != agent.CheckOK {
		t.Errorf("certificate check = %+v", c)
	}
}

func TestDoctorOnTheRunningCore(t *testing.T) {
	eng, _ := taskAgents(t)
	rep, err := eng.Doctor(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range rep.Checks {
		got[c.Name] = c.Status
	}
	for _, name := range []string{"database", "audit chain", "tailnet", "clock vs pm-tanaka"} {
		if got[name] != agent.CheckOK {
			t.Errorf("check %q = %q, want ok (all: %+v)", name, got[name], rep.Checks)
		}
	}
	// A sealed log whose outside copy of the newest seal is gone: the
	// chain verifies, and doctor says what it could not check.
	if ok, err := eng.DB().SealAudit(context.Background()); !ok || err != nil {
		t.Fatalf("seal: %v, %v", ok, err)
	}
	if err := os.Remove(filepath.Join(filepath.Dir(eng.DB().Path()), "audit-seal.json")); err != nil {
		t.Fatal(err)
	}
	rep, _ = eng.Doctor(context.Background())
	for _, c := range rep.Checks {
		if c.Name == "audit chain" && (c.Status != agent.CheckWarn || !strings.Contains(c.Detail, "audit-seal.json is missing")) {
			t.Errorf("seal file missing: %+v", c)
		}
	}
	if _, err := rawSQL(t, eng).Exec(`UPDATE audit_log SET result = 'forged' WHERE seq = 1`); err != nil {
		t.Fatal(err)
	}
	rep, _ = eng.Doctor(context.Background())
	for _, c := range rep.Checks {
		if c.Name == "audit chain" && (c.Status != agent.CheckFail || !strings.Contains(c.Detail, "row 1")) {
			t.Errorf("after tampering: %+v", c)
		}
	}
}
