package task

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/internal/utf8cut"
	"github.com/aoi-protocol/aoi/store"
)

// Start runs the engine's loop until ctx ends: it expires approvals, runs
// approved tasks and resends owed notifies. Call Recover before Start, and
// Stop after ctx has ended to wait for running tasks to wind down.
func (e *Engine) Start(ctx context.Context) {
	e.init()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		e.loop(ctx)
	}()
}

// Stop waits until the loop and every task goroutine have returned (their
// processes are killed when Start's ctx ends).
func (e *Engine) Stop() { e.wg.Wait() }

func (e *Engine) loop(ctx context.Context) {
	every := e.Tick
	if every <= 0 {
		every = time.Second
	}
	clock := e.Clock
	if clock == nil {
		clock = backoff.Real
	}
	// One wait at a time, armed after the sweep: a poke sweeps at once
	// without moving the next tick, and a test on a fake clock sees the
	// loop waiting only once its sweep is done.
	var tick <-chan time.Time
	for {
		e.sweep(ctx)
		if tick == nil {
			tick = clock.After(every)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick:
			tick = nil
		case <-e.wake:
		}
	}
}

// sweep does one round of the loop's work.
func (e *Engine) sweep(ctx context.Context) {
	expired, err := e.Store.ExpiredApprovals(ctx, e.Store.Now(), 100)
	if ctx.Err() != nil {
		return // shutting down
	}
	if err != nil {
		e.log().Warn("task: listing expired approvals failed", "err", err)
	}
	for _, a := range expired {
		if err := e.expire(ctx, a); err != nil {
			e.log().Warn("task: expiring approval failed", "approval", a.ID, "err", err)
		}
	}
	approved, err := e.Store.TasksInStates(ctx, StateApproved)
	if err != nil {
		e.log().Warn("task: listing approved tasks failed", "err", err)
	}
	for _, t := range approved {
		if ctx.Err() != nil || !e.takeSlot() {
			break // the rest stay approved (queued) until a slot frees
		}
		if !e.claim(t.ID) {
			e.giveSlot()
			continue
		}
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			defer e.giveSlot()
			defer e.release(t.ID)
			e.runTask(ctx, t)
		}()
	}
	owed, err := e.Store.UnnotifiedTasks(ctx, []string{StateCompleted, StateFailed, StateCanceled, StateRejected, StateExpired}, 100)
	if err != nil {
		e.log().Warn("task: listing owed notifies failed", "err", err)
	}
	for _, t := range owed {
		e.notifyOwed(ctx, t.ID)
	}
}

// takeSlot reserves one of the runner's slots for a task goroutine, so a
// task only becomes in_progress (and gets a worktree) when it can run.
func (e *Engine) takeSlot() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.active >= e.Runner.Limit() {
		return false
	}
	e.active++
	return true
}

// giveSlot frees a slot and wakes the loop to fill it.
func (e *Engine) giveSlot() {
	e.mu.Lock()
	e.active--
	e.mu.Unlock()
	e.poke()
}

// runTask takes an approved task through in_progress to its final state.
// The caller holds the task's claim.
func (e *Engine) runTask(ctx context.Context, t store.TaskRecord) {
	final := context.WithoutCancel(ctx) // results are recorded even while shutting down
	if e.cancelRequested(t.ID, false) {
		e.finishLogged(final, t, StateApproved, Outcome{TaskID: t.ID, Status: StateCanceled, Error: "canceled before it started"})
		return
	}
	err := e.Store.Write(ctx, func(tx *store.Tx) error {
		if err := tx.TransitionTask(t.ID, StateApproved, StateInProgress, "started", store.TaskUpdate{Started: true}); err != nil {
			return err
		}
		return e.audit(tx, t.Requester, "task.start", "ok", map[string]any{"task_id": t.ID, "task_type": t.TaskType})
	})
	if err != nil {
		e.log().Info("task: not starting", "task", t.ID, "err", err) // canceled or shutting down
		return
	}
	e.publish(EventTaskState, t.ID, t.Requester, t.TaskType+" "+t.ID+": in_progress")
	out, dir := e.execute(ctx, t)
	// Clean up before reporting, so a requester never sees a result while
	// the worktree is still there.
	if dir != "" && (out.Status != StateFailed || !e.Config().Approvals.KeepFailedWorktrees) {
		if err := RemoveWorktree(final, repoDir(e.Config(), e.Config().Tasks[t.TaskType]), dir, WorktreeBranch(t.ID)); err != nil {
			e.log().Warn("task: removing worktree failed", "task", t.ID, "path", dir, "err", err)
		}
	}
	e.finishLogged(final, t, StateInProgress, out)
}

