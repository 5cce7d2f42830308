//go:build !linux

package bench

// filesystem is unknown off Linux: the report leaves it out.
func filesystem(string) string { return "" }
