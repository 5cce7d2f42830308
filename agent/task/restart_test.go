package task

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// TestMain lets the test binary double as an agent that gets killed with
// SIGKILL in TestEngineRestart, and as a task's reaper.
func TestMain(m *testing.M) {
	ReapIfAsked()
	if os.Getenv("AOI_TASK_CRASH_HELPER") == "1" {
		if err := crashHelper(); err != nil {
			fmt.Fprintln(os.Stderr, "crash helper:", err)
			os.Exit(2)
		}
		return
	}
	os.Exit(m.Run())
}

func restartConfig(repo, marker, pidFile string) *config.Config {
	sleep := sleeperTask(pidFile, 120)
	sleep.Isolation, sleep.Context = config.IsolationWorktree, "acme/webapp"
	// The tasks leave their marker and pid in a folder beside the data dir.
	touch := touchTask(marker, config.Approval{Required: true})
	touch.Writable = []string{filepath.Dir(marker)}
	sleep.Writable = []string{filepath.Dir(pidFile)}
	return &config.Config{
		Contexts: []config.Context{{Type: "repository", Identifier: "acme/webapp", LocalPath: repo}},
		Tasks: map[string]config.TaskType{
			"touch": touch,
			"sleep": sleep,
		},
		Approvals: config.Approvals{ExpirySec: 3600},
	}
}

// crashHelper runs an agent with one pending approval and one running task,
// says "ready" and waits to be killed.
func crashHelper() error {
	dataDir, repo := os.Getenv("AOI_DATA"), os.Getenv("AOI_REPO")
	marker, pidFile := os.Getenv("AOI_MARKER"), os.Getenv("AOI_PIDFILE")
	db, err := store.Open(filepath.Join(dataDir, "aoi.db"))
	if err != nil {
		return err
	}
	cfg := restartConfig(repo, marker, pidFile)
	e := &Engine{Store: db, Runner: NewRunner(2, RunnerOptions{}), DataDir: dataDir, Tick: 20 * time.Millisecond,
		Config: func() *config.Config { return cfg }}
	ctx := context.Background()
	e.Start(ctx)
	if _, err := e.Submit(ctx, Request{RequestID: "keep", From: "pm-tanaka", TaskType: "touch"}); err != nil {
		return err
	}
	if _, err := e.Submit(ctx, Request{RequestID: "run", From: "pm-tanaka", TaskType: "sleep"}); err != nil {
		return err
	}
	for range 1000 {
		if b, _ := os.ReadFile(pidFile); len(b) > 0 {
			fmt.Println("ready")
			select {}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("the task never started")
}

func TestEngineRestart(t *testing.T) {
	repo := newRepo(t)
	dir := t.TempDir()
	// The tasks write their marker and pid in a folder beside the data
	// dir, not in the folder holding it: a writable folder that holds the
	// data dir lets a task make no new entry in it (writeRules).
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o700); err != nil {
		t.Fatal(err)
	}
	dataDir, marker, pidFile := filepath.Join(dir, "data"), filepath.Join(out, "ran"), filepath.Join(out, "pid")
	before := snapshotOwner(t, repo)

	// 1. An agent runs a task in a worktree and holds a pending approval,
	//    then dies with SIGKILL.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "AOI_TASK_CRASH_HELPER=1", "AOI_DATA="+dataDir, "AOI_REPO="+repo,
		"AOI_MARKER="+marker, "AOI_PIDFILE="+pidFile)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		if strings.TrimSpace(line) != "ready" {
			t.Fatalf("helper said %q", line)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("helper agent never got ready")
	}
	grandchild := waitPid(t, pidFile)
	cmd.Process.Kill()
	cmd.Wait()
	if !alive(grandchild) {
		t.Fatal("test setup: the task's process should outlive the killed agent")
	}

	// 2. A new agent on the same data dir recovers.
	db, err := store.Open(filepath.Join(dataDir, "aoi.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	auditBefore, _ := db.AuditCount(ctx)
	running, _ := db.TasksInStates(ctx, StateInProgress)
	if len(running) != 1 {
		t.Fatalf("%d tasks in progress after the crash, want 1", len(running))
	}
	h := &harness{db: db, repo: repo, dataDir: dataDir, notes: make(chan sentNotify, 10), evCh: make(chan published, 100),
		cfg: restartConfig(repo, marker, pidFile)}
	h.e = h.engine()
	if err := h.e.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	n := h.waitNotify(t)
	if n.RelatedID != "run" || n.Event != NotifyFailed || !strings.Contains(n.Data.Error, "restarted") {
		t.Fatalf("notify = %+v", n)
	}
	waitGone(t, grandchild)
	if _, err := os.Stat(filepath.Join(dataDir, "worktrees", running[0].ID)); !os.IsNotExist(err) {
		t.Fatal("the crashed task's worktree is still there")
	}
	if out := gitT(t, repo, "branch", "--list", "aoi/*"); out != "" {
		t.Fatalf("task branch left: %s", out)
	}
	if after := snapshotOwner(t, repo); after != before {
		t.Fatalf("owner's tree changed:\nbefore %+v\nafter  %+v", before, after)
	}

	// 3. The pending approval came back and still works.
	pending, _ := db.Approvals(ctx, StatePending, 0)
	if len(pending) != 1 || pending[0].TaskType != "touch" {
		t.Fatalf("pending approvals after restart = %+v", pending)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer func() { cancel(); h.e.Stop() }()
	h.e.Start(runCtx)
	if err := h.e.Approve(ctx, pending[0].ID); err != nil {
		t.Fatal(err)
	}
	if n := h.waitNotify(t); n.RelatedID != "keep" || n.Event != NotifyCompleted {
		t.Fatalf("notify = %+v", n)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the approved task did not run after the restart")
	}
	// Nothing was lost from the audit log, and the chain still verifies.
	auditAfter, _ := db.AuditCount(ctx)
	if auditBefore < 3 || auditAfter < auditBefore+3 {
		t.Fatalf("audit rows before %d, after %d", auditBefore, auditAfter)
	}
	assertAudit(t, db, "task.request", "task.start", "task.finish", "approval.decide")
}
