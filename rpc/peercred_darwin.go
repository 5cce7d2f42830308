package rpc

import (
	"net"

	"golang.org/x/sys/unix"
)

// maxUnixPath is sun_path's size less the terminating NUL.
const maxUnixPath = 103

// peerCred returns the uid (LOCAL_PEERCRED) and pid (LOCAL_PEERPID) of the
// peer of a unix connection.
func peerCred(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, 0, err
	}
	var cred *unix.Xucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if serr == nil {
			pid, _ = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
		}
	}); err != nil {
		return 0, 0, err
	}
	if serr != nil {
		return 0, 0, serr
	}
	return int(cred.Uid), pid, nil
}