// execute prepares the directory, runs the command and builds the outcome.
// It returns the worktree path when one was created.
func (e *Engine) execute(ctx context.Context, t store.TaskRecord) (Outcome, string) {
	fail := func(format string, args ...any) Outcome {
		return Outcome{TaskID: t.ID, Status: StateFailed, Error: fmt.Sprintf(format, args...)}
	}
	cfg := e.Config()
	tt, ok := cfg.Tasks[t.TaskType]
	if !ok {
		return fail("task type %s is no longer configured here", t.TaskType), ""
	}
	argv, resolved, err := Resolve(t.TaskType, tt, stringsToAny(t.Params))
	if err != nil {
		return fail("the task's config changed and its params no longer fit: %v", err), ""
	}
	if tt.MCPTool != "" {
		if err := e.leaveOut(ctx, t, tt, "", false); err != nil {
			return fail("%v", err), ""
		}
		return e.executeMCP(ctx, t, tt, resolved), ""
	}
	if err := e.freshTaskDir(t.ID); err != nil {
		return fail("cannot create the task directory: %v", err), ""
	}
	dir, worktree, err := e.prepareDir(ctx, cfg, tt, t)
	if err != nil {
		return fail("%v", err), worktree
	}
	if err := confineParams(t.TaskType, tt, resolved, dir); err != nil {
		return fail("%v", err), worktree
	}
	if err := e.folderRules(t, tt, resolved, dir); err != nil {
		return fail("%v", err), worktree
	}
	// Anywhere but the context's own checkout the directory is the task's.
	if err := e.leaveOut(ctx, t, tt, dir, worktree != "" || dir != repoDir(cfg, tt)); err != nil {
		return fail("%v", err), worktree
	}
	if e.cancelRequested(t.ID, false) {
		return Outcome{TaskID: t.ID, Status: StateCanceled, Error: "canceled before it started"}, worktree
	}
	outPath := filepath.Join(e.taskDir(t.ID), "output.log")
	env := taskEnv(t.ID, worktree)
	var folders []runFolder
	if !tt.RealHome {
		folders = append(folders, runFolder{"home", "home", func(env []string, home string) ([]string, error) {
			return withScratchHome(env, home, e.peerCaches(t.Requester))
		}})
	}
	folders = append(folders, runFolder{"run", "runtime", withRuntimeDir}, runFolder{"tmp", "temporary", withTempDir})
	for _, f := range folders {
		path := filepath.Join(e.taskDir(t.ID), f.name)
		if env, err = f.make(env, path); err != nil {
			return fail("cannot create the task's %s folder: %v", f.what, err), worktree
		}
		// Deferred: it runs once the command and all it left are gone.
		defer func() {
			if err := removeScratchHome(path); err != nil {
				e.log().Warn("task: removing its "+f.what+" folder failed", "task", t.ID, "path", path, "err", err)
			}
		}()
	}
	env = withPassedEnv(env, tt.PassEnv)
	guard := e.gitGuard.acquire(ctx, repoDir(cfg, tt))
	res := e.Runner.Run(ctx, Job{
		ID: t.ID, Argv: argv, Dir: dir, Env: env,
		Timeout:    time.Duration(tt.TimeoutSec) * time.Second,
		OutputPath: outPath, MaxOutputBytes: MaxOutputFileBytes,
		Heartbeat: func(at time.Time) { e.heartbeat(ctx, t, at) },
		Confine:   e.confinement(t, tt, dir),
		Canceled:  func() bool { return e.cancelRequested(t.ID, false) },
	})
	if res.ReaperKilled {
		e.log().Warn("task: its reaper was killed before it swept; killed what the command left", "task", t.ID, "requester", t.Requester, "pids", res.Swept)
	}
	e.endStragglers(t.ID)
	out := e.outcome(t, tt, res, outPath)
	e.undoGitChanges(t, guard, &out)
	return out, worktree
}

// runFolder is a folder of a task's own that aoi makes in the task's
// folder for one run (make also points the environment at it) and removes
// when the run ends: its scratch home, runtime and temporary folders.
type runFolder struct {
	name, what string
	make       func(env []string, dir string) ([]string, error)
}

