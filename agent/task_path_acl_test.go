package agent_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
)

// catfileAgents starts eng, holding acme/webapp (at repo, when given) with
// a catfile task taking a path, PMs may execute there and nobody may reach
// secrets/; and pm, paired with it and announced.
func catfileAgents(t *testing.T, repo, isolation string) (eng, pm *testAgent) {
	eng = newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"},
			{ID: "no-secrets", AgentID: "*", ScopeType: "folder", ScopePattern: "acme/webapp/secrets/**", Permission: "none"}}}
		c.Tasks = map[string]config.TaskType{"catfile": {
			Command: []string{"cat", "{{pkg}}"}, Context: "acme/webapp", TimeoutSec: 30, Isolation: isolation, AllowRef: isolation == config.IsolationWorktree,
			Params:   map[string]config.Param{"pkg": {Type: config.ParamTypePath}},
			Approval: config.Approval{Required: true},
		}}
	})
	pm = newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	pm.Discover(context.Background())
	return eng, pm
}

// TestTaskPathParamMeetsFolderRules: a task's path parameter is checked
// against folder rules like a query's scope: the attack run had
// `catfile pkg=secrets/plan.txt` accepted although no-secrets gives every
// peer nothing under secrets/. A path outside the folder still goes
// through to approval.
func TestTaskPathParamMeetsFolderRules(t *testing.T) {
	eng, pm := catfileAgents(t, "", "none")
	ctx := context.Background()
	_, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "catfile", Params: map[string]string{"pkg": "secrets/plan.txt"}})
	if err == nil || !strings.Contains(err.Error(), "no execute access to acme/webapp/secrets/plan.txt") || strings.Contains(err.Error(), "no-secrets") {
		t.Fatalf("a path under secrets/: %v, want a denial that does not name the owner's rule", err)
	}
	if aps, _ := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending}); len(aps) != 0 {
		t.Fatalf("the denied request still waits for approval: %+v", aps)
	}
	if _, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "catfile", Params: map[string]string{"pkg": "README.md"}}); err != nil {
		t.Fatalf("a path outside the folder rule: %v", err)
	}
}

// TestTaskPathThatHoldsADeniedFolderIsRefused: a path parameter left
// empty (its argument drops out: the command works on the whole worktree)
// or naming a folder that holds a denied one is refused, naming the
// folder; the attack run had `grep -rn FIXME {{dir}}` with dir "" or "."
// read secrets/ back. A folder beside it still goes through.
func TestTaskPathThatHoldsADeniedFolderIsRefused(t *testing.T) {
	eng, pm := catfileAgents(t, "", "none")
	ctx := context.Background()
	for _, pkg := range []string{"", ".", "./", "docs/.."} {
		_, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "catfile", Params: map[string]string{"pkg": pkg}})
		if err == nil || !strings.Contains(err.Error(), "reaches acme/webapp/secrets: agent pm-tanaka has no execute access") {
			t.Errorf("pkg=%q: %v; want a denial naming secrets", pkg, err)
		}
	}
	if aps, _ := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending}); len(aps) != 0 {
		t.Fatalf("a denied request still waits for approval: %+v", aps)
	}
	if _, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "catfile", Params: map[string]string{"pkg": "docs"}}); err != nil {
		t.Fatalf("a folder beside the denied one: %v", err)
	}
}

// TestTaskWithoutContextNeedsEveryContext: a task tied to no context could
// touch any of them, so the caller needs execute on all, whatever scope it
// names; before, naming the one context it could write was enough.
func TestTaskWithoutContextNeedsEveryContext(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}, {Type: "repository", Identifier: "acme/payroll"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{"hello": {Command: []string{"echo", "hi"}, TimeoutSec: 30, Isolation: "none", Approval: config.Approval{Required: true}}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	// pm has not discovered eng, whose announce would offer it no task
	// types (the request would then not leave pm): eng's own check is
	// what this tests.
	_, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "hello", ContextScope: []string{"acme/webapp"}})
	// Refused as a task pm may not ask for, without naming acme/payroll:
	// pm may not learn that it exists.
	if err == nil || !strings.Contains(err.Error(), `task_type "hello" is not configured here`) || strings.Contains(err.Error(), "payroll") {
		t.Fatalf("a task tied to no context, asked with one writable context: %v; want it refused without naming acme/payroll", err)
	}
	rows, _ := eng.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka", Method: wire.MethodTaskExecute})
	if len(rows) == 0 || !strings.Contains(string(rows[0].Detail), "no execute access") {
		t.Errorf("the owner's audit row does not say why: %+v", rows)
	}
}

