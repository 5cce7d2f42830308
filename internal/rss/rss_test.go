package rss

import (
	"runtime"
	"testing"
)

// TestPeakKiBSeesAnAllocation: touching 64 MiB raises the peak by about
// that much on Linux; elsewhere PeakKiB reports 0, as documented.
func TestPeakKiBSeesAnAllocation(t *testing.T) {
	if runtime.GOOS != "linux" {
		if PeakKiB() != 0 {
			t.Fatalf("PeakKiB = %d off Linux, want 0", PeakKiB())
		}
		return
	}
	ResetPeak()
	before := PeakKiB()
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = 1
	}
	after := PeakKiB()
	runtime.KeepAlive(b)
	if before <= 0 || after-before < 48<<10 {
		t.Fatalf("peak %d KiB → %d KiB after touching 64 MiB", before, after)
	}
}