// freshTaskDir makes task id's folder in the data dir a real folder, with
// none of what aoi makes there for a run (its scratch home, runtime and
// temporary folders and output file). A running task can write the data dir and a peer
// knows the ids of its queued tasks: a link put in place of the next
// one's folder or output file had aoi write the task's output, make its
// folders and, when it ended, remove them wherever the link led.
func (e *Engine) freshTaskDir(id string) error {
	dir := e.taskDir(id)
	if err := realFolders(e.DataDir, dir); err != nil {
		return err
	}
	for _, name := range []string{"home", "run", "tmp", "output.log"} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// confinement is what task t's command may write (see landlock.go): the
// folder it runs in (its worktree, its scratch folder, or the owner's
// checkout for a type with isolation "none"), its task folder (scratch
// home, runtime and temporary folders), and the requester's caches its
// scratch home points at, or the owner's home for a real_home type, and
// the folders the type names in "writable". The
// repository's own git folder stays out: a worktree's history, refs,
// config and hooks are the owner's.
func (e *Engine) confinement(t store.TaskRecord, tt config.TaskType, dir string) *Confinement {
	if tt.Unconfined {
		e.log().Warn("task: its type is unconfined; the command may write anywhere and signal aoi", "task", t.ID, "task_type", t.TaskType)
		return &Confinement{Off: "its task type " + t.TaskType + " is marked unconfined"}
	}
	if ok, why := ConfinementSupport(); !ok {
		e.log().Warn("task: runs unconfined", "task", t.ID, "why", why)
	}
	writable := []string{dir, e.taskDir(t.ID)}
	if tt.RealHome {
		if home, err := os.UserHomeDir(); err == nil {
			writable = append(writable, home)
		}
	} else {
		writable = append(writable, e.peerCaches(t.Requester))
	}
	for _, w := range tt.Writable {
		// A folder that is not there cannot be written beneath (its
		// parent is not writable), and Landlock needs it to exist.
		if _, err := os.Stat(w); err != nil {
			e.log().Info("task: a writable folder of its type is missing; left out", "task", t.ID, "path", w, "err", err)
			continue
		}
		writable = append(writable, w)
	}
	c := &Confinement{Writable: writable}
	if e.DataDir != "" {
		// The confining step runs in the task's folder: a relative
		// path would name another.
		c.Hidden, _ = filepath.Abs(e.DataDir)
	}
	return c
}

// undoGitChanges puts back the git configuration and hooks the task
// changed (see gitGuard) and fails the task, naming them: the owner's next
// git command would have run what it planted.
func (e *Engine) undoGitChanges(t store.TaskRecord, guard *gitLease, out *Outcome) {
	changed, err := guard.restore()
	if len(changed) == 0 {
		return
	}
	what := describeChanges(changed)
	e.log().Warn("task: changed the owner's git configuration; put back", "task", t.ID, "requester", t.Requester, "changed", what, "err", err)
	e.publish(EventTaskState, t.ID, t.Requester, t.TaskType+" "+t.ID+" changed "+what+"; put back")
	msg := "while the task ran, " + what + " changed, from which the owner's git commands take what to run; it was put back and the task failed"
	if err != nil {
		msg = "while the task ran, " + what + " changed, from which the owner's git commands take what to run; not all of it could be put back and the task failed"
	}
	out.Status, out.Error = StateFailed, msg
}

// endStragglers kills what the task started outside its process group
// (setsid, a daemonising helper): the runner kills the group only, and
// such a process ran on as the owner after the task completed, timed out
// or was cancelled. They still carry AOI_TASK_ID; a few rounds catch one
// that forked while the last was read.
func (e *Engine) endStragglers(taskID string) {
	for range 3 {
		pids := killLeftovers(taskID)
		if len(pids) == 0 {
			return
		}
		e.log().Info("task: killed processes it left running outside its process group", "task", taskID, "pids", pids)
	}
}

// prepareDir returns where the command runs: a fresh worktree, the
// context's directory, or a scratch directory.
func (e *Engine) prepareDir(ctx context.Context, cfg *config.Config, tt config.TaskType, t store.TaskRecord) (dir, worktree string, err error) {
	repo := repoDir(cfg, tt)
	if tt.Isolation != config.IsolationWorktree {
		if repo != "" {
			return repo, "", nil
		}
		scratch := filepath.Join(e.taskDir(t.ID), "work")
		return scratch, "", os.MkdirAll(scratch, 0o700)
	}
	path := WorktreePath(e.worktreeBase(), t.ID)
	// Record the path first: a crash after git created it still cleans it up.
	if err := e.Store.Write(ctx, func(tx *store.Tx) error { return tx.SetTaskWorktree(t.ID, path) }); err != nil {
		return "", "", err
	}
	if _, err := AddWorktree(ctx, repo, e.worktreeBase(), t.ID, cmp.Or(t.RefCommit, t.Ref)); err != nil {
		return "", path, err
	}
	return path, path, nil
}

func (e *Engine) heartbeat(ctx context.Context, t store.TaskRecord, at time.Time) {
	if err := e.Store.Write(ctx, func(tx *store.Tx) error { return tx.SetTaskHeartbeat(t.ID, at) }); err != nil {
		e.log().Debug("task: heartbeat not stored", "task", t.ID, "err", err)
	}
	e.publish(EventTaskHeartbeat, t.ID, t.Requester, t.TaskType+" "+t.ID+" running")
}

// outcome turns a runner result into what is stored and sent.
func (e *Engine) outcome(t store.TaskRecord, tt config.TaskType, res Result, outPath string) Outcome {
	out := Outcome{TaskID: t.ID, DurationMS: res.Duration.Milliseconds(), Truncated: res.OutputTruncated,
		OutputTail: e.boundedTail(ReadableTail(tt.Output, res.OutputTail))}
	if res.ExitCode >= 0 {
		code := res.ExitCode
		out.ExitCode = &code
	}
	out.Output = e.counts(tt.Output, outPath)
	switch {
	case res.Err == nil && res.ExitCode == 0:
		out.Status = StateCompleted
	case res.Canceled && e.cancelRequested(t.ID, false):
		out.Status, out.Error = StateCanceled, "canceled while running"
	case res.Canceled:
		out.Status, out.Error = StateFailed, "the agent stopped while the task ran; ask again"
	case res.Err != nil:
		out.Status, out.Error = StateFailed, res.Err.Error()
	default:
		out.Status, out.Error = StateFailed, fmt.Sprintf("the command exited with status %d", res.ExitCode)
	}
	return out
}

func (e *Engine) counts(format, path string) *Counts {
	if format == "" {
		return nil
	}
	f, err := openOutputFile(path)
	if err != nil {
		e.log().Warn("task: output not read", "path", path, "err", err)
		return nil
	}
	defer f.Close()
	c, err := ParseOutput(format, io.LimitReader(f, MaxOutputFileBytes))
	if err != nil {
		e.log().Info("task: output not parsed", "format", format, "err", err)
		return nil
	}
	for i := range c.Failures {
		f := &c.Failures[i]
		f.Message = e.redact(f.Message)
		// Names are the task's output as its message is: redacted whole,
		// then cut (a name cut first could show half a secret).
		f.Test = utf8cut.Ellipsis(e.redact(f.Test), maxFailureName)
		f.Package = utf8cut.Ellipsis(e.redact(f.Package), maxFailureName)
	}
	return c
}

// openOutputFile opens a task's output file to read it back. The file
// lies in the task's directory, where the command (running as the owner)
// may have put something else in its place: a FIFO, whose opening would
// block the engine for ever, or a link to another file. So a link is not
// followed, the open does not wait, and only a regular file is read.
func openOutputFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s): the task replaced it", info.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// boundedTail redacts the raw tail and keeps its last MaxNotifyTail bytes.
// The first, probably partial, line of a full raw tail is dropped first so
// the redactor never sees half a secret.
func (e *Engine) boundedTail(raw string) string {
	if len(raw) >= e.Runner.opts.TailBytes {
		if i := strings.IndexByte(raw, '\n'); i >= 0 {
			raw = raw[i+1:]
		}
	}
	s := e.redact(raw)
	if len(s) > MaxNotifyTail {
		s = s[len(s)-MaxNotifyTail:]
		for len(s) > 0 && !utf8.RuneStart(s[0]) {
			s = s[1:]
		}
	}
	return s
}