// TestTaskRefusalListsOnlyWhatTheCallerMayRun: an unknown task type is
// refused with the types the caller may ask for, not every one configured
// (the second re-check read "available: branch, global, payroll-run").
func TestTaskRefusalListsOnlyWhatTheCallerMayRun(t *testing.T) {
	eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}, {Type: "repository", Identifier: "acme/payroll"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
		c.Tasks = map[string]config.TaskType{
			"lint":        {Command: []string{"make", "lint"}, Context: "acme/webapp", TimeoutSec: 30, Isolation: "none"},
			"payroll-run": {Command: []string{"make", "pay"}, Context: "acme/payroll", TimeoutSec: 30, Isolation: "none"}}
	})
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	for _, name := range []string{"nosuch", "payroll-run"} {
		_, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: name})
		if err == nil || !strings.Contains(err.Error(), "lint") || strings.Contains(err.Error(), "payroll") && name != "payroll-run" ||
			strings.Contains(err.Error(), "acme/payroll") {
			t.Errorf("task %s: %v; want refused, offering lint alone, naming no payroll context", name, err)
		}
	}
}

// webappAndPayroll is eng-suzuki holding acme/webapp, which PMs may read,
// and acme/payroll, which nobody may.
func webappAndPayroll(t *testing.T) *testAgent {
	return newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
		c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp"}, {Type: "repository", Identifier: "acme/payroll"}}
		c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
			{ID: "pm-read", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "read"}}}
	})
}

// TestRefusalNamesOnlyWhatTheCallerNamed: the re-check's case — a question
// with no context_scope (every context) or "acme" (every acme/…) was
// refused naming acme/payroll, a context the caller may not know of. Now
// only a context the caller named itself is named back.
func TestRefusalNamesOnlyWhatTheCallerNamed(t *testing.T) {
	eng := webappAndPayroll(t)
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	ctx := context.Background()
	for _, scope := range [][]string{nil, {"acme"}} {
		_, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "hello", ContextScope: scope})
		if err == nil || strings.Contains(err.Error(), "payroll") {
			t.Errorf("scope %v: %v; want a refusal that does not name acme/payroll", scope, err)
		}
	}
	_, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "hello", ContextScope: []string{"acme/payroll"}})
	if err == nil || !strings.Contains(err.Error(), "acme/payroll") {
		t.Errorf("named by the caller: %v; want the refusal to name it", err)
	}
}

// TestRefusedEverywhereIsToldToAskTheOwner: a caller no rule lets read any
// context is not told to name contexts (none would do): it is told to ask
// the owner for a rule, naming itself; one that may read some still gets
// the hint to name them.
func TestRefusedEverywhereIsToldToAskTheOwner(t *testing.T) {
	eng := webappAndPayroll(t)
	qa := newTestAgent(t, "qa-ito", "qa", nil)
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, qa)
	pair(eng, pm)
	ctx := context.Background()
	_, err := qa.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "can you share the staging password?"})
	if err == nil || !strings.Contains(err.Error(), "ask its owner to add an ACL rule for qa-ito") || strings.Contains(err.Error(), "name the contexts") {
		t.Errorf("a caller let in nowhere: %v; want to be told to ask the owner for a rule", err)
	}
	_, err = pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "hello"})
	if err == nil || !strings.Contains(err.Error(), "name the contexts you may use") {
		t.Errorf("a caller let into some contexts: %v; want the hint to name them", err)
	}
}

