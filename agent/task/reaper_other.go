//go:build !linux

package task

import (
	"fmt"
	"os"
)

// reaperSupported: only Linux has child subreapers.
const reaperSupported = false

func reaperMain([]string) int {
	fmt.Fprintln(os.Stderr, "aoi: a task reaper needs Linux")
	return 127
}

func reaperArgv([]string, *Confinement) (string, []string) { return "", nil }

func adoptOrphans() error { return nil }
func unadopt()            {}
func sweepAdopted() []int { return nil }

func processStopped(int) bool { return false }

func keepTasksFromInspecting() {}

// StartedByTask is false where tasks run without a reaper.
func StartedByTask(int) bool { return false }