// finish records a task's final state and tells the requester. The caller
// holds the task's claim.
func (e *Engine) finish(ctx context.Context, t store.TaskRecord, from string, out Outcome) error {
	out.summarize(t.TaskType, "")
	raw, _ := json.Marshal(out) // plain struct: cannot fail
	u := store.TaskUpdate{ExitCode: out.ExitCode, Output: raw, Error: &out.Error, Finished: true}
	err := e.Store.Write(ctx, func(tx *store.Tx) error {
		if err := tx.TransitionTask(t.ID, from, out.Status, out.Error, u); err != nil {
			return err
		}
		return e.audit(tx, t.Requester, "task.finish", out.Status, map[string]any{"task_id": t.ID,
			"task_type": t.TaskType, "exit_code": out.ExitCode, "duration_ms": out.DurationMS, "error": out.Error})
	})
	e.cancelRequested(t.ID, true)
	if err != nil {
		return err
	}
	e.publish(EventTaskState, t.ID, t.Requester, t.TaskType+" "+t.ID+": "+out.Status)
	e.deliver(ctx, t.ID)
	return nil
}

func (e *Engine) finishLogged(ctx context.Context, t store.TaskRecord, from string, out Outcome) {
	if err := e.finish(ctx, t, from, out); err != nil {
		e.log().Error("task: recording the result failed", "task", t.ID, "err", err)
	}
}

