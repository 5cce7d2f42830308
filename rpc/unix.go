package rpc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// ControlURL is the URL a control-socket client posts to; the host is
// ignored because UnixHTTPClient always dials the socket.
const ControlURL = "http://aoi" + Path

// ListenUnix listens on the control socket at path, owner-only (0600).
//
// The mode is set at bind time under a umask of 0177 rather than by a
// chmod afterwards, which would leave a window in which another user could
// connect. umask is process-wide, so the change is serialised and lasts
// only for the bind; files created meanwhile by other goroutines can only
// come out more restrictive, never less.
//
// An exclusive lock on path+".lock", held until the listener is closed,
// makes two aoi processes for one data dir impossible. A leftover socket
// file that nothing answers on is removed; a live one is an error.
func ListenUnix(path string) (net.Listener, error) {
	if len(path) > maxUnixPath {
		return nil, fmt.Errorf("control socket path %s is %d bytes, over this platform's %d-byte limit for Unix sockets; use a shorter data dir (--data-dir or AOI_DATA_DIR)", path, len(path), maxUnixPath)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("creating the control socket's directory: %w", err)
	}
	if err := checkSocketFolder(filepath.Dir(path), path); err != nil {
		return nil, err
	}
	lock, err := lockFile(path + ".lock")
	switch {
	case errors.Is(err, syscall.EWOULDBLOCK):
		return nil, alreadyRunning(path, livePID(path))
	case err != nil:
		return nil, fmt.Errorf("locking %s.lock: %w", path, err)
	}
	ln, err := listenLocked(path)
	if err != nil {
		lock.Close()
		return nil, err
	}
	return &unixListener{Listener: ln, lock: lock}, nil
}

func listenLocked(path string) (net.Listener, error) {
	if err := removeStale(path); err != nil {
		return nil, err
	}
	ln, err := listenPrivate(path)
	if err != nil {
		return nil, fmt.Errorf("listening on the control socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil { // for filesystems that ignore umask
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// removeStale deletes a socket file at path that nothing answers on.
func removeStale(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("%s exists and is not a socket; move it out of the way", path)
	}
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err == nil {
		pid := connPID(conn)
		conn.Close()
		return alreadyRunning(path, pid)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("checking the existing control socket %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the stale control socket %s: %w", path, err)
	}
	return nil
}

func alreadyRunning(path, pid string) error {
	return fmt.Errorf("another aoi is already running for this data dir (pid %s, socket %s): use it (run `aoi` to attach, or the CLI commands), or stop it first", pid, path)
}

// SocketPID is the pid of the process serving the Unix socket at path, or
// "?" when nothing answers or the platform cannot tell.
func SocketPID(path string) string { return livePID(path) }

// livePID asks the socket at path who serves it ("?" if unknown).
func livePID(path string) string {
	conn, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return "?"
	}
	defer conn.Close()
	return connPID(conn)
}

// connPID returns the pid of the process behind a unix connection, "?" if
// the platform cannot tell.
func connPID(c net.Conn) string {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return "?"
	}
	_, pid, err := peerCred(uc)
	if err != nil || pid <= 0 {
		return "?"
	}
	return strconv.Itoa(pid)
}

// unixListener releases the instance lock when closed.
type unixListener struct {
	net.Listener
	lock *os.File
	once sync.Once
}

func (l *unixListener) Close() error {
	err := l.Listener.Close()
	l.once.Do(func() { l.lock.Close() })
	return err
}

type unixConnKey struct{}

// UnixConnContext is an http.Server.ConnContext that keeps the connection
// in the request context so UnixIdentify can ask who is on the other end.
func UnixConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, unixConnKey{}, c)
}

// UnixIdentify accepts only a caller running as this process's user.
func UnixIdentify(r *http.Request) (Caller, error) {
	c, _ := r.Context().Value(unixConnKey{}).(net.Conn)
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return Caller{}, errors.New("control socket request without its connection (serve it with http.Server{ConnContext: rpc.UnixConnContext})")
	}
	uid, pid, err := peerCred(uc)
	if err != nil {
		return Caller{}, fmt.Errorf("cannot tell who is calling on the control socket: %w", err)
	}
	return localCaller(uid, pid, os.Getuid())
}

// localCaller admits a peer process only when it runs as owner.
func localCaller(uid, pid, owner int) (Caller, error) {
	if uid != owner {
		return Caller{}, fmt.Errorf("the control socket serves only its owner (uid %d), not uid %d", owner, uid)
	}
	return Caller{Kind: CallerLocal, Addr: "pid:" + strconv.Itoa(pid)}, nil
}

// ErrForeignSocket is CheckUnixServer's refusal of a socket another user
// serves.
var ErrForeignSocket = errors.New("the control socket is not yours")

// CheckUnixServer refuses a connection to the socket at path unless the
// process serving it runs as this process's user. A socket someone else
// serves is not your aoi: another local user who bound the path first (in
// a shared temporary folder, say) would read every control call, an
// approval or what the coding assistant reports through aoi mcp, and
// answer them as it liked.
func CheckUnixServer(c net.Conn, path string) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("the control socket %s is not a Unix socket connection", path)
	}
	uid, _, err := peerCred(uc)
	if err != nil {
		return fmt.Errorf("cannot tell who serves the control socket %s: %w", path, err)
	}
	if me := os.Getuid(); uid != me {
		return fmt.Errorf("%w: %s is served by another user (uid %d, you are uid %d), not by your aoi; "+
			"nothing was sent: remove it, and give aoi a shorter data dir or set XDG_RUNTIME_DIR so the socket lies in a folder of yours", ErrForeignSocket, path, uid, me)
	}
	return nil
}

// UnixHTTPClient returns a client that always dials the socket at path,
// served by this process's user (CheckUnixServer); post to ControlURL.
func UnixHTTPClient(path string) *http.Client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "unix", path)
			if err != nil {
				return nil, err
			}
			if err := CheckUnixServer(c, path); err != nil {
				c.Close()
				return nil, err
			}
			return c, nil
		},
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     30 * time.Second,
	}
	return &http.Client{Transport: tr}
}
