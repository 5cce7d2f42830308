package rpc

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// shortDir returns a temporary directory with a path short enough for a
// unix socket even when TMPDIR is long.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "aoi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func serveControl(t *testing.T, ln net.Listener) {
	t.Helper()
	s := specServer(t, Options{Identify: UnixIdentify})
	s.Handle("whoami", func(ctx context.Context, c *Call) (any, error) {
		got, _ := CallerFrom(ctx)
		return got, nil
	})
	srv := NewHTTPServer(s, nil)
	srv.ConnContext = UnixConnContext
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}

func TestControlSocket(t *testing.T) {
	path := filepath.Join(shortDir(t), "aoi.sock")
	ln, err := ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	serveControl(t, ln)
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v, want socket 0600 (%v)", fi.Mode(), err)
	}
	var got Caller
	c := NewClient(ControlURL, UnixHTTPClient(path), ClientOptions{})
	if err := c.Call(context.Background(), "whoami", nil, &got); err != nil {
		t.Fatalf("call: %v", err)
	}
	if got.Kind != CallerLocal || got.Addr != "pid:"+strconv.Itoa(os.Getpid()) {
		t.Fatalf("caller %+v, want local pid:%d", got, os.Getpid())
	}

	_, err = ListenUnix(path)
	if err == nil || !strings.Contains(err.Error(), "already running") || !strings.Contains(err.Error(), strconv.Itoa(os.Getpid())) {
		t.Fatalf("second listener: want 'already running' with our pid, got %v", err)
	}
	ln.Close()
	ln2, err := ListenUnix(path)
	if err != nil {
		t.Fatalf("listening again after close: %v", err)
	}
	ln2.Close()
}

func TestControlSocketStaleReplaced(t *testing.T) {
	path := filepath.Join(shortDir(t), "aoi.sock")
	old, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	old.(*net.UnixListener).SetUnlinkOnClose(false)
	old.Close() // a crashed aoi leaves its socket file behind
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("stale socket file missing: %v", err)
	}
	ln, err := ListenUnix(path)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	serveControl(t, ln)
	if err := NewClient(ControlURL, UnixHTTPClient(path), ClientOptions{}).Call(context.Background(), "get_data", nil, nil); err != nil {
		t.Fatalf("call on the new socket: %v", err)
	}
}

func TestControlSocketLiveForeignRefused(t *testing.T) {
	path := filepath.Join(shortDir(t), "aoi.sock")
	live, err := net.Listen("unix", path) // something answers, without our lock
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if _, err := ListenUnix(path); err == nil || !strings.Contains(err.Error(), "another aoi is already running for this data dir") {
		t.Fatalf("live socket: got %v", err)
	}
	if _, err := os.Lstat(path); err != nil {
		t.Fatalf("a live socket must not be removed: %v", err)
	}
}

func TestControlSocketRefusals(t *testing.T) {
	dir := shortDir(t)
	long := filepath.Join(dir, strings.Repeat("d", 120), "aoi.sock")
	if _, err := ListenUnix(long); err == nil || !strings.Contains(err.Error(), "AOI_DATA_DIR") {
		t.Fatalf("long path: got %v", err)
	}
	file := filepath.Join(dir, "aoi.sock")
	os.WriteFile(file, []byte("not a socket"), 0o600)
	if _, err := ListenUnix(file); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Fatalf("regular file: got %v", err)
	}
	req, _ := http.NewRequest(http.MethodPost, ControlURL, nil)
	if _, err := UnixIdentify(req); err == nil {
		t.Fatal("a request without its connection must not be identified")
	}
	if _, err := localCaller(1001, 42, 1000); err == nil || !strings.Contains(err.Error(), "only its owner") {
		t.Fatalf("another uid must be refused: %v", err)
	}
	missing := filepath.Join(dir, "none.sock")
	err := NewClient(ControlURL, UnixHTTPClient(missing), ClientOptions{MaxAttempts: 1}).Call(context.Background(), "x", nil, nil)
	var te *TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "aoi serve") {
		t.Fatalf("no daemon: want advice to start aoi serve, got %v", err)
	}
}
