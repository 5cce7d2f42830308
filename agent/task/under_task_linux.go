package task

import (
	"bytes"
	"os"
	"strconv"
	"strings"
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
// A task's command runs as the owner, so the control socket (which serves
// the owner's user) would take its calls: approvals, trust, the owner's
// messages. Reading each ancestor's /proc entries costs a few file reads
// per control request.
func StartedByTask(pid int) bool {
	self := os.Getpid()
	markers := [][]byte{[]byte("\x00" + reaperEnv + "=" + reaperValue + "\x00"), []byte("\x00" + TaskServerMark + "\x00")}
	for range maxAncestry {
		if pid <= 1 || pid == self {
			return false
		}
		if environHasAny(pid, markers) {
			return true
		}
		ppid, ok := parentPID(pid)
		if !ok {
			return false
		}
		pid = ppid
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

// parentPID reads pid's parent from /proc/PID/stat (the field after the
// command's name, which may hold spaces and parentheses).
func parentPID(pid int) (int, bool) {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}
