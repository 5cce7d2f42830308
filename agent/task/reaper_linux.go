package task

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const reaperSupported = true

// Bounds on the reaper's final sweep: a command that forks faster than
// the sweep kills is left to the runner's own nets after this.
const (
	reapRounds = 10000
	reapFor    = 5 * time.Second
)

// reaperArgv is what the runner starts instead of argv: this binary (by
// /proc/self/exe, which still names it after an upgrade replaced the file)
// with the command's confinement, then argv after "--".
func reaperArgv(argv []string, confine *Confinement) (string, []string) {
	args := append([]string{"aoi-task-reaper"}, confine.args()...)
	return "/proc/self/exe", append(append(args, "--"), argv...)
}

// reaperMain runs the command in args (after "--") in a process group of
// its own, writes that group's id to fd 3 for the runner, and once the
// command has ended kills everything it left behind.
func reaperMain(args []string) int {
	report := os.NewFile(3, "pgid")
	syscall.CloseOnExec(3) // the command must not hold the runner's pipe
	keepInheritedFilesFromCommand()
	confine, argv, err := parseConfinement(args)
	if report == nil || err != nil || len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "aoi: a task reaper is started by aoi only")
		return 127
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(report, "error: cannot become a subreaper: %v\n", err)
		return 127
	}
	// Asked to stop (the runner never asks, but a person might): the
	// command and everything it started go too.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	pid, err := startCommand(argv, confine)
	if err != nil {
		// The runner reports it as the start failure it is.
		fmt.Fprintf(report, "error: %.200s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return 127
	}
	fmt.Fprintf(report, "%d\n", pid)
	go func() {
		<-stop
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}()
	status := waitCommand(pid)
	sweep(pid)
	// The runner reads this line as "the reaper did its work": a reaper
	// killed before it gets here (the command may kill it: it runs as the
	// same user) writes nothing, and the runner sweeps what it left.
	fmt.Fprintln(report, reaperEndLine)
	report.Close()
	return exitLike(status)
}

// keepInheritedFilesFromCommand marks every file this process holds past
// stderr close-on-exec. What aoi itself opens is, but a descriptor aoi
// inherited open (from the shell, make's jobserver, a service manager or
// a terminal multiplexer that started it) passes to every child, and a
// task's command could read or write it: a log, a lock, a socket.
func keepInheritedFilesFromCommand() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd") // a kernel before 5.11
	if err != nil {
		return
	}
	for _, ent := range entries {
		if fd, err := strconv.Atoi(ent.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// startCommand starts argv in a new session (so a new process group) with
// this process's environment minus the reaper's mark; its directory and
// output are the reaper's own. A session of its own, not only a group:
// nothing the command starts can join a process group of aoi's session
// (setpgid stays within a session), which is how the runner tells the
// processes it adopts from a killed reaper (see sweepAdopted). With a
// confinement the command is started through the confining step, which
// keeps its pid (it execs the command), so the group is the command's all
// the same.
func startCommand(argv []string, confine *Confinement) (int, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 0, err
	}
	if confine != nil && confine.Off != "" {
		fmt.Fprintf(os.Stderr, "aoi: this task's command runs unconfined: %s\n", confine.Off)
	}
	if confine != nil && confine.Off == "" {
		argv = append(append([]string{"aoi", confineArg}, confine.args()...), append([]string{"--", path}, argv...)...)
		path = "/proc/self/exe"
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, reaperEnv+"=") {
			env = append(env, kv)
		}
	}
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{Env: env,
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setsid: true}})
	if err != nil {
		return 0, err
	}
	return proc.Pid, nil
}

// waitCommand reaps children until the command itself has ended (orphans
// that end meanwhile are reaped on the way) and returns its status.
func waitCommand(pid int) syscall.WaitStatus {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return ws // ECHILD: nothing left to wait for
		case got == pid:
			return ws
		}
	}
}

// sweep kills the command's group and every child of the reaper, then the
// children those leave (orphans come here), until none is left or the
// bounds run out.
func sweep(pgid int) {
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(reapFor)
	for range reapRounds {
		kids := childrenOf(os.Getpid())
		for _, kid := range kids {
			_ = syscall.Kill(kid, syscall.SIGKILL)
		}
		if !reapOne(len(kids) > 0) || time.Now().After(deadline) {
			return
		}
	}
}

// reapOne reaps one ended child, waiting for it when block is set, and
// reports whether there may be more.
func reapOne(block bool) bool {
	flags := syscall.WNOHANG
	if block {
		flags = 0
	}
	var ws syscall.WaitStatus
	got, err := syscall.Wait4(-1, &ws, flags, nil)
	if err == syscall.EINTR {
		return true
	}
	if err != nil {
		return false // ECHILD: none left
	}
	if got == 0 {
		time.Sleep(time.Millisecond) // children still running, none ended yet
	}
	return true
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	return childrenWhere(func(p procStat) bool { return p.ppid == pid })
}

// procStat is what the reaper and the runner read of a process.
type procStat struct {
	ppid, sid int
	started   uint64 // clock ticks after boot
}

// childrenWhere lists the processes keep accepts (from /proc).
func childrenWhere(keep func(procStat) bool) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var kids []int
	for _, ent := range entries {
		child, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		st := readStat(filepath.Join("/proc", ent.Name(), "stat"))
		if st.ppid > 0 && keep(st) {
			kids = append(kids, child)
		}
	}
	return kids
}

