package task

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// killLeftovers kills every process still carrying AOI_TASK_ID=<taskID> in
// its environment: what survives of a task when the agent itself was killed
// (the task's process group outlives it). It reads /proc, so it does
// nothing where there is none, and returns the pids it signalled.
func killLeftovers(taskID string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	marker := []byte("AOI_TASK_ID=" + taskID + "\x00")
	self := os.Getpid()
	var killed []int
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "environ"))
		if err != nil || !hasEnvEntry(env, marker) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed = append(killed, pid)
		}
	}
	return killed
}

// hasEnvEntry reports whether a NUL-separated environ block holds entry
// (which ends in NUL) as a whole variable.
func hasEnvEntry(env, entry []byte) bool {
	env = append(env, 0)
	i := bytes.Index(env, entry)
	for i >= 0 {
		if i == 0 || env[i-1] == 0 {
			return true
		}
		next := bytes.Index(env[i+1:], entry)
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}
