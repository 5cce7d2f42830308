package task

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// A task's command runs as the owner, so file permissions keep it from
// nothing the owner may touch: with an absolute path it writes the owner's
// dotfiles, another repository's .git/hooks or the owner's build cache,
// and it may kill aoi or its own reaper (it knows their pids). Where the
// kernel has Landlock, the command therefore runs in a Landlock domain of
// its own: it writes only beneath the folders its Confinement names, and it
// can neither signal nor reach through an abstract unix socket a process
// outside that domain (aoi, its reaper, the owner's session). Reading and
// executing stay allowed everywhere but in aoi's data dir (Hidden): tests
// run the owner's toolchains.
//
// Go cannot run code between fork and exec, so the reaper starts this
// same binary as a tiny step (argv confineArg …) that restricts itself
// and then execs the command: the step's domain is the command's, and the
// reaper, outside it, can still kill the command's group.

// confineArg is the argument that starts this binary as the confining
// step (see ReapIfAsked).
const confineArg = "aoi-task-confine"

// Confinement says what a task's command may write. A Job without one runs
// as its runner found it (a runner's own tests); the engine gives every
// command task one.
type Confinement struct {
	// Writable lists the folders (and device files) beneath which the
	// command may create, write, truncate, rename and remove.
	Writable []string
	// Hidden, when set, is a folder the command may neither read nor
	// write beneath, even where a Writable folder holds it (a real_home
	// type's home), except in the Writable folders beneath it (the
	// task's own): aoi's data dir, which holds
	// the agent's identity key, its database and its config (a task
	// holding the key could call colleagues as the owner). Everything
	// else stays readable.
	Hidden string
	// Off, when set, says why the command runs unconfined (the task
	// type's "unconfined"); the task's output says so once.
	Off string
}

// deviceFiles are the device files a confined command may open for
// writing, besides its own folders. /dev/null, /dev/zero and /dev/full
// write nowhere; /dev/tty is the command's own terminal (it has none: it
// runs in a session of its own). /dev/ptmx and /dev/pts let a test drive a
// program through a pseudo-terminal it makes; they also let the command
// open the owner's terminals, which it could read anyway (reads are not
// confined). /dev/shm holds POSIX shared memory and semaphores (Python's
// multiprocessing locks), named by the programs that share them.
var deviceFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm"}

// confineArgs is how the runner hands a Confinement to the reaper, in
// front of its "--": each writable folder after --write, the reason for
// none after --unconfined.
func (c *Confinement) args() []string {
	if c == nil {
		return nil
	}
	if c.Off != "" {
		return []string{"--unconfined", c.Off}
	}
	var args []string
	for _, p := range c.Writable {
		args = append(args, "--write", p)
	}
	if c.Hidden != "" {
		args = append(args, "--hide", c.Hidden)
	}
	return args
}

// parseConfinement reads what args() wrote, up to and including "--", and
// returns the Confinement (nil when none was given) and the rest.
func parseConfinement(args []string) (*Confinement, []string, error) {
	var c *Confinement
	for len(args) > 0 && args[0] != "--" {
		if len(args) < 2 {
			return nil, nil, fmt.Errorf("%s needs a value", args[0])
		}
		if c == nil {
			c = &Confinement{}
		}
		switch args[0] {
		case "--write":
			c.Writable = append(c.Writable, args[1])
		case "--hide":
			c.Hidden = args[1]
		case "--unconfined":
			c.Off = args[1]
		default:
			return nil, nil, fmt.Errorf("unknown argument %q", args[0])
		}
		args = args[2:]
	}
	if len(args) == 0 {
		return nil, nil, fmt.Errorf("no command after --")
	}
	return c, args[1:], nil
}

// confineIfAsked runs the confining step and never returns when this
// process was started as one.
func confineIfAsked() {
	if len(os.Args) > 1 && os.Args[1] == confineArg {
		os.Exit(confineMain(os.Args[2:]))
	}
}

// confineMain restricts this process to what its arguments allow (--write
// PATH …), then replaces it with the command after "--" (its resolved
// path, then its argv). It returns only when that fails.
func confineMain(args []string) int {
	c, rest, err := parseConfinement(args)
	if err != nil || c == nil || len(rest) < 2 {
		fmt.Fprintln(os.Stderr, "aoi: a task's confining step is started by aoi only")
		return 127
	}
	// Landlock restricts the calling thread; the same thread must exec.
	runtime.LockOSThread()
	if err := restrictSelf(c.Writable, c.Hidden); err != nil {
		// Fail closed: a command that asked for confinement and could
		// not get it (a folder gone, the kernel refusing) does not run.
		fmt.Fprintf(os.Stderr, "aoi: the task's command was not run: it could not be confined: %v\n", err)
		return 126
	}
	err = syscall.Exec(rest[0], rest[1:], os.Environ())
	fmt.Fprintf(os.Stderr, "aoi: cannot run %s: %v\n", rest[0], err)
	return 127
}
