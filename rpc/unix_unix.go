//go:build unix

package rpc

import (
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
