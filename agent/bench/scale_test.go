package bench

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestSimulateSmallTailnet: 20 agents converge once the last one has
// started, each then sends and receives one announce per peer per interval,
// and self_only replies cost less than the seed's full registry.
func TestSimulateSmallTailnet(t *testing.T) {
	opts := ScaleOptions{Agents: 20, Interval: time.Minute, StartSpread: 30 * time.Second, Minutes: 10,
		Latency: 2 * time.Millisecond, Seed: 1, Dir: t.TempDir()}
	rep, err := Simulate(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ConvergedAfter <= 0 || rep.ConvergedAfter > opts.StartSpread+time.Second {
		t.Errorf("converged after %v; want once the last agent started (within %v)", rep.ConvergedAfter, opts.StartSpread)
	}
	// Each pair exchanges announces once an interval (the second of the
	// two skips a peer it exchanged with in the last half interval), so an
	// agent sends and receives N-1 a minute in all, a little under with
	// rounds an interval plus their own duration apart.
	if want := 19.0; rep.AnnouncesPerMin > want*1.01 || rep.AnnouncesPerMin < want*0.9 {
		t.Errorf("announces per agent per minute = %.1f; want about %.0f", rep.AnnouncesPerMin, want)
	}
	if rep.JoinAfter != 4*time.Millisecond { // 19 peers, 16 at a time: two batches of 2 ms
		t.Errorf("join after %v; want 4ms", rep.JoinAfter)
	}
	if rep.RegistryHeapBytes <= 0 || rep.RegistryDBBytes <= 0 {
		t.Errorf("registry sizes not measured: heap %d, disk %d", rep.RegistryHeapBytes, rep.RegistryDBBytes)
	}
	// Each agent receives half its announces, each an audit row.
	if want := 19.0 / 2 * 24 * 60; rep.AuditRowsPerDay > want*1.01 || rep.AuditRowsPerDay < want*0.9 {
		t.Errorf("audit rows a day = %.0f; want about %.0f", rep.AuditRowsPerDay, want)
	}
	if perRow := rep.AuditBytesPerDay / rep.AuditRowsPerDay; perRow < 50 || perRow > 2000 {
		t.Errorf("an audit row costs %.0f bytes on disk; want a plausible 50–2000", perRow)
	}
	opts.EachWay = true
	eachWay, err := Simulate(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := eachWay.AnnouncesPerMin / rep.AnnouncesPerMin; r < 1.8 || r > 2.2 {
		t.Errorf("announcing each way costs %.1f× the skipping rounds; want about 2×", r)
	}
	opts.SeedReplies = true
	seed, err := Simulate(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if seed.BytesPerMin <= rep.BytesPerMin*2 {
		t.Errorf("seed replies %.0f B/min vs self_only %.0f B/min: the full registry should cost far more", seed.BytesPerMin, rep.BytesPerMin)
	}
}

// TestRoundDuration: announces go out maxAnnouncing at a time.
func TestRoundDuration(t *testing.T) {
	for _, c := range []struct {
		n    int
		want time.Duration
	}{{0, 0}, {1, time.Millisecond}, {16, time.Millisecond}, {17, 2 * time.Millisecond}, {999, 63 * time.Millisecond}} {
		if got := roundDuration(c.n, time.Millisecond); got != c.want {
			t.Errorf("roundDuration(%d) = %v; want %v", c.n, got, c.want)
		}
	}
}

// TestSimulateMeasuresAnnounce: with no latency given, one real self_only
// announce between two real cores sets it, and the caller's dir survives.
func TestSimulateMeasuresAnnounce(t *testing.T) {
	dir := t.TempDir()
	rep, err := Simulate(context.Background(), ScaleOptions{Agents: 3, Minutes: 1, Seed: 2, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Latency <= 0 || rep.Latency > 5*time.Second {
		t.Errorf("measured announce latency %v", rep.Latency)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the simulation removed the caller's dir: %v", err)
	}
}

// TestSimulateLongInterval: rounds further apart than the measured minutes
// are still counted (the window stretches to two intervals), and traffic
// falls with the interval.
func TestSimulateLongInterval(t *testing.T) {
	rep, err := Simulate(context.Background(), ScaleOptions{Agents: 20, Interval: 10 * time.Minute, Minutes: 1,
		Latency: time.Millisecond, Seed: 3, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if want := 19.0 / 10; rep.AnnouncesPerMin > want*1.01 || rep.AnnouncesPerMin < want*0.85 {
		t.Errorf("announces per agent per minute = %.2f; want about %.1f", rep.AnnouncesPerMin, want)
	}
}
