//go:build unix

package rpc

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

var umaskMu sync.Mutex

// listenPrivate binds a unix socket whose file is created as 0600.
func listenPrivate(path string) (net.Listener, error) {
	umaskMu.Lock()
	defer umaskMu.Unlock()
	old := syscall.Umask(0o177)
	defer syscall.Umask(old)
	return net.Listen("unix", path)
}

// lockFile takes an exclusive, non-blocking lock on path, kept while the
// returned file is open.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkSocketFolder refuses to put the control socket at path in dir
// unless dir is this user's own and nobody else may write in it (group
// and others included, sticky bit or not): whoever may add or rename
// entries there can bind the socket's name first or take its lock, and
// serve the CLI and aoi mcp in aoi's place. When the data dir's path is
// too long for a socket, the socket goes to $XDG_RUNTIME_DIR or a folder
// named after the uid in the temporary folder, which another user may
// have made first. A link there must be this user's (or root's) too, or
// its owner could repoint it.
func checkSocketFolder(dir, path string) error {
	me := os.Getuid()
	li, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("checking the control socket's folder: %w", err)
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		if owner := li.Sys().(*syscall.Stat_t).Uid; int(owner) != me && owner != 0 {
			return fmt.Errorf("the control socket %s would lie in %s, a link another user (uid %d, you are uid %d) may repoint; "+
				"give aoi a shorter data dir or set XDG_RUNTIME_DIR to a folder of yours", path, dir, owner, me)
		}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("checking the control socket's folder: %w", err)
	}
	if owner := fi.Sys().(*syscall.Stat_t).Uid; int(owner) != me {
		return fmt.Errorf("the control socket %s would lie in %s, which belongs to another user (uid %d, you are uid %d), "+
			"who could serve aoi's CLI in its place; give aoi a shorter data dir or set XDG_RUNTIME_DIR to a folder of yours", path, dir, owner, me)
	}
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("the control socket %s would lie in %s, which other users may write (mode %#o) and so bind its name first; run: chmod go-w %s",
			path, dir, perm, dir)
	}
	return nil
}
