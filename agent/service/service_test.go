package service

import "testing"

// TestReachOf: who can use an endpoint as written, for the notes aoi serve
// and the first-run dialog print beside it.
func TestReachOf(t *testing.T) {
	for endpoint, want := range map[string]Reach{
		"127.0.0.1:7700":    ReachThisMachine,
		"[::1]:7700":        ReachThisMachine,
		"localhost:7700":    ReachThisMachine,
		"0.0.0.0:7700":      ReachEveryInterface,
		"[::]:7700":         ReachEveryInterface,
		":7700":             ReachEveryInterface,
		"100.64.0.7:7700":   ReachAsWritten,
		"aoi.example:7700":  ReachAsWritten,
		"no port":           ReachAsWritten,
		"192.168.1.20:7700": ReachAsWritten,
	} {
		if got := ReachOf(endpoint); got != want {
			t.Errorf("ReachOf(%q) = %d, want %d", endpoint, got, want)
		}
	}
}
