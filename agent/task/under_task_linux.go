package task

import (
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// maxAncestry bounds the walk from a process up to init.
const maxAncestry = 128

// StartedByTask reports whether the process pid descends from a running
// task's reaper: it is the task's command or anything that command
// started. The reaper is a child subreaper, so an orphan of the command's
// is re-parented to it whatever session or environment it took; a
// confined command cannot signal the reaper away (Landlock ABI 6). It
// also reports a process that is, or descends from, one aoi started to
// serve tasks (TaskServerMark: the work AI's MCP server that mcp_tool
// tasks call).
//
// A command can kill its reaper where Landlock cannot scope signals
// (before ABI 6, or an unconfined type): what it left is then re-parented
// to aoi, a child subreaper while reaped commands run, and the walk would
// end at aoi. Such a process is aoi's child in a session other than aoi's
// own, which nothing aoi starts itself takes (see sweepAdopted) and no
// process can leave for aoi's (setsid only makes new sessions, setpgid
// stays within one), so it is reported too; the runner's sweep kills it.
//
// A task's command runs as the owner, so the control socket (which serves
// the owner's user) would take its calls: approvals, trust, the owner's
// messages. Reading each ancestor's /proc entries costs a few file reads
// per control request.
func StartedByTask(pid int) bool {
	self := os.Getpid()
	own, sidErr := unix.Getsid(0)
	markers := [][]byte{[]byte("\x00" + reaperEnv + "=" + reaperValue + "\x00"), []byte("\x00" + TaskServerMark + "\x00")}
	for range maxAncestry {
		if pid <= 1 || pid == self {
			return false
		}
		if environHasAny(pid, markers) {
			return true
		}
		st := readStat("/proc/" + strconv.Itoa(pid) + "/stat")
		if st.ppid <= 0 {
			return false
		}
		if st.ppid == self && sidErr == nil && st.sid != own {
			return true // adopted from a task's killed reaper (adoptedChildren)
		}
		pid = st.ppid
	}
	return false
}

// environHasAny reports whether the environment pid started with holds
// one of markers (each "\x00NAME=VALUE\x00").
func environHasAny(pid int, markers [][]byte) bool {
	env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	env = append(append([]byte{0}, env...), 0)
	for _, m := range markers {
		if bytes.Contains(env, m) {
			return true
		}
	}
	return false
}
