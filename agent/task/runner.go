package task

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// RunnerOptions tune a Runner. Zero values take the defaults.
type RunnerOptions struct {
	// KillGrace is how long a process group gets between SIGTERM and
	// SIGKILL on cancel or timeout (default 5s).
	KillGrace time.Duration
	// HeartbeatEvery is how often Job.Heartbeat is called (default 5s).
	HeartbeatEvery time.Duration
	// TailBytes is how much of the end of the output Result.OutputTail
	// keeps (default 16 KiB).
	TailBytes int
	// IODelay bounds how long output is still read after the process has
	// exited, when a stray descendant keeps the pipe open (default 2s).
	IODelay time.Duration
	// NoReaper runs commands without a reaper even where one is available
	// (see reaper.go).
	NoReaper bool
}

func (o *RunnerOptions) defaults() {
	if o.KillGrace <= 0 {
		o.KillGrace = 5 * time.Second
	}
	if o.HeartbeatEvery <= 0 {
		o.HeartbeatEvery = 5 * time.Second
	}
	if o.TailBytes <= 0 {
		o.TailBytes = 16 << 10
	}
	if o.IODelay <= 0 {
		o.IODelay = 2 * time.Second
	}
}

// Job is one command to run. Argv is executed directly, never through a
// shell.
type Job struct {
	ID   string
	Argv []string
	Dir  string
	// Env is the complete environment; nil means BaseEnv().
	Env     []string
	Timeout time.Duration // 0 = no timeout
	// OutputPath receives stdout and stderr interleaved, at most
	// MaxOutputBytes of it (0 = unbounded). Empty = keep only the tail.
	OutputPath     string
	MaxOutputBytes int64
	// Heartbeat, if set, is called periodically while the process runs,
	// from the goroutine that supervises it: keep it short.
	Heartbeat func(time.Time)
	// Confine, if set, is what the command may write (see landlock.go).
	// It is applied by the reaper's confining step, so a runner without a
	// reaper runs the command unconfined and says so in the output.
	Confine *Confinement
	// Canceled, if set, says whether the job was canceled before Run
	// registered it, when Cancel found nothing to stop. Run asks once the
	// job is registered, so no cancel falls between the two: one that did
	// ran the command to its end.
	Canceled func() bool
}

// Result is the outcome of a Job. A command that ran and exited non-zero has
// ExitCode != 0 and Err == nil; Err is set when the command could not run,
// timed out or was canceled.
type Result struct {
	ExitCode int // -1 when the process did not exit on its own
	Duration time.Duration
	TimedOut bool
	Canceled bool
	// OutputTail is the last RunnerOptions.TailBytes of output, RAW: the
	// caller must redact it before it leaves the machine.
	OutputTail      string
	OutputBytes     int64 // produced by the process
	OutputTruncated bool  // the file stopped at MaxOutputBytes
	Err             error
	// ReaperKilled is set when the command's reaper ended before it had
	// swept what the command left (the command, or someone, killed it);
	// Swept then lists the processes the runner killed in its place.
	ReaperKilled bool
	Swept        []int
	// ReaperStopped is set when the runner found the reaper stopped
	// (SIGSTOP) while it ran, and ended the task at once for it.
	ReaperStopped bool
}

// ErrCanceled is Result.Err for a job canceled by Cancel or its context.
var ErrCanceled = errors.New("task canceled")

// Runner runs jobs as process groups, at most maxConcurrent at a time.
type Runner struct {
	opts RunnerOptions
	sem  chan struct{}

	mu   sync.Mutex
	jobs map[string]*jobState
}

type jobState struct {
	cancel chan struct{}
	once   sync.Once
}

func (j *jobState) stop() { j.once.Do(func() { close(j.cancel) }) }

// NewRunner returns a Runner that runs at most maxConcurrent jobs at once
// (values below 1 mean 1); further jobs wait their turn.
func NewRunner(maxConcurrent int, opts RunnerOptions) *Runner {
	if maxConcurrent < 1 {
		maxConcurrent = 1
	}
	opts.defaults()
	return &Runner{opts: opts, sem: make(chan struct{}, maxConcurrent), jobs: map[string]*jobState{}}
}