// TestTaskPathIsCheckedAgainWhereItRuns: at the ref a peer asks for, a
// committed symlink can lead a path parameter into a forbidden folder that
// the owner's checkout (what the request was judged against) does not
// have. The run checks the path again where it really leads, and fails.
func TestTaskPathIsCheckedAgainWhereItRuns(t *testing.T) {
	repo := gitRepo(t)
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(filepath.Join(repo, "secrets"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "secrets", "plan.txt"), []byte("launch codes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	git("add", "secrets")
	git("commit", "-q", "-m", "secrets")
	git("checkout", "-q", "-b", "sneaky")
	if err := os.MkdirAll(filepath.Join(repo, "docs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secrets", filepath.Join(repo, "docs", "s")); err != nil {
		t.Fatal(err)
	}
	git("add", "docs")
	git("commit", "-q", "-m", "a link")
	git("checkout", "-q", "main") // the owner's checkout has no docs/s

	eng, pm := catfileAgents(t, repo, "worktree")
	ctx := context.Background()
	// run asks for catfile with pkg at the ref, approves it and waits for
	// its end. aoi's own asker sends no ref: a peer's own client can.
	run := func(pkg string) agent.Task {
		t.Helper()
		var res wire.TaskExecuteResult
		err := rawClient(t, pm, eng).Call(ctx, wire.MethodTaskExecute, wire.TaskExecuteParams{From: "pm-tanaka", To: "eng-suzuki",
			TaskType: "catfile", TaskParams: map[string]any{"pkg": pkg}, Ref: "sneaky"}, &res)
		if err != nil {
			t.Fatalf("the request for %s (judged against the checkout, where docs/s does not exist): %v", pkg, err)
		}
		pending := onePending(t, eng)
		// The owner sees the ref before approving (the re-check's owner
		// did not: `aoi approvals` showed only the params).
		if pending.Plan == nil || pending.Plan.Ref != "sneaky" || len(pending.Plan.RefCommit) != 40 {
			t.Errorf("the approval's plan does not name the ref and the commit it named when asked: %+v", pending.Plan)
		}
		if err := eng.Approve(ctx, agent.ApproveRequest{ID: pending.ID}); err != nil {
			t.Fatal(err)
		}
		return taskEnded(t, eng, res.TaskID)
	}
	if done := run("docs/s/plan.txt"); done.State != agent.TaskFailed || !strings.Contains(done.Error, "leads to acme/webapp/secrets/plan.txt") || strings.Contains(done.Error, "no-secrets") ||
		strings.Contains(string(done.Output), "launch codes") {
		t.Fatalf("task = %s %q %s; want it failed where the path leads", done.State, done.Error, done.Output)
	}
	// The folder holding the link: a command walking it (grep -R) would
	// follow the link (the re-check read secrets/ that way).
	if done := run("docs"); done.State != agent.TaskFailed || !strings.Contains(done.Error, "holds docs/s, a link to acme/webapp/secrets") ||
		strings.Contains(done.Error, "no-secrets") {
		t.Fatalf("task = %s %q; want it failed at the link inside the folder, without naming the owner's rule", done.State, done.Error)
	}
}

// TestRequestFromAPeerNoLongerTrustedIsNotRun: a request asked while the
// peer was trusted is canceled the moment the owner stops trusting that
// peer, so the Approvals queue no longer offers it to one y.
func TestRequestFromAPeerNoLongerTrustedIsNotRun(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	if _, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"}); err != nil {
		t.Fatal(err)
	}
	pending := onePending(t, eng)
	if err := eng.Refuse(ctx, agent.RefuseRequest{Fingerprint: pm.Fingerprint()}); err != nil {
		t.Fatal(err)
	}
	if left, _ := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending}); len(left) != 0 {
		t.Fatalf("still waiting for the owner after refusing its peer: %+v", left)
	}
	err := eng.Approve(ctx, agent.ApproveRequest{ID: pending.ID})
	if err == nil || !strings.Contains(err.Error(), "already canceled") {
		t.Fatalf("approving the untrusted peer's request: %v", err)
	}
	ts, _ := eng.Tasks(ctx, agent.TaskFilter{})
	if len(ts) != 1 || ts[0].State != agent.TaskCanceled || !strings.Contains(ts[0].Error, "pm-tanaka is no longer trusted here") {
		t.Fatalf("tasks = %+v, want the request canceled", ts)
	}
}

// TestRequestsEndWhenAPeerLeavesTheConfig: taking a peer out of the
// config's peers[] and reloading cancels its requests still waiting.
func TestRequestsEndWhenAPeerLeavesTheConfig(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	setPeers := func(peers ...config.Peer) {
		t.Helper()
		cfg, err := config.Load(eng.ConfigPath)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Peers = peers
		if err := config.Write(eng.ConfigPath, cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Reload(ctx); err != nil {
			t.Fatal(err)
		}
	}
	setPeers(config.Peer{AgentID: "pm-tanaka", Fingerprint: pm.Fingerprint(), Role: "pm", Endpoint: pm.Addr()})
	if _, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"}); err != nil {
		t.Fatal(err)
	}
	setPeers()
	if left, _ := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending}); len(left) != 0 {
		t.Fatalf("still waiting after pm-tanaka left the config: %+v", left)
	}
	ts, _ := eng.Tasks(ctx, agent.TaskFilter{})
	if len(ts) != 1 || ts[0].State != agent.TaskCanceled {
		t.Fatalf("tasks = %+v, want the request canceled", ts)
	}
}

// TestReplacingAPeersCertificateEndsWhatItAsked: pinning a new certificate
// for a peer (--replace: its key was lost or taken) cancels the requests
// made under the old one; trusting the same certificate again does not.
func TestReplacingAPeersCertificateEndsWhatItAsked(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	if _, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"}); err != nil {
		t.Fatal(err)
	}
	if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "is the release branch cut?", ContextScope: []string{"acme/webapp"}, Async: true}); err != nil {
		t.Fatal(err)
	}
	onePending(t, eng)
	same := agent.TrustRequest{AgentID: "pm-tanaka", Fingerprint: pm.Fingerprint(), Role: "pm"}
	if err := eng.Trust(ctx, same); err != nil {
		t.Fatal(err)
	}
	onePending(t, eng) // the same certificate again: nothing ends
	newCert := agent.TrustRequest{AgentID: "pm-tanaka", Fingerprint: strings.Repeat("ab", 32), Role: "pm", Replace: true}
	if err := eng.Trust(ctx, newCert); err != nil {
		t.Fatal(err)
	}
	if left, _ := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending}); len(left) != 0 {
		t.Fatalf("still waiting for the owner after its certificate was replaced: %+v", left)
	}
	ts, _ := eng.Tasks(ctx, agent.TaskFilter{})
	if len(ts) != 1 || ts[0].State != agent.TaskCanceled || !strings.Contains(ts[0].Error, "pm-tanaka's certificate was replaced") {
		t.Fatalf("tasks = %+v, want the request canceled", ts)
	}
	// The question too: an answer would go to the new certificate's holder.
	qs, _ := eng.Queries(ctx, agent.QueryFilter{})
	if len(qs) != 1 || qs[0].State != agent.QueryDeclined || !strings.Contains(string(qs[0].Answer), "certificate was replaced") {
		t.Fatalf("queries = %+v, want the question declined", qs)
	}
}

