package tui

import (
	"runtime"
	"sort"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// BenchmarkKeyToFrame measures a key press to the rendered frame with 100k
// audit rows and 1k pending approvals loaded, on the approvals and audit
// panes. Commands a key triggers (an audit page fetch) run before the
// frame is counted as done. Reports p99 and the heap in use.
func BenchmarkKeyToFrame(b *testing.B) {
	svc := bigService(100_000, 1_000)
	m := newLoaded(b, svc, 120, 40, true)
	keys := []string{"down", "down", "pgdown", "up", "pgdown", "pgup"}
	for _, pane := range []struct {
		name string
		f    focus
	}{{"approvals", focusApprovals}, {"audit", focusAudit}} {
		b.Run(pane.name, func(b *testing.B) {
			m.setFocus(pane.f)
			times := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				_, cmd := m.Update(keyMsg(keys[i%len(keys)]))
				if cmd != nil {
					pump(b, m, cmd)
				}
				_ = m.Render()
				times = append(times, time.Since(start))
			}
			b.StopTimer()
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
		})
	}
}

// BenchmarkStartToFirstFrame measures New, the first fetch of everything
// (status, peers, queries, 1k approvals, tasks, messages, first audit page
// of 100k rows) and the first rendered frame.
func BenchmarkStartToFirstFrame(b *testing.B) {
	svc := bigService(100_000, 1_000)
	for i := 0; i < b.N; i++ {
		m := New(svc, Options{Now: clock, Location: time.UTC})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		for _, c := range m.fetchCmds(dAll) {
			pump(b, m, c)
		}
		if m.Render() == "" {
			b.Fatal("empty frame")
		}
	}
}

// TestKeyToFrameBudget guards against order-of-magnitude regressions (say,
// rendering every row) in the normal test run. The budget is 16 ms p99;
// the bound here is looser because the test machine is shared, and
// BenchmarkKeyToFrame reports the real figure.
func TestKeyToFrameBudget(t *testing.T) {
	svc := bigService(100_000, 1_000)
	m := newLoaded(t, svc, 120, 40, true)
	var times []time.Duration
	for _, f := range []focus{focusApprovals, focusAudit} {
		m.setFocus(f)
		for i := 0; i < 300; i++ {
			start := time.Now()
			_, cmd := m.Update(keyMsg([]string{"down", "pgdown", "up"}[i%3]))
			pump(t, m, cmd)
			_ = m.Render()
			times = append(times, time.Since(start))
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	if p99 := times[len(times)*99/100]; p99 > 60*time.Millisecond {
		t.Errorf("p99 key → frame = %v; budget 16ms (60ms allowed on a busy machine)", p99)
	}
}
