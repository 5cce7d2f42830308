package main

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
)

// proc is a real aoi process started by a test: the interface in a pty, or
// `aoi serve` with its output captured.
type proc struct {
	cmd  *exec.Cmd
	pty  *os.File // the master side, for the interface
	out  *syncBuffer
	done chan struct{} // closed when the process has exited
	err  error         // its Wait error, once done
}

// procEnv is an environment that keeps every default location in home, so
// a process never touches the real user's aoi.
func procEnv(home string) []string {
	env := []string{"HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_RUNTIME_DIR=" + home,
		"TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
	return env
}

// initAgent runs `aoi init` for an agent on a free loopback port.
func initAgent(t *testing.T, bin, dir, id string) {
	t.Helper()
	out, err := exec.Command(bin, "init", "--id", id, "--listen", "127.0.0.1:0", "--data-dir", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("aoi init: %v\n%s", err, out)
	}
}

// startInterface starts `aoi` (the interface) for dir in a 120×36 pty.
func startInterface(t *testing.T, bin, dir string) *proc {
	t.Helper()
	cmd := exec.Command(bin, "--data-dir", dir)
	cmd.Env = procEnv(t.TempDir())
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 36, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	master = pollable(t, master)
	p := &proc{cmd: cmd, pty: master, out: &syncBuffer{}, done: make(chan struct{})}
	go io.Copy(p.out, master) // ends with EIO once the process is gone
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.kill(); master.Close() })
	return p
}

// pollable returns f as a non-blocking, poller-backed file. A blocking
// master defers its close(2) until a pending Read returns, so closing it
// under the output reader would never hang up the terminal.
func pollable(t *testing.T, f *os.File) *os.File {
	t.Helper()
	fd, err := syscall.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fd), "ptmx")
}

// startServeProc starts `aoi serve` for dir as a real process.
func startServeProc(t *testing.T, bin, dir string) *proc {
	t.Helper()
	return startServeWith(t, bin, dir, nil, nil)
}

// startServeWith is startServeProc with more arguments after
// `serve --data-dir DIR` and more environment variables (KEY=VALUE).
func startServeWith(t *testing.T, bin, dir string, args, env []string) *proc {
	t.Helper()
	return startProc(t, bin, append([]string{"serve", "--data-dir", dir}, args...), env)
}

// startProc starts the aoi binary with args (and more environment) as a
// real process with its output captured, ended when the test ends.
func startProc(t *testing.T, bin string, args, env []string) *proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(procEnv(t.TempDir()), env...)
	p := &proc{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(p.kill)
	return p
}

// kill ends the process if it still runs and waits for it.
func (p *proc) kill() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Kill()
	<-p.done
}

// signal sends sig to the process.
func (p *proc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v: %v", sig, err)
	}
}

// exited waits up to d for the process to end.
func (p *proc) exited(d time.Duration) bool {
	select {
	case <-p.done:
		return true
	case <-time.After(d):
		return false
	}
}

// exitCode is the process's exit status (-1 when a signal ended it).
func (p *proc) exitCode() int {
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	if p.err != nil {
		return -1
	}
	return 0
}

// waitFor polls cond every 50 ms for up to d; it fails the test with what
// when cond never holds or the process ends first.
func (p *proc) waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		select {
		case <-p.done:
			t.Fatalf("the process exited (%v) while waiting for %s; output:\n%s", p.err, what, p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v; output:\n%s", what, d, p.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// statusOf asks the aoi running for dir for its status over the socket.
func statusOf(dir string) (agent.Status, error) {
	c, err := ctlclient.Dial(dir)
	if err != nil {
		return agent.Status{}, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.Status(ctx)
}

// waitServing waits until the aoi for dir answers on its control socket
// and returns its status.
func (p *proc) waitServing(t *testing.T, dir string) agent.Status {
	t.Helper()
	var st agent.Status
	p.waitFor(t, 30*time.Second, "answer on the control socket", func() bool {
		var err error
		st, err = statusOf(dir)
		return err == nil && st.ListenAddr != ""
	})
	return st
}

// released checks that nothing holds addr or the control socket of dir.
func released(t *testing.T, dir, addr string) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Errorf("port %s still held after the process exited: %v", addr, err)
	} else {
		ln.Close()
	}
	if _, err := os.Stat(agent.SocketPath(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("control socket %s left behind (stat: %v)", agent.SocketPath(dir), err)
	}
	if _, err := ctlclient.Dial(dir); err == nil {
		t.Error("something still answers on the control socket")
	}
}

// screenHas reports whether the interface has drawn s.
func (p *proc) screenHas(s string) bool { return strings.Contains(p.out.String(), s) }

// pinnedPair starts two real `aoi serve` daemons, eng-suzuki and pm-tanaka
// (pinned to each other, pm-tanaka trusted as a pm), and returns their
// data dirs and the engineer's process.
func pinnedPair(t *testing.T, bin string) (eng, pm string, engProc *proc) {
	t.Helper()
	return pinnedPairWith(t, bin, serveOpts{}, serveOpts{})
}

// serveOpts are more arguments and environment for one `aoi serve` of
// pinnedPairWith; prepare, when set, runs on the data dir after `aoi
// init` and before the daemon starts.
type serveOpts struct {
	args, env []string
	prepare   func(dir string)
}

// pinnedPairWith is pinnedPair with options for each daemon.
func pinnedPairWith(t *testing.T, bin string, engOpts, pmOpts serveOpts) (eng, pm string, engProc *proc) {
	t.Helper()
	eng, pm, engProc, _ = pinnedPairProcs(t, bin, engOpts, pmOpts)
	return eng, pm, engProc
}

// pinnedPairProcs is pinnedPairWith handing out both daemons.
func pinnedPairProcs(t *testing.T, bin string, engOpts, pmOpts serveOpts) (eng, pm string, engProc, pmProc *proc) {
	t.Helper()
	eng, pm = shortDir(t), shortDir(t)
	initAgent(t, bin, eng, "eng-suzuki")
	initAgent(t, bin, pm, "pm-tanaka")
	for dir, o := range map[string]serveOpts{eng: engOpts, pm: pmOpts} {
		if o.prepare != nil {
			o.prepare(dir)
		}
	}
	engProc = startServeWith(t, bin, eng, engOpts.args, engOpts.env)
	pmProc = startServeWith(t, bin, pm, pmOpts.args, pmOpts.env)
	engSt, pmSt := engProc.waitServing(t, eng), pmProc.waitServing(t, pm)
	cli(t, bin, pm, "peers", "trust", "eng-suzuki", engSt.Fingerprint, "--endpoint", engSt.ListenAddr)
	cli(t, bin, eng, "peers", "trust", "pm-tanaka", pmSt.Fingerprint, "--endpoint", pmSt.ListenAddr, "--role", "pm")
	return eng, pm, engProc, pmProc
}
