//go:build !linux

package rpc

import "time"

// threadCPU cannot be read here: sanitize falls back to the time it took.
func threadCPU() (time.Duration, bool) { return 0, false }