// TestOldCertificatesRequestsEndEveryWay: the re-check's other ways to a
// new certificate end what the old one asked as --replace does: refusing
// the peer and trusting another certificate (its question was left to be
// answered to the new holder), a new fingerprint in the config's peers[]
// at reload, and what waited in the outbox for the old holder.
func TestOldCertificatesRequestsEndEveryWay(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	ask := func(q string) {
		t.Helper()
		if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: q, ContextScope: []string{"acme/webapp"}, Async: true}); err != nil {
			t.Fatal(err)
		}
	}
	waiting := func() int {
		qs, _ := eng.Queries(ctx, agent.QueryFilter{})
		n := 0
		for _, q := range qs {
			if q.State != agent.QueryDeclined && q.State != agent.QueryAnswered {
				n++
			}
		}
		return n
	}
	ask("is the release branch cut?")
	if err := eng.Refuse(ctx, agent.RefuseRequest{Fingerprint: pm.Fingerprint()}); err != nil {
		t.Fatal(err)
	}
	if n := waiting(); n != 0 {
		t.Fatalf("%d questions of a refused peer still wait for an answer", n)
	}
	if err := eng.Trust(ctx, agent.TrustRequest{AgentID: "pm-tanaka", Fingerprint: pm.Fingerprint(), Role: "pm", Endpoint: pm.Addr()}); err != nil {
		t.Fatal(err)
	}
	// In the config: a new fingerprint for pm-tanaka ends its requests.
	ask("and the changelog?")
	if _, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "branch"}); err != nil {
		t.Fatal(err)
	}
	setPeer := func(fp string) {
		t.Helper()
		cfg, err := config.Load(eng.ConfigPath)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Peers = []config.Peer{{AgentID: "pm-tanaka", Fingerprint: fp, Role: "pm", Endpoint: pm.Addr()}}
		if err := config.Write(eng.ConfigPath, cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Reload(ctx); err != nil {
			t.Fatal(err)
		}
	}
	setPeer(pm.Fingerprint())
	if n := waiting(); n != 1 {
		t.Fatalf("%d questions wait before the fingerprint changes, want 1", n)
	}
	setPeer(strings.Repeat("cd", 32))
	if n := waiting(); n != 0 {
		t.Errorf("%d questions still wait after the config changed pm-tanaka's fingerprint", n)
	}
	if left, _ := eng.Approvals(ctx, agent.ApprovalFilter{State: agent.TaskPending}); len(left) != 0 {
		t.Errorf("requests still wait after the config changed pm-tanaka's fingerprint: %+v", left)
	}
}

// TestRequestsAsNotificationsAreRefused: aoi.task.execute and aoi.query
// sent without an id (a JSON-RPC notification) could not be told from
// their own repetition, so they are refused and audited, and nothing
// waits for the owner.
func TestRequestsAsNotificationsAreRefused(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	params := wire.TaskExecuteParams{From: "pm-tanaka", To: "eng-suzuki", TaskType: "branch"}
	for range 3 {
		if err := rawClient(t, pm, eng).Notify(ctx, wire.MethodTaskExecute, params); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 5*time.Second, "the notifications are audited", func() bool {
		rows, _ := eng.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka", Method: wire.MethodTaskExecute})
		return len(rows) == 3 && strings.Contains(string(rows[0].Detail), "needs an id")
	})
	if ts, _ := eng.Tasks(ctx, agent.TaskFilter{}); len(ts) != 0 {
		t.Fatalf("tasks from notifications: %+v", ts)
	}
	// A question sent so has nothing an answer could name: refused too.
	q := wire.QueryParams{From: "pm-tanaka", To: "eng-suzuki", Query: "how is auth going?", ContextScope: []string{"acme/webapp"}}
	if err := rawClient(t, pm, eng).Notify(ctx, wire.MethodQuery, q); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the question is audited", func() bool {
		rows, _ := eng.Audit(ctx, agent.AuditFilter{Agent: "pm-tanaka", Method: wire.MethodQuery})
		return len(rows) == 1 && strings.Contains(string(rows[0].Detail), "needs an id")
	})
	if qs, _ := eng.Queries(ctx, agent.QueryFilter{}); len(qs) != 0 {
		t.Fatalf("questions from notifications: %+v", qs)
	}
}

// TestReplacedCertificateGetsNothingOfTheOld: an answer waiting in the
// outbox for a peer that is offline is dropped when the owner pins another
// certificate for it (the re-check saw it delivered to the new holder).
func TestReplacedCertificateGetsNothingOfTheOld(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	answerStoppedAsker(t, eng, pm)
	if err := eng.Trust(ctx, agent.TrustRequest{AgentID: "pm-tanaka", Fingerprint: strings.Repeat("ef", 32), Role: "pm", Replace: true}); err != nil {
		t.Fatal(err)
	}
	if st, _ := eng.Status(ctx); st.OutboxQueued != 0 {
		t.Errorf("%d entries still wait for pm-tanaka's new certificate", st.OutboxQueued)
	}
}

// TestRefusedPeerGetsNothingQueued: refusing a peer drops what waits in
// the outbox for it (the second re-check refused pm, trusted another
// certificate under its id, and that one received the old answer).
func TestRefusedPeerGetsNothingQueued(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	fp := pm.Fingerprint()
	answerStoppedAsker(t, eng, pm)
	if err := eng.Refuse(ctx, agent.RefuseRequest{Fingerprint: fp}); err != nil {
		t.Fatal(err)
	}
	if st, _ := eng.Status(ctx); st.OutboxQueued != 0 {
		t.Errorf("%d entries still wait for a refused peer", st.OutboxQueued)
	}
}