// Cancel stops a waiting or running job; it reports whether the job was
// known. The job's Run returns with Canceled set once its process group is
// gone.
func (r *Runner) Cancel(id string) bool {
	r.mu.Lock()
	j, ok := r.jobs[id]
	r.mu.Unlock()
	if ok {
		j.stop()
	}
	return ok
}

// Limit is the number of jobs that may run at once.
func (r *Runner) Limit() int { return cap(r.sem) }

// Running reports how many jobs hold a slot (are executing) now.
func (r *Runner) Running() int { return len(r.sem) }

// Run waits for a free slot, runs the job and returns its result. It blocks
// until the process group is gone; ctx ending cancels the job.
func (r *Runner) Run(ctx context.Context, job Job) Result {
	if len(job.Argv) == 0 || job.Argv[0] == "" {
		return Result{ExitCode: -1, Err: errors.New("task has no command; set command in the task type's config")}
	}
	j, err := r.register(job.ID)
	if err != nil {
		return Result{ExitCode: -1, Err: err}
	}
	defer r.unregister(job.ID)
	if job.Canceled != nil && job.Canceled() {
		return Result{ExitCode: -1, Canceled: true, Err: ErrCanceled}
	}

	select {
	case r.sem <- struct{}{}:
	case <-j.cancel:
		return Result{ExitCode: -1, Canceled: true, Err: ErrCanceled}
	case <-ctx.Done():
		return Result{ExitCode: -1, Canceled: true, Err: ErrCanceled}
	}
	defer func() { <-r.sem }()
	return r.execute(ctx, job, j)
}

func (r *Runner) register(id string) (*jobState, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.jobs[id]; dup {
		return nil, fmt.Errorf("task %s is already running", id)
	}
	j := &jobState{cancel: make(chan struct{})}
	r.jobs[id] = j
	return j, nil
}

func (r *Runner) unregister(id string) {
	r.mu.Lock()
	delete(r.jobs, id)
	r.mu.Unlock()
}

// keptFromTasks marks this process kept from its tasks' inspection, once, before
// the first command runs (see keepTasksFromInspecting).
var keptFromTasks sync.Once

