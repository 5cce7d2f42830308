//go:build !linux && !darwin

package rpc

import (
	"errors"
	"net"
)

// maxUnixPath is the smallest common sun_path limit.
const maxUnixPath = 103

// peerCred is not implemented here, so the control socket refuses callers.
func peerCred(*net.UnixConn) (uid, pid int, err error) {
	return 0, 0, errors.New("peer credentials are not supported on this platform")
}
