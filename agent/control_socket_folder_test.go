package agent_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/rpc"
)

// longDataDir sets up an agent whose data dir is too long for a socket
// path, with no XDG_RUNTIME_DIR, so its control socket goes to the
// temporary folder (TMPDIR, here a folder of the test's standing for
// /tmp) under aoi-UID, a name any local user can make first. It returns
// the data dir and that folder.
func longDataDir(t *testing.T) (dataDir, sockDir string) {
	base := t.TempDir()
	tmp := filepath.Join(base, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, 0o777|os.ModeSticky); err != nil { // as /tmp
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", tmp)
	t.Setenv("XDG_RUNTIME_DIR", "")
	dataDir = filepath.Join(base, strings.Repeat("d", 100))
	if _, err := agent.Init(agent.InitOptions{DataDir: dataDir, AgentID: "eng-a", Role: "engineer", ListenAddr: "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	sockDir = filepath.Join(tmp, fmt.Sprintf("aoi-%d", os.Getuid()))
	if got := filepath.Dir(agent.SocketPath(dataDir)); got != sockDir {
		t.Fatalf("the socket goes to %s, want %s", got, sockDir)
	}
	return dataDir, sockDir
}

// serveErr starts a core on dataDir and returns what Serve returned, or
// nil when it listened (the core then stops).
func serveErr(t *testing.T, dataDir string) error {
	t.Helper()
	core, err := agent.Open(context.Background(), agent.Options{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx) }()
	select {
	case err := <-done:
		cancel()
		return err
	case <-core.Listening():
		cancel()
		<-done
		return nil
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("the core neither listened nor failed within 10s")
	}
	return nil
}

// TestControlSocketFolderOthersMayWriteIsRefused: the folder the control
// socket falls back to was taken as found. Made first by another user who
// lets anybody write in it (or owned by that user), it let them bind the
// socket's name or take its lock, and serve the CLI and aoi mcp in aoi's
// place. aoi serve refuses such a folder, naming it and the fix; a folder
// of its own it makes and uses.
func TestControlSocketFolderOthersMayWriteIsRefused(t *testing.T) {
	dataDir, sockDir := longDataDir(t)
	if err := os.Mkdir(sockDir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sockDir, 0o777); err != nil {
		t.Fatal(err)
	}
	err := serveErr(t, dataDir)
	if err == nil || !strings.Contains(err.Error(), sockDir) || !strings.Contains(err.Error(), "chmod go-w "+sockDir) {
		t.Fatalf("a socket folder anybody may write: Serve = %v, want it refused naming %s and the chmod", err, sockDir)
	}
	if os.Getuid() == 0 {
		// Another user's folder, which only they may write.
		if err := os.Chmod(sockDir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(sockDir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		err := serveErr(t, dataDir)
		if err == nil || !strings.Contains(err.Error(), "belongs to another user (uid 65534") {
			t.Fatalf("another user's socket folder: Serve = %v, want it refused", err)
		}
	}
	if err := os.RemoveAll(sockDir); err != nil {
		t.Fatal(err)
	}
	if err := serveErr(t, dataDir); err != nil {
		t.Fatalf("with the folder gone, aoi makes its own: %v", err)
	}
	if fi, err := os.Stat(sockDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the socket folder aoi made: %v, %v; want mode 0700", fi, err)
	}
}

// TestControlClientRefusesAnotherUsersSocket: with no aoi running, another
// local user (nobody here) makes the socket folder and listens at the
// socket's path. The CLI and aoi mcp connected and would have sent their
// control calls (an approval, what the assistant reports) to it; they now
// check who serves the socket and refuse, saying so.
func TestControlClientRefusesAnotherUsersSocket(t *testing.T) {
	const python = "/usr/bin/python3"
	if os.Getuid() != 0 {
		t.Skip("needs root to run a process as another user")
	}
	if _, err := os.Stat(python); err != nil {
		t.Skip("needs " + python + " to serve a socket as another user")
	}
	dataDir, sockDir := longDataDir(t)
	// nobody must reach the temporary folder to make its own in it.
	testRoot := filepath.Dir(filepath.Dir(dataDir)) // t.TempDir's own folder
	for d := filepath.Dir(sockDir); d != filepath.Dir(testRoot); d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o005 != 0o005 {
			if err := os.Chmod(d, fi.Mode().Perm()|0o005); err != nil {
				t.Fatal(err)
			}
		}
	}
	sock := agent.SocketPath(dataDir)
	script := `import os, socket, sys, time
os.mkdir(os.path.dirname(sys.argv[1]), 0o755)
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
held = []
end = time.time() + 60
while time.time() < end:
    c, _ = s.accept()
    held.append(c)
`
	cmd := exec.Command(python, "-c", script, sock)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the impostor did not listen at %s: %s", sock, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := "served by another user (uid 65534"
	if _, err := ctlclient.Dial(dataDir); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Dial to another user's socket: %v, want it refused (%s)", err, want)
	}
	c := ctlclient.Open(dataDir) // as aoi mcp does
	defer c.Close()
	_, err := c.Status(context.Background())
	if !errors.Is(err, rpc.ErrForeignSocket) || !strings.Contains(err.Error(), want) {
		t.Fatalf("a call through another user's socket: %v, want it refused (%s)", err, want)
	}
}
