package task

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/store"
)

// sentNotify is one aoi.notify the engine asked the core to send.
type sentNotify struct {
	Requester, Event, RelatedID string
	Data                        Outcome
}

type published struct{ Kind, ID, Agent, Summary string }

// harness is an engine over a real SQLite file, a real git repository and
// real processes; Notify and Publish record what the core would send. The
// loop and the store read a fake clock, which only ticks moves.
type harness struct {
	e       *Engine
	db      *store.DB
	clk     *backoff.Fake
	repo    string
	cfg     *config.Config
	notes   chan sentNotify
	mu      sync.Mutex
	events  []published
	evCh    chan published
	cancel  context.CancelFunc
	dataDir string
}

// writableTestFolders lets the harness's task types write beneath the
// test's temporary folders, where their tests leave markers, pids and
// FIFOs for the test to read: these tests are about the engine, and the
// confinement keeps a task out of them otherwise (its own tests do not use
// the harness's folders).
func writableTestFolders(t *testing.T, tasks map[string]config.TaskType) map[string]config.TaskType {
	root := filepath.Dir(t.TempDir())
	out := make(map[string]config.TaskType, len(tasks))
	for name, tt := range tasks {
		tt.Writable = append(slices.Clip(tt.Writable), root)
		out[name] = tt
	}
	return out
}