// readStat reads the parent pid, the session id and the start time from
// a /proc/PID/stat file ("pid (comm) state ppid pgrp session … starttime
// …", starttime the 22nd field; comm may hold spaces and parentheses).
func readStat(statPath string) procStat {
	stat, err := os.ReadFile(statPath)
	if err != nil {
		return procStat{}
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}
	}
	fields := strings.Fields(s[i+1:]) // from the 3rd field on
	if len(fields) < 20 {
		return procStat{}
	}
	var st procStat
	st.ppid, _ = strconv.Atoi(fields[1])
	st.sid, _ = strconv.Atoi(fields[3])
	st.started, _ = strconv.ParseUint(fields[19], 10, 64)
	return st
}

// uptimeTicks is the time since boot in the clock ticks of a process's
// start time (USER_HZ, 100 a second on Linux), or 0 when unknown.
func uptimeTicks() uint64 {
	raw, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0
	}
	secs, _, _ := strings.Cut(string(raw), " ")
	f, err := strconv.ParseFloat(secs, 64)
	if err != nil || f <= 1 {
		return 0
	}
	return uint64(f*100) - 100 // a second early: the counters round apart
}

// keepTasksFromInspecting marks this process not dumpable. A task's
// command runs as the owner, and a process may read the environment and
// memory of another of the same user (/proc/PID/environ, /proc/PID/mem,
// ptrace attach) unless the kernel restricts it (Yama), so a task read
// aoi's environment, with the auth and API keys BaseEnv keeps from it,
// from /proc/AOI/environ, or could attach a debugger to aoi. A process
// that is not dumpable is root's alone to inspect; it also leaves no core
// dump. A process aoi starts (a reaper, a task's command) is dumpable
// again after its exec.
func keepTasksFromInspecting() {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}

// processStopped reports whether pid is stopped by a signal (state T in
// /proc/PID/stat; a tracer's stop, t, is not counted: someone debugging
// aoi under strace -f stops its reapers for a moment at every call).
func processStopped(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && i+2 < len(stat) && stat[i+2] == 'T'
}

// exitLike ends the reaper the way the command ended: with its code, or
// killed by its signal, so the runner reads the same status.
func exitLike(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		sig := ws.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond)
		return 128 + int(sig)
	}
	return ws.ExitStatus()
}

// A command runs as the owner, so it can kill its reaper (`kill -9
// $PPID`); what it started would then be orphaned to init, in a session
// of its own and without AOI_TASK_ID, out of every net. So while reaped
// commands run, aoi itself is a child subreaper too: a dead reaper's
// orphans become aoi's children, and the runner, told by the missing end
// line that the reaper did not finish, kills them (sweepAdopted).
var adopting struct {
	sync.Mutex
	n int
	// since is when the first of the running reaped commands started
	// (uptimeTicks): what a task left was started after it, so nothing
	// older is taken for the task's (the coding assistant's server, had it
	// a session of its own).
	since uint64
}

// adoptOrphans marks this process a child subreaper while at least one
// reaped command runs; release with unadopt once it ended (and its
// leftovers were swept).
func adoptOrphans() error {
	adopting.Lock()
	defer adopting.Unlock()
	if adopting.n == 0 {
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return err
		}
		adopting.since = uptimeTicks()
	}
	adopting.n++
	return nil
}

func unadopt() {
	adopting.Lock()
	defer adopting.Unlock()
	adopting.n--
	if adopting.n == 0 {
		_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
		reapAdoptedZombies(adopting.since)
	}
}

// reapAdoptedZombies collects the children of other sessions that have
// ended: orphans adopted while aoi was a subreaper that are no task's (a
// daemon git or the coding assistant detached) would otherwise stay
// zombies, since nothing in aoi waits for a pid it did not start.
func reapAdoptedZombies(since uint64) {
	for _, kid := range adoptedChildren(since) {
		var ws syscall.WaitStatus
		_, _ = syscall.Wait4(kid, &ws, syscall.WNOHANG, nil)
	}
}

// adoptedChildren lists this process's children that run in a session
// other than its own and started at since or later.
func adoptedChildren(since uint64) []int {
	self := os.Getpid()
	own, err := unix.Getsid(0)
	if err != nil {
		return nil
	}
	return childrenWhere(func(p procStat) bool { return p.ppid == self && p.sid != own && p.started >= since })
}

// sweepAdopted kills and reaps, generation by generation, the children of
// this process that run in a session other than its own: what a task left
// after killing its reaper (every command runs in a session of its own,
// and so does all it starts). Nothing aoi starts itself takes a session
// of its own (exec.Cmd children share aoi's; a reaper and the MCP bridge
// only a group), so neither is touched nor waited for here; keep it so.
// A child that took one itself before the running tasks began (an MCP
// server that calls setsid) is older than the window and left alone too.
// It returns the pids it killed.
func sweepAdopted() []int {
	adopting.Lock()
	since := adopting.since
	adopting.Unlock()
	var killed []int
	deadline := time.Now().Add(reapFor)
	for range reapRounds {
		kids := adoptedChildren(since)
		if len(kids) == 0 || time.Now().After(deadline) {
			return killed
		}
		for _, kid := range kids {
			if syscall.Kill(kid, syscall.SIGKILL) == nil {
				killed = append(killed, kid)
			}
		}
		// Reap each, so its own children come here for the next round.
		for _, kid := range kids {
			for {
				var ws syscall.WaitStatus
				got, err := syscall.Wait4(kid, &ws, syscall.WNOHANG, nil)
				if err == syscall.EINTR {
					continue
				}
				if err != nil || got == kid || time.Now().After(deadline) {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
	}
	return killed
}
