//go:build unix

package agent

import (
	"io/fs"
	"syscall"
)

// ownerOf is the uid that owns a file.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