func (r *Runner) execute(ctx context.Context, job Job, j *jobState) Result {
	keptFromTasks.Do(keepTasksFromInspecting)
	out, err := newCapture(job.OutputPath, job.MaxOutputBytes, r.opts.TailBytes)
	if err != nil {
		return Result{ExitCode: -1, Err: err}
	}
	cmd := exec.Command(job.Argv[0], job.Argv[1:]...)
	cmd.Dir = job.Dir
	cmd.Env = job.Env
	if cmd.Env == nil {
		cmd.Env = BaseEnv()
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = r.opts.IODelay

	start := time.Now()
	if r.reaps() && cmd.Err == nil {
		// Orphans of a reaper the command kills come to aoi (see
		// adoptOrphans); without it they would go to init.
		if err := adoptOrphans(); err != nil {
			out.close()
			return Result{ExitCode: -1, Err: fmt.Errorf("start %q: cannot become a subreaper: %w", job.Argv[0], err)}
		}
		defer unadopt()
	}
	if job.Confine != nil && job.Confine.Off == "" && !r.reaps() {
		fmt.Fprintln(out, "aoi: this task's command runs unconfined: it runs without a reaper, which confines it")
	}
	pgid, reaper, err := r.start(cmd, job.Confine)
	if err != nil {
		out.close()
		return Result{ExitCode: -1, Err: fmt.Errorf("start %q: %w", job.Argv[0], err)}
	}
	res := r.supervise(ctx, cmd, pgid, job, j)
	if reaper != nil {
		if !reaperFinished(reaper) {
			res.ReaperKilled = true
			res.Swept = sweepAdopted()
			switch {
			case res.ReaperStopped:
				res.Err = fmt.Errorf("the task's reaper was stopped (SIGSTOP) while the command ran (a command that stops its reaper is trying to leave processes behind); aoi ended the task and killed %d process(es) it left", len(res.Swept))
			case res.Err == nil:
				res.ExitCode = -1
				res.Err = fmt.Errorf("the task's reaper was killed before it could stop what the command left running (a command that kills its reaper is trying to leave processes behind); aoi killed %d process(es) it left", len(res.Swept))
			}
		}
		reaper.Close()
	}
	res.Duration = time.Since(start)
	out.close()
	res.OutputTail, res.OutputBytes, _, res.OutputTruncated = out.result()
	return res
}

// start starts cmd and returns the process group its command runs in:
// its own, or, under a reaper (see reaper.go), the one the reaper made
// for the command; then also the reaper's end of the pipe it reports on.
func (r *Runner) start(cmd *exec.Cmd, confine *Confinement) (int, *os.File, error) {
	if cmd.Err != nil || !r.reaps() {
		if err := cmd.Start(); err != nil {
			return 0, nil, err
		}
		return cmd.Process.Pid, nil, nil
	}
	return startReaped(cmd, confine)
}

// reaps reports whether commands run under a reaper: on Linux, in a
// binary that called ReapIfAsked, unless RunnerOptions.NoReaper.
func (r *Runner) reaps() bool { return reaperReady.Load() && !r.opts.NoReaper }

// startReaped runs cmd's command under a reaper and reads the process
// group the reaper started it in. A reaper that cannot start the command
// says why on the command's output and reports no group. The pipe
// returned stays open: the reaper writes reaperEndLine on it once it has
// swept, which reaperFinished reads.
func startReaped(cmd *exec.Cmd, confine *Confinement) (int, *os.File, error) {
	argv := cmd.Args
	cmd.Path, cmd.Args = reaperArgv(argv, confine)
	cmd.Env = append(slices.Clip(cmd.Env), reaperEnv+"="+reaperValue)
	pr, pw, err := os.Pipe()
	if err != nil {
		return 0, nil, err
	}
	cmd.ExtraFiles = []*os.File{pw}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return 0, nil, err
	}
	_ = pr.SetReadDeadline(time.Now().Add(reaperReportWait))
	line := readReport(pr, cmd.Process.Pid)
	if why, failed := strings.CutPrefix(line, "error: "); failed {
		_ = cmd.Wait()
		pr.Close()
		return 0, nil, errors.New(why)
	}
	pgid, err := strconv.Atoi(line)
	if err != nil || pgid <= 0 {
		// Silent or hanging: its own group is all there is to kill.
		return cmd.Process.Pid, pr, nil
	}
	return pgid, pr, nil
}

// readReport reads the reaper's first line, giving up at once when the
// reaper is found stopped (the command may stop it before it reports):
// the wait would otherwise last reaperReportWait, and supervise then
// ends the task for the stop.
func readReport(pipe *os.File, reaper int) string {
	read := make(chan string, 1)
	go func() {
		line, _ := readLine(pipe)
		read <- line
	}()
	watch := time.NewTicker(reaperWatchEvery)
	defer watch.Stop()
	for {
		select {
		case line := <-read:
			return line
		case <-watch.C:
			if processStopped(reaper) {
				_ = pipe.SetReadDeadline(time.Now())
				return <-read
			}
		}
	}
}

// readLine reads one short line from a reaper's pipe, byte by byte so
// nothing after it is consumed.
func readLine(f *os.File) (string, error) {
	var line []byte
	b := make([]byte, 1)
	for len(line) < 512 {
		n, err := f.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
		}
		if err != nil {
			return strings.TrimSpace(string(line)), err
		}
	}
	return strings.TrimSpace(string(line)), nil
}

// reaperFinished reports whether the reaper, which has exited, said it
// swept what its command left: one killed first (by the command itself:
// it runs as the same user) did not.
func reaperFinished(pipe *os.File) bool {
	_ = pipe.SetReadDeadline(time.Now().Add(time.Second))
	for range 3 { // a late group line (a reaper stopped before it wrote one) may come first
		line, err := readLine(pipe)
		if line == reaperEndLine {
			return true
		}
		if err != nil {
			return false
		}
	}
	return false
}

