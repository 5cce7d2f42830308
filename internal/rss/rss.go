// Package rss reads this process's peak resident set size, for the
// benchmarks that state a memory goal.
package rss

import (
	"os"
	"strconv"
	"strings"
)

// PeakKiB is the process's high-water resident set since it started or
// since the last ResetPeak (Linux; 0 elsewhere).
func PeakKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}

// ResetPeak resets the kernel's high-water mark (Linux ≥ 4.0), so PeakKiB
// measures what follows.
func ResetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }
