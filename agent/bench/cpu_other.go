//go:build !unix

package bench

import "time"

// processCPU is unknown here: CPU per request is reported as 0.
func processCPU() time.Duration { return 0 }