// reaperEndWait bounds how long a reaper gets to end once its command's
// group was killed (its sweep takes at most 5 s).
const reaperEndWait = 8 * time.Second

// reaperWatchEvery is how often the runner looks whether a reaper is
// stopped: one read of /proc/PID/stat per running task.
const reaperWatchEvery = 100 * time.Millisecond

// reaperReportWait bounds how long the runner waits for a reaper to say
// which group its command runs in.
const reaperReportWait = 10 * time.Second

// supervise waits for the process while sending heartbeats, and kills its
// whole process group on timeout or cancel.
func (r *Runner) supervise(ctx context.Context, cmd *exec.Cmd, pgid int, job Job, j *jobState) Result {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timeout <-chan time.Time
	if job.Timeout > 0 {
		t := time.NewTimer(job.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	beat := time.NewTicker(r.opts.HeartbeatEvery)
	defer beat.Stop()
	var watch <-chan time.Time
	if r.reaps() {
		w := time.NewTicker(reaperWatchEvery)
		defer w.Stop()
		watch = w.C
	}
	for {
		select {
		case <-watch:
			if processStopped(cmd.Process.Pid) {
				killStoppedReaper(cmd, pgid, done)
				return Result{ExitCode: -1, ReaperStopped: true}
			}
		case err := <-done:
			// Descendants left behind by a finished command die with it.
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			return exitResult(cmd, err)
		case now := <-beat.C:
			if job.Heartbeat != nil {
				job.Heartbeat(now)
			}
		case <-timeout:
			r.killGroup(cmd, pgid, done)
			return Result{ExitCode: -1, TimedOut: true,
				Err: fmt.Errorf("task timed out after %s and was stopped; raise timeout_sec in the task type if it needs longer", job.Timeout)}
		case <-j.cancel:
			r.killGroup(cmd, pgid, done)
			return Result{ExitCode: -1, Canceled: true, Err: ErrCanceled}
		case <-ctx.Done():
			r.killGroup(cmd, pgid, done)
			return Result{ExitCode: -1, Canceled: true, Err: ErrCanceled}
		}
	}
}

// killGroup sends SIGTERM to the process group, then SIGKILL after the
// grace period, and returns once Wait has returned. The process cmd
// started (a reaper, when there is one: it is not in the command's group)
// is killed with the group: a reaper the command stopped (SIGSTOP) would
// never end, and Wait with it.
func (r *Runner) killGroup(cmd *exec.Cmd, pgid int, done <-chan error) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	grace := time.NewTimer(r.opts.KillGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if cmd.Process.Pid == pgid {
			<-done // no reaper: the group was the command's
			break
		}
		// A reaper the command stopped is let go on, to sweep; one that
		// still has not ended (stopped again by what it should sweep) is
		// killed, and the runner sweeps in its place.
		_ = cmd.Process.Signal(syscall.SIGCONT)
		last := time.NewTimer(reaperEndWait)
		defer last.Stop()
		select {
		case <-done:
		case <-last.C:
			_ = cmd.Process.Kill()
			<-done
		}
	}
	// Whatever ignored SIGTERM but let the leader exit goes now.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// killStoppedReaper ends a task whose reaper was stopped: nothing but a
// command that means to outlive its task stops it (the reaper reads no
// terminal and runs in a group of its own, which job control does not
// stop), and one stopped again and again would hold the task until its
// timeout, its leftovers running on. The command's group and the reaper
// are killed; the reaper's orphans come to aoi, which sweeps them (see
// sweepAdopted).
func killStoppedReaper(cmd *exec.Cmd, pgid int, done <-chan error) {
	if pgid != cmd.Process.Pid {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	_ = cmd.Process.Kill()
	<-done
}

func exitResult(cmd *exec.Cmd, err error) Result {
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	var exitErr *exec.ExitError
	if err == nil || errors.As(err, &exitErr) || errors.Is(err, exec.ErrWaitDelay) {
		return Result{ExitCode: code}
	}
	return Result{ExitCode: code, Err: fmt.Errorf("wait for task: %w", err)}
}
