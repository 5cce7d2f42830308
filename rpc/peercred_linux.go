package rpc

import (
	"net"

	"golang.org/x/sys/unix"
)

// maxUnixPath is sun_path's size less the terminating NUL.
const maxUnixPath = 107

// peerCred returns the uid and pid of the peer of a unix connection
// (SO_PEERCRED).
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var cred *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, 0, err
	}
	if serr != nil {
		return 0, 0, serr
	}
	return int(cred.Uid), int(cred.Pid), nil
}