// answerStoppedAsker has pm ask eng a question, stops pm, and has eng
// answer it: the answer then waits in eng's outbox (checked, so a test
// that expects it dropped cannot pass for its never being there).
func answerStoppedAsker(t *testing.T, eng, pm *testAgent) {
	t.Helper()
	ctx := context.Background()
	if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "is the release branch cut?", ContextScope: []string{"acme/webapp"}, Async: true}); err != nil {
		t.Fatal(err)
	}
	qs, _ := eng.Queries(ctx, agent.QueryFilter{})
	if len(qs) != 1 {
		t.Fatalf("queries = %+v", qs)
	}
	pm.Stop()
	if err := eng.Answer(ctx, agent.AnswerRequest{QueryID: qs[0].ID, Text: "yes, cut on Monday"}); err != nil {
		t.Fatal(err)
	}
	if st, _ := eng.Status(ctx); st.OutboxQueued == 0 {
		t.Fatal("the answer to the stopped peer is not waiting in the outbox")
	}
}

// TestFingerprintChangedWhileStoppedEndsTheOldRequests: a new fingerprint
// written into peers[] while aoi was stopped ends, at the next start, what
// the old certificate asked, as a reload does.
func TestFingerprintChangedWhileStoppedEndsTheOldRequests(t *testing.T) {
	eng, pm := taskAgents(t)
	ctx := context.Background()
	eng.EditConfig(func(c *config.Config) {
		c.Peers = []config.Peer{{AgentID: "pm-tanaka", Fingerprint: pm.Fingerprint(), Role: "pm", Endpoint: pm.Addr()}}
	})
	if _, err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "is the release branch cut?", ContextScope: []string{"acme/webapp"}, Async: true}); err != nil {
		t.Fatal(err)
	}
	eng.Restart(func(c *config.Config) {
		c.Peers = []config.Peer{{AgentID: "pm-tanaka", Fingerprint: strings.Repeat("ab", 32), Role: "pm", Endpoint: pm.Addr()}}
	})
	qs, _ := eng.Queries(ctx, agent.QueryFilter{})
	if len(qs) != 1 || qs[0].State != agent.QueryDeclined || !strings.Contains(string(qs[0].Answer), "certificate was replaced") {
		t.Fatalf("after a restart with a new fingerprint: %+v; want the question declined", qs)
	}
}

