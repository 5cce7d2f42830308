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

// TestKeyToFrameWorkIsBounded guards against order-of-magnitude
// regressions (say, rendering every row) in the normal test run, by the
// allocations of a key press to its frame with 100k audit rows and 1k
// approvals loaded: about 1.3k on the approvals pane and 2.6k on the
// audit pane now, where drawing every row would take hundreds of
// thousands. It counts work, not time, so a busy machine cannot fail it
// (its timed predecessor did, at load 6.7); BenchmarkKeyToFrame reports
// the time (budget: 16 ms p99).
func TestKeyToFrameWorkIsBounded(t *testing.T) {
	svc := bigService(100_000, 1_000)
	m := newLoaded(t, svc, 120, 40, true)
	for _, f := range []focus{focusApprovals, focusAudit} {
		m.setFocus(f)
		i := 0
		allocs := testing.AllocsPerRun(100, func() {
			_, cmd := m.Update(keyMsg([]string{"down", "pgdown", "up"}[i%3]))
			pump(t, m, cmd)
			_ = m.Render()
			i++
		})
		if allocs > 20_000 {
			t.Errorf("pane %v: a key press to its frame allocates %.0f times; it was about 2.6k at most: is every row drawn?", f, allocs)
		}
	}
}
