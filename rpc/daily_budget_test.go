package rpc

import (
	"fmt"
	"testing"
	"time"
)

// A caller past its day's calls waits for 00:00 UTC, not for a rolling
// 24 hours; the next day it has its whole budget again, and other callers
// keep theirs.
func TestDailyBudgetEndsAtMidnightUTC(t *testing.T) {
	var b dailyBudget
	b.setLimit(3)
	day := time.Date(2026, 3, 4, 22, 30, 0, 0, time.UTC)
	for i := range 3 {
		if ok, _ := b.spend("pm", day); !ok {
			t.Fatalf("call %d refused within the budget", i+1)
		}
	}
	ok, wait := b.spend("pm", day)
	if ok || wait != 90*time.Minute {
		t.Fatalf("the 4th call: ok=%v wait=%s; want refused for 1h30m (until 00:00 UTC)", ok, wait)
	}
	if ok, _ := b.spend("pm-sato", day); !ok {
		t.Error("another caller was refused")
	}
	if ok, _ := b.spend("pm", day.Add(90*time.Minute)); !ok {
		t.Error("the next UTC day still refuses the caller")
	}
	b.setLimit(0)
	for range 10 {
		if ok, _ := b.spend("pm", day.Add(90*time.Minute)); !ok {
			t.Fatal("no budget (0) refused a call")
		}
	}
}

// The counts are bounded: past maxBudgetCallers callers a day, a new one
// is not counted (its calls are let through, as without a budget).
func TestDailyBudgetRemembersBoundedCallers(t *testing.T) {
	var b dailyBudget
	b.setLimit(1)
	now := time.Now()
	for i := range maxBudgetCallers + 100 {
		b.spend(fmt.Sprint("peer-", i), now)
	}
	if len(b.counts) != maxBudgetCallers {
		t.Fatalf("%d callers counted, want at most %d", len(b.counts), maxBudgetCallers)
	}
}

// BenchmarkDailyBudgetSpend is what the budget adds to each admitted call.
func BenchmarkDailyBudgetSpend(b *testing.B) {
	var budget dailyBudget
	budget.setLimit(1 << 62)
	now := time.Now()
	b.ReportAllocs()
	for b.Loop() {
		budget.spend("pm-tanaka", now)
	}
}