// TestWholeTreeTaskLeavesDeniedFoldersOut: a task whose configured
// command walks the whole tree (grep -Rn PATTERN .) takes no path
// parameter to check, so the attack run's grep read secrets/ back. In a
// worktree the places a folder rule keeps the requester from are removed
// before the command runs, with the links leading there or out of the
// worktree; in the owner's own checkout (isolation none), with no context
// or through the coding assistant (an MCP tool) the task fails instead.
func TestWholeTreeTaskLeavesDeniedFoldersOut(t *testing.T) {
	repo := gitRepo(t)
	for name, body := range map[string]string{"secrets/plan.txt": "plan: confidential launch\n", "docs/plan.txt": "plan: public roadmap\n"} {
		if err := os.MkdirAll(filepath.Join(repo, filepath.Dir(name)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"add", "."}, {"commit", "-q", "-m", "plans"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// A committed link out of the repository, and one into secrets/: grep
	// -R would follow both (the re-check read them).
	outside := filepath.Join(t.TempDir(), "home-secret.txt")
	if err := os.WriteFile(outside, []byte("plan: confidential home\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"docs/out": outside, "docs/in": "../secrets"} {
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"add", "docs"}, {"commit", "-q", "-m", "links"}} {
		if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	grep := func(isolation string) config.TaskType {
		return config.TaskType{Command: []string{"grep", "-Rn", "{{pattern}}", "."}, Context: "acme/webapp", TimeoutSec: 30, Isolation: isolation,
			Params: map[string]config.Param{"pattern": {Pattern: "^[a-z]+$"}}, Approval: config.Approval{Required: true}}
	}
	noContext := grep("none")
	noContext.Context, noContext.Command = "", []string{"grep", "-Rn", "{{pattern}}", repo}
	mcpTool := config.TaskType{MCPTool: "echo", Server: "work_ai", Context: "acme/webapp", TimeoutSec: 30, Isolation: "none",
		Arguments: map[string]any{"pattern": "{{pattern}}"}, Params: map[string]config.Param{"pattern": {Pattern: "^[a-z]+$"}},
		Approval: config.Approval{Required: true}}
	// "open worktree": no folder rule keeps pm from anything, and still
	// the link out of the repository goes (git lists it: no walk).
	for name, tt := range map[string]config.TaskType{"worktree": grep("worktree"), "open worktree": grep("worktree"),
		"none": grep("none"), "no context": noContext, "mcp": mcpTool} {
		t.Run(name, func(t *testing.T) {
			eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
				c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
				c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
					{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
				if name != "open worktree" {
					c.ACL.Rules = append(c.ACL.Rules, config.Rule{ID: "no-secrets", AgentID: "*", ScopeType: "folder",
						ScopePattern: "acme/webapp/secrets/**", Permission: "none"})
				}
				c.Tasks = map[string]config.TaskType{"grep": tt}
				if tt.MCPTool != "" {
					c.Secretary.WorkAI.MCPEndpoint = everythingEndpoint(t)
				}
			})
			pm := newTestAgent(t, "pm-tanaka", "pm", nil)
			pair(eng, pm)
			ctx := context.Background()
			pm.Discover(ctx)
			if _, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "grep", Params: map[string]string{"pattern": "plan"}}); err != nil {
				t.Fatal(err)
			}
			pending := onePending(t, eng)
			if err := eng.Approve(ctx, agent.ApproveRequest{ID: pending.ID}); err != nil {
				t.Fatal(err)
			}
			done := onlyTaskEnded(t, eng)
			out := string(done.Output)
			if strings.Contains(out, "confidential home") {
				t.Fatalf("the task read outside the repository: %s %q", done.State, out)
			}
			switch name {
			case "open worktree":
				if done.State != agent.TaskCompleted || !strings.Contains(out, "confidential launch") {
					t.Fatalf("task = %s %q %q; want it run over the whole repository, secrets/ included", done.State, done.Error, out)
				}
				return
			}
			if strings.Contains(out, "confidential") {
				t.Fatalf("the task read secrets/: %s %q", done.State, out)
			}
			switch name {
			case "worktree":
				if done.State != agent.TaskCompleted || !strings.Contains(out, "public roadmap") {
					t.Fatalf("task = %s %q %q; want it run over the rest of the tree", done.State, done.Error, out)
				}
				if _, err := os.Stat(filepath.Join(repo, "secrets", "plan.txt")); err != nil {
					t.Fatalf("the owner's own checkout lost secrets/: %v", err)
				}
			default:
				if done.State != agent.TaskFailed || !strings.Contains(done.Error, `"isolation": "worktree"`) {
					t.Fatalf("task = %s %q; want it refused, saying what to change", done.State, done.Error)
				}
			}
		})
	}
}

// TestWorktreeHidesHistoryFromAKeptRequester: the places a folder rule
// keeps the requester from are left out of the worktree, but every commit
// still holds them, so a configured command that reads history (git log -p)
// read secrets/ back. For such a requester the worktree has no .git and git
// finds no repository above it; the worktree and its branch are still
// cleaned up after. A requester kept from nothing, or only from a folder
// the tree does not hold, keeps the history.
func TestWorktreeHidesHistoryFromAKeptRequester(t *testing.T) {
	// Each case commits secrets/plan.txt, then runs its own git steps.
	deleted := [][]string{{"rm", "-q", "-r", "secrets"}, {"commit", "-q", "-m", "plans moved out"}}
	onABranch := [][]string{{"branch", "plans"}, {"rm", "-q", "-r", "secrets"}, {"commit", "-q", "-m", "plans only on their branch"}}
	for _, c := range []struct {
		name, denied string // denied: the folder rule's place, "" for none
		then         [][]string
		hidden       bool
	}{
		{"kept", "secrets", nil, true},
		{"kept from nothing", "", nil, false},
		{"kept from an absent folder", "private", nil, false},
		{"kept from a folder deleted since", "secrets", deleted, true},
		{"kept from a folder on another branch", "secrets", onABranch, true},
		{"kept from an absent folder, history moved on", "private", deleted, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := gitRepo(t)
			if err := os.MkdirAll(filepath.Join(repo, "secrets"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repo, "secrets", "plan.txt"), []byte("plan: confidential launch\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			steps := append([][]string{{"add", "."}, {"commit", "-q", "-m", "plans"}}, c.then...)
			for _, args := range steps {
				if out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, out)
				}
			}
			denied, hidden := c.denied, c.hidden
			eng := newTestAgent(t, "eng-suzuki", "engineer", func(c *config.Config) {
				c.Contexts = []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}}
				c.ACL = config.ACL{DefaultPermission: "none", Rules: []config.Rule{
					{ID: "pm-exec", AgentRole: "pm", ScopeType: "repository", ScopePattern: "acme/webapp", Permission: "write"}}}
				if denied != "" {
					c.ACL.Rules = append(c.ACL.Rules, config.Rule{ID: "no-" + denied, AgentID: "*", ScopeType: "folder",
						ScopePattern: "acme/webapp/" + denied + "/**", Permission: "none"})
				}
				c.Tasks = map[string]config.TaskType{"history": {Command: []string{"git", "log", "-p"}, Context: "acme/webapp",
					Isolation: "worktree", TimeoutSec: 30, Approval: config.Approval{Required: true}}}
			})
			pm := newTestAgent(t, "pm-tanaka", "pm", nil)
			pair(eng, pm)
			ctx := context.Background()
			pm.Discover(ctx)
			if _, err := pm.RequestTask(ctx, agent.TaskRequest{To: "eng-suzuki", TaskType: "history"}); err != nil {
				t.Fatal(err)
			}
			if err := eng.Approve(ctx, agent.ApproveRequest{ID: onePending(t, eng).ID}); err != nil {
				t.Fatal(err)
			}
			done := onlyTaskEnded(t, eng)
			out := string(done.Output) + done.Error
			switch {
			case hidden && strings.Contains(out, "confidential"):
				t.Fatalf("git log -p read secrets/ from history: %s %q", done.State, out)
			case hidden && done.State != agent.TaskFailed:
				t.Fatalf("task = %s %q; want git to find no repository", done.State, out)
			case !hidden && (done.State != agent.TaskCompleted || !strings.Contains(out, "confidential launch")):
				t.Fatalf("task = %s %q; want the whole history", done.State, out)
			}
			eventually(t, 10*time.Second, "the worktree and its branch are removed", func() bool {
				branches, _ := exec.Command("git", "-C", repo, "branch", "--list", "aoi/task-*").Output()
				worktrees, _ := exec.Command("git", "-C", repo, "worktree", "list").Output()
				return len(strings.TrimSpace(string(branches))) == 0 && strings.Count(string(worktrees), "\n") == 1
			})
		})
	}
}

// onlyTaskEnded waits for eng's one task to end and returns it.
func onlyTaskEnded(t *testing.T, eng *testAgent) agent.Task {
	t.Helper()
	var done agent.Task
	eventually(t, 20*time.Second, "the task ends", func() bool {
		ts, _ := eng.Tasks(context.Background(), agent.TaskFilter{})
		if len(ts) == 1 && ts[0].State != agent.TaskApproved && ts[0].State != agent.TaskInProgress {
			done = ts[0]
			return true
		}
		return false
	})
	return done
}

// taskEnded waits (up to 20 s) for task id on eng to leave pending,
// approved and in progress, and returns it as it ended.
func taskEnded(t *testing.T, eng *testAgent, id string) agent.Task {
	t.Helper()
	var done agent.Task
	eventually(t, 20*time.Second, "the task ends", func() bool {
		ts, _ := eng.Tasks(context.Background(), agent.TaskFilter{})
		for _, tk := range ts {
			if tk.ID == id && tk.State != agent.TaskPending && tk.State != agent.TaskApproved && tk.State != agent.TaskInProgress {
				done = tk
				return true
			}
		}
		return false
	})
	return done
}