func newHarness(t *testing.T, tasks map[string]config.TaskType, mutate ...func(*config.Config)) *harness {
	t.Helper()
	h := &harness{repo: newGoRepo(t), notes: make(chan sentNotify, 100), evCh: make(chan published, 1000), dataDir: t.TempDir(),
		clk: backoff.NewFake(time.Now())}
	h.cfg = &config.Config{
		Contexts:  []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: h.repo}},
		Tasks:     writableTestFolders(t, tasks),
		Approvals: config.Approvals{ExpirySec: 3600},
	}
	for _, m := range mutate {
		m(h.cfg)
	}
	db, err := store.Open(filepath.Join(h.dataDir, "aoi.db"), store.WithClock(h.clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	h.db = db
	h.e = h.engine()
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	if err := h.e.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	h.e.Start(ctx)
	t.Cleanup(func() {
		cancel()
		h.e.Stop()
		db.Close()
	})
	return h
}

func (h *harness) engine() *Engine {
	e := &Engine{
		Store: h.db, Runner: fastRunner(3), DataDir: h.dataDir, Tick: 50 * time.Millisecond,
		Config: func() *config.Config { return h.cfg },
		Notify: func(_ context.Context, requester, event, related string, data any) error {
			var out Outcome
			raw, _ := json.Marshal(data)
			if err := json.Unmarshal(raw, &out); err != nil {
				return err
			}
			h.notes <- sentNotify{requester, event, related, out}
			return nil
		},
		Redact: func(s string) string { return strings.ReplaceAll(s, "SECRET123", "[REDACTED]") },
		Publish: func(kind, id, agent, summary string) {
			h.mu.Lock()
			h.events = append(h.events, published{kind, id, agent, summary})
			h.mu.Unlock()
			select {
			case h.evCh <- published{kind, id, agent, summary}:
			default:
			}
		},
	}
	if h.clk != nil {
		e.Clock = h.clk
	}
	return e
}

// ticks lets the loop sweep n times on its clock: each time it waits
// until the loop is waiting on the clock (its sweep done) and moves the
// clock one Tick; it returns once the last sweep is done.
func (h *harness) ticks(t *testing.T, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := 0; ; i++ {
		if h.clk.Waiting(ctx) == 0 {
			t.Fatalf("the loop did not wait on its clock again within 10s (tick %d)", i)
		}
		if i == n {
			return
		}
		h.clk.Advance(h.e.Tick)
	}
}

func (h *harness) waitNotify(t *testing.T) sentNotify {
	t.Helper()
	select {
	case n := <-h.notes:
		return n
	case <-time.After(60 * time.Second):
		t.Fatal("no notify within 60s")
	}
	return sentNotify{}
}

func (h *harness) sawEvent(kind, id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ev := range h.events {
		if ev.Kind == kind && ev.ID == id {
			return true
		}
	}
	return false
}

func (h *harness) states(t *testing.T, id string) string {
	t.Helper()
	trs, err := h.db.TaskTransitions(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var s []string
	for _, tr := range trs {
		s = append(s, tr.To)
	}
	return strings.Join(s, ">")
}

// newGoRepo is newRepo plus a tiny Go module with a passing test and a
// failing one that prints its directory and a secret.
func newGoRepo(t *testing.T) string {
	repo := newRepo(t)
	writeFile(t, filepath.Join(repo, "go.mod"), "module example.com/webapp\n\ngo 1.21\n")
	writeFile(t, filepath.Join(repo, "calc_test.go"), `package webapp
import ("os"; "testing")
func TestOK(t *testing.T) {}
func TestBad(t *testing.T) { wd, _ := os.Getwd(); t.Errorf("in %s: token=SECRET123 want 2 got 3", wd) }
`)
	gitT(t, repo, "add", "go.mod", "calc_test.go")
	gitT(t, repo, "commit", "-q", "-m", "tests")
	return repo
}

func runTestsTask() config.TaskType {
	return config.TaskType{
		Command:    []string{"go", "test", "-json", "{{suite}}"},
		Context:    "acme/webapp",
		Params:     map[string]config.Param{"suite": {Default: "./...", Pattern: `^\./[A-Za-z0-9_./-]*$`}},
		TimeoutSec: 120, Isolation: config.IsolationWorktree, Output: config.OutputGoTestJSON,
		Approval: config.Approval{Required: true},
	}
}

// TestRefNeedsTheOwnersLeave: a ref's code runs as the owner, so a
// worktree task takes one only when its type says allow_ref; without it
// the request is refused before anything waits for approval, naming the
// setting.
func TestRefNeedsTheOwnersLeave(t *testing.T) {
	allowed := runTestsTask()
	allowed.AllowRef = true
	h := newHarness(t, map[string]config.TaskType{"run_tests": runTestsTask(), "run_branch": allowed})
	ctx := context.Background()
	_, err := h.e.Submit(ctx, Request{From: "pm-tanaka", TaskType: "run_tests", Ref: "main"})
	var pe *ParamError
	// A worktree task runs in a worktree of its own, never in the owner's
	// checkout: the refusal says what a ref would change (whose code runs).
	if !errors.As(err, &pe) || pe.Field != "ref" || !strings.Contains(err.Error(), "allow_ref") || strings.Contains(err.Error(), "checkout") {
		t.Fatalf("a ref without allow_ref: %v, want a ref error naming allow_ref, not the owner's checkout", err)
	}
	if n, _ := h.db.CountApprovals(ctx, ""); n != 0 {
		t.Fatalf("%d approvals stored for a refused ref", n)
	}
	if _, err := h.e.Submit(ctx, Request{From: "pm-tanaka", TaskType: "run_branch", Ref: "main"}); err != nil {
		t.Fatalf("a ref with allow_ref: %v", err)
	}
}

// TestRefRunsTheCommitItNamedWhenAsked: the re-check moved the branch
// between the request and the approval, and the new commit ran. The
// commit the ref named when the peer asked is stored, shown with the
// approval, and what the worktree is made of.
func TestRefRunsTheCommitItNamedWhenAsked(t *testing.T) {
	showRef := config.TaskType{Command: []string{"git", "log", "-1", "--format=ran %H"}, Context: "acme/webapp", TimeoutSec: 30,
		Isolation: config.IsolationWorktree, AllowRef: true, Approval: config.Approval{Required: true}}
	h := newHarness(t, map[string]config.TaskType{"showref": showRef})
	ctx := context.Background()
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", h.repo}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	asked := git("rev-parse", "main")
	task, err := h.e.Submit(ctx, Request{RequestID: "req-pin", From: "pm-tanaka", TaskType: "showref", Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if task.RefCommit != asked {
		t.Fatalf("pinned commit %q, want %q (main when asked)", task.RefCommit, asked)
	}
	git("commit", "-q", "--allow-empty", "-m", "pushed after the request")
	a, _, _ := h.db.ApprovalForTask(ctx, task.ID)
	if err := h.e.Approve(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	n := h.waitNotify(t)
	if !strings.Contains(n.Data.OutputTail, "ran "+asked) {
		t.Fatalf("the task ran %q, want the commit main named when asked (%s)", n.Data.OutputTail, asked)
	}
}

func TestEngineApproveRunsInWorktree(t *testing.T) {
	h := newHarness(t, map[string]config.TaskType{"run_tests": runTestsTask()})
	ctx := context.Background()
	before := snapshotOwner(t, h.repo)

	task, err := h.e.Submit(ctx, Request{RequestID: "req-1", From: "pm-tanaka", FromRole: "pm", TaskType: "run_tests",
		Params: map[string]any{"suite": "./..."}, MatchedRule: "pm-run-tests"})
	if err != nil {
		t.Fatal(err)
	}
	if task.State != StatePending {
		t.Fatalf("state = %s, want pending", task.State)
	}
	a, ok, _ := h.db.ApprovalForTask(ctx, task.ID)
	if !ok || a.State != StatePending || a.MatchedRule != "pm-run-tests" || a.Requester != "pm-tanaka" ||
		a.Params["suite"] != "./..." || !a.ExpiresAt.After(a.CreatedAt) {
		t.Fatalf("approval = %+v", a)
	}
	if !h.sawEvent(EventApprovalRequested, a.ID) {
		t.Fatal("no approval.requested event")
	}
	h.ticks(t, 3) // nothing may run unapproved
	if st, _ := h.e.Status(ctx, task.ID, ""); st.State != StatePending {
		t.Fatalf("unapproved task moved to %s", st.State)
	}
	if err := h.e.Approve(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := h.e.Approve(ctx, a.ID); err == nil {
		t.Fatal("approving twice must fail")
	}
	n := h.waitNotify(t)
	if n.Event != NotifyFailed || n.Requester != "pm-tanaka" || n.RelatedID != "req-1" {
		t.Fatalf("notify = %+v", n)
	}
	d := n.Data
	if d.TaskID != task.ID || d.Status != StateFailed || d.ExitCode == nil || *d.ExitCode != 1 || d.Output == nil {
		t.Fatalf("notify data = %+v", d)
	}
	if d.Output.Run != 2 || d.Output.Passed != 1 || d.Output.Failed != 1 || d.Output.Failures[0].Test != "TestBad" {
		t.Fatalf("counts = %+v", d.Output)
	}
	wt := filepath.Join(h.dataDir, "worktrees", task.ID)
	if !strings.Contains(d.Output.Failures[0].Message, "in "+wt) {
		t.Fatalf("the test did not run in the worktree %s: %q", wt, d.Output.Failures[0].Message)
	}
	if strings.Contains(d.OutputTail, "SECRET123") || strings.Contains(d.Output.Failures[0].Message, "SECRET123") ||
		!strings.Contains(d.OutputTail, "[REDACTED]") || len(d.OutputTail) > MaxNotifyTail {
		t.Fatalf("output not redacted/bounded: %q", d.OutputTail)
	}
	if got := h.states(t, task.ID); got != "pending>approved>in_progress>failed" {
		t.Fatalf("transitions = %s", got)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatal("the worktree was not removed")
	}
	if out := gitT(t, h.repo, "branch", "--list", "aoi/*"); out != "" {
		t.Fatalf("task branch left: %s", out)
	}
	if after := snapshotOwner(t, h.repo); after != before {
		t.Fatalf("owner's tree changed:\nbefore %+v\nafter  %+v", before, after)
	}
	assertAudit(t, h.db, "task.request", "approval.decide", "task.start", "task.finish")
}

func assertAudit(t *testing.T, db *store.DB, methods ...string) {
	t.Helper()
	rows, err := db.AuditList(context.Background(), store.AuditQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r.Method] = true
	}
	for _, m := range methods {
		if !seen[m] {
			t.Errorf("no %s row in the audit log", m)
		}
	}
	if v, err := db.VerifyAudit(context.Background()); err != nil || !v.OK {
		t.Fatalf("audit chain: %+v, %v", v, err)
	}
}

func TestEngineCompletedAutoApproved(t *testing.T) {
	tt := runTestsTask()
	tt.Command = []string{"go", "test", "-json", "-run", "TestOK", "{{suite}}"}
	tt.Approval = config.Approval{Required: true, Auto: []config.AutoRule{{FromAgent: "pm-*"}}}
	h := newHarness(t, map[string]config.TaskType{"run_tests": tt})
	task, err := h.e.Submit(context.Background(), Request{RequestID: "9", From: "pm-tanaka", FromRole: "pm", TaskType: "run_tests"})
	if err != nil || task.State != StateApproved {
		t.Fatalf("submit: %+v, %v", task, err)
	}
	n := h.waitNotify(t)
	if n.Event != NotifyCompleted || n.Data.Status != StateCompleted || *n.Data.ExitCode != 0 || n.Data.Output.Passed != 1 {
		t.Fatalf("notify = %+v", n)
	}
	a, _, _ := h.db.ApprovalForTask(context.Background(), task.ID)
	if a.State != StateApproved || a.DecidedBy != "approval.auto[0]" {
		t.Fatalf("approval = %+v", a)
	}
}

// touchTask runs `touch <marker>` (a marker the test checks for) without
// asking... unless approval says otherwise.
func touchTask(marker string, approval config.Approval) config.TaskType {
	return config.TaskType{Command: []string{"touch", marker}, TimeoutSec: 10, Isolation: config.IsolationNone, Approval: approval}
}

func TestEngineReject(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	h := newHarness(t, map[string]config.TaskType{"touch": touchTask(marker, config.Approval{Required: true})})
	ctx := context.Background()
	task, err := h.e.Submit(ctx, Request{RequestID: "r", From: "pm-tanaka", TaskType: "touch"})
	if err != nil {
		t.Fatal(err)
	}
	a, _, _ := h.db.ApprovalForTask(ctx, task.ID)
	if err := h.e.Reject(ctx, a.ID, "not during the release"); err != nil {
		t.Fatal(err)
	}
	n := h.waitNotify(t)
	if n.Event != NotifyFailed || n.Data.Status != StateRejected || n.Data.Code != CodeApprovalDenied ||
		!strings.Contains(n.Data.Error, "not during the release") {
		t.Fatalf("notify = %+v", n)
	}
	if err := h.e.Approve(ctx, a.ID); err == nil {
		t.Fatal("approving a rejected approval must fail")
	}
	h.ticks(t, 3)
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatal("a rejected task ran")
	}
	if got := h.states(t, task.ID); got != "pending>rejected" {
		t.Fatalf("transitions = %s", got)
	}
	if !h.sawEvent(EventApprovalDecided, a.ID) {
		t.Fatal("no approval.decided event")
	}
	// The audit row's result is the decision: a rejection does not read "ok".
	rows, err := h.db.AuditList(ctx, store.AuditQuery{Method: "approval.decide", Limit: 5})
	if err != nil || len(rows) != 1 || rows[0].Result != StateRejected {
		t.Fatalf("approval.decide rows = %+v, %v; want one with result rejected", rows, err)
	}
}

func TestEngineExpiry(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	h := newHarness(t, map[string]config.TaskType{"touch": touchTask(marker, config.Approval{Required: true})},
		func(c *config.Config) { c.Approvals.ExpirySec = 1 })
	task, err := h.e.Submit(context.Background(), Request{RequestID: "x", From: "pm-tanaka", TaskType: "touch"})
	if err != nil {
		t.Fatal(err)
	}
	h.ticks(t, 2)
	if a, _, _ := h.db.ApprovalForTask(context.Background(), task.ID); a.State != StatePending {
		t.Fatalf("the approval is %s before its second has passed on the clock", a.State)
	}
	h.clk.Advance(time.Second)
	n := h.waitNotify(t)
	// The summary says why once: not "touch expired: expired".
	if !strings.HasPrefix(n.Data.Summary, "touch expired: the owner did not approve touch before") {
		t.Errorf("expiry summary %q", n.Data.Summary)
	}
	if n.Data.Status != StateExpired || n.Data.Code != CodeApprovalDenied || n.RelatedID != "x" {
		t.Fatalf("notify = %+v", n)
	}
	a, _, _ := h.db.ApprovalForTask(context.Background(), task.ID)
	if a.State != StateExpired || a.DecidedBy != "system" || !h.sawEvent(EventApprovalExpired, a.ID) {
		t.Fatalf("approval = %+v", a)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatal("an expired task ran")
	}
}

func sleeperTask(pidFile string, timeout int) config.TaskType {
	return config.TaskType{Command: []string{"sh", "-c", `sleep 30 & echo $! > "$1"; wait`, "sh", pidFile},
		TimeoutSec: timeout, Isolation: config.IsolationNone, Approval: config.Approval{}}
}

func waitPid(t *testing.T, pidFile string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var pid int
		if b, err := os.ReadFile(pidFile); err == nil {
			if _, err := fmt.Sscan(string(b), &pid); err == nil {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the task never started")
	return 0
}

func TestEngineCancelRunning(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	h := newHarness(t, map[string]config.TaskType{"sleep": sleeperTask(pidFile, 60)})
	ctx := context.Background()
	task, err := h.e.Submit(ctx, Request{RequestID: "c", From: "pm-tanaka", TaskType: "sleep"})
	if err != nil {
		t.Fatal(err)
	}
	pid := waitPid(t, pidFile)
	var nf *NotFoundError
	if err := h.e.Cancel(ctx, task.ID, "pm-other"); !errors.As(err, &nf) {
		t.Fatalf("cancel by someone else: %v, want not found", err)
	}
	if err := h.e.Cancel(ctx, task.ID, "pm-tanaka"); err != nil {
		t.Fatal(err)
	}
	n := h.waitNotify(t)
	if n.Event != NotifyFailed || n.Data.Status != StateCanceled {
		t.Fatalf("notify = %+v", n)
	}
	waitGone(t, pid)
	if got := h.states(t, task.ID); got != "pending>approved>in_progress>canceled" {
		t.Fatalf("transitions = %s", got)
	}
	if err := h.e.Cancel(ctx, task.ID, "pm-tanaka"); err == nil {
		t.Fatal("canceling a finished task must fail")
	}
}

func TestEngineCancelPending(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	h := newHarness(t, map[string]config.TaskType{"touch": touchTask(marker, config.Approval{Required: true})})
	ctx := context.Background()
	task, _ := h.e.Submit(ctx, Request{From: "pm-tanaka", TaskType: "touch"})
	if err := h.e.Cancel(ctx, task.ID, "pm-tanaka"); err != nil {
		t.Fatal(err)
	}
	if n := h.waitNotify(t); n.Data.Status != StateCanceled || n.Data.Code != 0 {
		t.Fatalf("notify = %+v", n)
	}
	a, _, _ := h.db.ApprovalForTask(ctx, task.ID)
	if a.State != StateCanceled {
		t.Fatalf("approval = %+v", a)
	}
}

func TestEngineTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	h := newHarness(t, map[string]config.TaskType{"sleep": sleeperTask(pidFile, 1)})
	task, err := h.e.Submit(context.Background(), Request{From: "pm-tanaka", TaskType: "sleep"})
	if err != nil {
		t.Fatal(err)
	}
	pid := waitPid(t, pidFile)
	n := h.waitNotify(t)
	if n.Data.Status != StateFailed || !strings.Contains(n.Data.Error, "timed out") || n.Data.ExitCode != nil {
		t.Fatalf("notify = %+v", n)
	}
	waitGone(t, pid)
	if st, _ := h.e.Wait(context.Background(), task.ID); st.State != StateFailed {
		t.Fatalf("state = %s", st.State)
	}
}

// TestEngineInjectionNothingStored: refused requests store nothing, ring
// no one and run nothing.
func TestEngineInjectionNothingStored(t *testing.T) {
	pwned := filepath.Join(t.TempDir(), "pwned")
	h := newHarness(t, map[string]config.TaskType{"run_tests": runTestsTask()})
	ctx := context.Background()
	bad := []Request{
		{TaskType: "run_tests", Params: map[string]any{"suite": "./...; touch " + pwned}},
		{TaskType: "run_tests", Params: map[string]any{"suite": "$(touch " + pwned + ")"}},
		{TaskType: "run_tests", Params: map[string]any{"suite": "../../etc"}},
		{TaskType: "run_tests", Params: map[string]any{"suite": "-exec=touch " + pwned}},
		{TaskType: "run_tests", Params: map[string]any{"cwd": "/"}},
		{TaskType: "run_tests", Params: map[string]any{"extra": "1"}},
		{TaskType: "run_tests", Ref: "nope"},
		{TaskType: "run_tests", Ref: "--upload-pack=touch " + pwned},
		{TaskType: "sh"},
	}
	for _, req := range bad {
		req.From = "pm-tanaka"
		_, err := h.e.Submit(ctx, req)
		var pe *ParamError
		var ue *UnknownTaskTypeError
		if !errors.As(err, &pe) && !errors.As(err, &ue) {
			t.Errorf("%+v: err = %v, want an INVALID_PARAMS error", req, err)
		}
	}
	h.ticks(t, 3)
	if n, _ := h.db.CountApprovals(ctx, ""); n != 0 {
		t.Fatalf("%d approvals stored for refused requests", n)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.events) != 0 {
		t.Fatalf("events published for refused requests: %+v", h.events)
	}
	if _, err := os.Stat(pwned); !os.IsNotExist(err) {
		t.Fatal("an injection attempt ran")
	}
}

func TestEngineNonGitWorktreeIsConfigError(t *testing.T) {
	h := newHarness(t, map[string]config.TaskType{"run_tests": runTestsTask()},
		func(c *config.Config) { c.Contexts[0].LocalPath = os.TempDir() })
	_, err := h.e.Submit(context.Background(), Request{From: "pm-tanaka", TaskType: "run_tests"})
	if err == nil || !strings.Contains(err.Error(), "not a git repository") {
		t.Fatalf("err = %v", err)
	}
}

// TestUnknownTaskAdviceFitsWhoAsks: the owner asking about an unknown task
// is pointed at `aoi tasks`; a peer (the requester) is told the id it
// gave matches none of its own requests, since the owner's list is not
// theirs to run.
func TestUnknownTaskAdviceFitsWhoAsks(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	if _, err := h.e.Status(ctx, "tnope", ""); err == nil || !strings.Contains(err.Error(), "list them with `aoi tasks`") {
		t.Errorf("the owner's unknown task: %v", err)
	}
	_, err := h.e.Status(ctx, "tnope", "pm-tanaka")
	if err == nil || strings.Contains(err.Error(), "aoi tasks") || !strings.Contains(err.Error(), "not found among the tasks you asked this agent for") {
		t.Errorf("a peer's unknown task: %v", err)
	}
}

// TestEnginePendingPerPeerIsBounded: a peer sending requests in a loop gets
// at most maxWaitingPerPeer waiting for the owner; the next is refused,
// saying why, and another peer's request still waits as usual.
func TestEnginePendingPerPeerIsBounded(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	h := newHarness(t, map[string]config.TaskType{"touch": touchTask(marker, config.Approval{Required: true})})
	ctx := context.Background()
	for i := range maxWaitingPerPeer {
		if _, err := h.e.Submit(ctx, Request{RequestID: fmt.Sprint("r", i), From: "mallory", TaskType: "touch"}); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	_, err := h.e.Submit(ctx, Request{RequestID: "one-more", From: "mallory", TaskType: "touch"})
	if !errors.Is(err, errs.ErrConflict) || !strings.Contains(err.Error(), "already wait for the owner's approval") ||
		!strings.Contains(err.Error(), "`aoi task cancel AGENT TASK_ID`") {
		t.Fatalf("request past the bound: %v", err)
	}
	if _, err := h.e.Submit(ctx, Request{RequestID: "r", From: "pm-tanaka", TaskType: "touch"}); err != nil {
		t.Fatalf("another peer's request: %v", err)
	}
}

// TestEngineQueuedPerPeerIsBounded: requests a rule approves at once wait
// for a slot to run in; a peer sending them in a loop gets at most
// maxWaitingPerPeer waiting, the next is refused, saying why, and another
// peer's request is still taken (the attack run found no bound there).
func TestEngineQueuedPerPeerIsBounded(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	h := newHarness(t, map[string]config.TaskType{"touch": touchTask(marker, config.Approval{Required: false})})
	h.cancel() // the engine stops: every approved task waits for a slot
	h.e.Stop()
	ctx := context.Background()
	for i := range maxWaitingPerPeer {
		if _, err := h.e.Submit(ctx, Request{RequestID: fmt.Sprint("r", i), From: "mallory", TaskType: "touch"}); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	_, err := h.e.Submit(ctx, Request{RequestID: "one-more", From: "mallory", TaskType: "touch"})
	if !errors.Is(err, errs.ErrConflict) || !strings.Contains(err.Error(), "wait for a slot to run in") ||
		!strings.Contains(err.Error(), "`aoi task cancel AGENT TASK_ID`") {
		t.Fatalf("request past the bound: %v", err)
	}
	if _, err := h.e.Submit(ctx, Request{RequestID: "r", From: "pm-tanaka", TaskType: "touch"}); err != nil {
		t.Fatalf("another peer's request: %v", err)
	}
}

// TestEngineRepeatedRequestIsOneTask: a request repeated with its id,
// type and params within Repeats is answered with the task it asked for
// first, whatever the peer server's memory holds: the attack run sent an
// auto-approved request again after the agent restarted and it ran twice.
// Other params, another requester, or a repeat past the window is a new
// task.
func TestEngineRepeatedRequestIsOneTask(t *testing.T) {
	echo := config.TaskType{Command: []string{"echo", "{{msg}}"}, Params: map[string]config.Param{"msg": {}},
		TimeoutSec: 10, Isolation: config.IsolationNone, Approval: config.Approval{Required: true}}
	h := newHarness(t, map[string]config.TaskType{"echo": echo})
	ctx := context.Background()
	req := Request{RequestID: "r-1", From: "pm-tanaka", TaskType: "echo", Params: map[string]any{"msg": "hi"}, Repeats: 10 * time.Minute}
	first, err := h.e.Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := h.e.Submit(ctx, req)
	if err != nil || again.ID != first.ID || again.State != StatePending {
		t.Fatalf("the same request again: %+v, %v; want task %s", again, err, first.ID)
	}
	rows, err := h.db.AuditList(ctx, store.AuditQuery{Limit: 1})
	if err != nil || len(rows) != 1 || rows[0].Method != "task.request" || rows[0].Result != "repeated" || !strings.Contains(string(rows[0].Detail), first.ID) {
		t.Fatalf("the repeat's audit row: %+v, %v; want task.request repeated naming %s", rows, err, first.ID)
	}
	other := req
	other.Params = map[string]any{"msg": "bye"}
	fromQA := req
	fromQA.From = "qa-sato"
	for name, r := range map[string]Request{"other params": other, "another requester": fromQA} {
		if got, err := h.e.Submit(ctx, r); err != nil || got.ID == first.ID {
			t.Fatalf("%s: %+v, %v; want a new task", name, got, err)
		}
	}
	h.clk.Advance(11 * time.Minute)
	if got, err := h.e.Submit(ctx, req); err != nil || got.ID == first.ID {
		t.Fatalf("the same request past the window: %+v, %v; want a new task", got, err)
	}
	tasks, err := h.db.Tasks(ctx, store.TaskQuery{Requester: "pm-tanaka"})
	if err != nil || len(tasks) != 3 {
		t.Fatalf("pm-tanaka's tasks: %d, %v; want 3 (hi, bye, hi past the window)", len(tasks), err)
	}
}

// TestEngineCancelsRequestsOfPeersNoLongerTrusted: CancelUntrusted cancels
// only the untrusted peer's waiting requests, and an approval that races
// it (the peer stopped being trusted after the sweep) cancels, never runs.
func TestEngineCancelsRequestsOfPeersNoLongerTrusted(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	// eve's task sleeps: a task that ends at once could complete between
	// its approval and the sweep, and a completed task cannot be canceled.
	slow := sleeperTask(filepath.Join(t.TempDir(), "pid"), 60)
	slow.Approval = config.Approval{Required: true}
	h := newHarness(t, map[string]config.TaskType{"touch": touchTask(marker, config.Approval{Required: true}), "slow": slow})
	ctx := context.Background()
	trusted := map[string]bool{"mallory": true, "pm-tanaka": true}
	h.e.Trusted = func(id string) bool { return trusted[id] }
	var approvals []string
	for _, from := range []string{"mallory", "mallory", "pm-tanaka"} {
		task, err := h.e.Submit(ctx, Request{RequestID: fmt.Sprint("r", len(approvals)), From: from, TaskType: "touch"})
		if err != nil {
			t.Fatal(err)
		}
		a, _, _ := h.db.ApprovalForTask(ctx, task.ID)
		approvals = append(approvals, a.ID)
	}
	trusted["mallory"] = false
	if n, err := h.e.CancelUntrusted(ctx); err != nil || n != 2 {
		t.Fatalf("CancelUntrusted = %d, %v; want mallory's 2", n, err)
	}
	if a, _, _ := h.db.Approval(ctx, approvals[2]); a.State != StatePending {
		t.Fatalf("pm-tanaka's request is %s, want still pending", a.State)
	}
	trusted["pm-tanaka"] = false // after the sweep, before the owner's y
	err := h.e.Approve(ctx, approvals[2])
	if !errors.Is(err, errs.ErrConflict) || !strings.Contains(err.Error(), "pm-tanaka is no longer trusted here") {
		t.Fatalf("approving a request of a peer no longer trusted: %v", err)
	}
	h.ticks(t, 3)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the task of a peer no longer trusted ran")
	}
	if a, _, _ := h.db.Approval(ctx, approvals[2]); a.State != StateCanceled {
		t.Fatalf("pm-tanaka's request is %s, want canceled", a.State)
	}
	// Approved and waiting for a slot when its requester stops being
	// trusted: canceled, never run (the re-check saw one run 7 s later).
	trusted["eve"] = true
	task, err := h.e.Submit(ctx, Request{RequestID: "r-eve", From: "eve", TaskType: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	a, _, _ := h.db.ApprovalForTask(ctx, task.ID)
	if err := h.e.Approve(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	trusted["eve"] = false
	if n, err := h.e.CancelUntrusted(ctx); err != nil || n != 1 {
		t.Fatalf("CancelUntrusted with eve's approved task = %d, %v; want 1", n, err)
	}
	// The loop may have started it meanwhile: then it is killed, and its
	// end follows the process.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasSuffix(h.states(t, task.ID), ">canceled") {
		if time.Now().After(deadline) {
			t.Fatalf("eve's task went %s, want it canceled", h.states(t, task.ID))
		}
		h.ticks(t, 1)
	}
}