// notifyOwed delivers a finished task's notify unless someone else owns
// the task right now (they, or the next sweep, will).
func (e *Engine) notifyOwed(ctx context.Context, id string) {
	if !e.claim(id) {
		return
	}
	defer e.release(id)
	e.deliver(ctx, id)
}

// deliver sends the task.completed / task.failed notify for a finished task
// once. The caller holds the task's claim.
func (e *Engine) deliver(ctx context.Context, id string) {
	t, ok, err := e.Store.Task(ctx, id)
	if err != nil || !ok || !IsTerminal(t.State) {
		return
	}
	if done, err := e.Store.TaskNotified(ctx, id); err != nil || done {
		return
	}
	event := NotifyFailed
	if t.State == StateCompleted {
		event = NotifyCompleted
	}
	data := t.Output
	if len(data) == 0 {
		data, _ = json.Marshal(Outcome{TaskID: t.ID, Status: t.State, ExitCode: t.ExitCode, Error: t.Error})
	}
	if e.Notify != nil {
		if err := e.Notify(ctx, t.Requester, event, t.RequestID, json.RawMessage(data)); err != nil {
			e.log().Warn("task: notify failed; will retry", "task", id, "requester", t.Requester, "err", err)
			return
		}
	}
	if err := e.Store.Write(ctx, func(tx *store.Tx) error { return tx.MarkTaskNotified(id) }); err != nil {
		e.log().Warn("task: could not record the notify", "task", id, "err", err)
	}
}

func stringsToAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// executeMCP runs an mcp_tool task through the work AI's MCP server, with
// the task's timeout and heartbeat; the tool's text is the task's output.
func (e *Engine) executeMCP(ctx context.Context, t store.TaskRecord, tt config.TaskType, params map[string]string) Outcome {
	out := Outcome{TaskID: t.ID, Status: StateFailed}
	if e.MCP == nil {
		out.Error = "mcp_tool tasks need secretary.work_ai.mcp_endpoint"
		return out
	}
	if tt.TimeoutSec > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(tt.TimeoutSec)*time.Second)
		defer cancel()
	}
	start := time.Now()
	e.heartbeat(ctx, t, start)
	text, isError, err := e.MCP(ctx, tt.MCPTool, tt.Arguments, params)
	out.DurationMS = time.Since(start).Milliseconds()
	if err := e.freshTaskDir(t.ID); err == nil {
		body := text
		if len(body) > MaxOutputFileBytes {
			body = body[len(body)-MaxOutputFileBytes:]
		}
		if c, err := newCapture(filepath.Join(e.taskDir(t.ID), "output.log"), 0, 0); err == nil {
			_, _ = c.Write([]byte(body))
			_ = c.close()
		}
	}
	out.OutputTail = e.boundedTail(text)
	switch {
	case e.cancelRequested(t.ID, true):
		out.Status, out.Error = StateCanceled, "canceled"
	case err != nil:
		out.Error = err.Error()
	case isError:
		out.Error = "the work AI's tool " + tt.MCPTool + " reported an error"
	default:
		out.Status = StateCompleted
	}
	return out
}
