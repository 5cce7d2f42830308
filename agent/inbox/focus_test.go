package inbox

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/store"
)

// openWithQueries opens a store on clock holding qs, closed when the test ends.
func openWithQueries(t *testing.T, clock func() time.Time, qs ...store.QueryRecord) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "aoi.db"), store.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Write(context.Background(), func(tx *store.Tx) error {
		for _, q := range qs {
			if err := tx.InsertQuery(q); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return db
}

// Focus follows the configured hours until the owner sets it by hand;
// turning it off by hand hands the buffered queries to the owner (escalated,
// ringing once; their unsure drafts are not sent), is audited as ctl.focus
// and announced.
func TestSetFocusOverridesHoursAndSurfacesOnOff(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.Local) // inside 9–12
	db := openWithQueries(t, func() time.Time { return now }, store.QueryRecord{ID: "q-1", RequestID: "ask-1", From: "pm",
		Text: "progress?", Priority: "normal", State: Buffered, Draft: []byte(`{"summary":"75%"}`), ReceivedAt: now})
	ctx := context.Background()
	var queued, published []string
	ic := config.InterruptControl{Enabled: true, FocusModeHours: [2]int{9, 12}}
	in := &Inbox{DB: db, Now: func() time.Time { return now },
		Notify: func(tx *store.Tx, to, event, relatedID string, data any) error {
			queued = append(queued, to+" "+event+" "+relatedID)
			return nil
		},
		Wake:      func() {},
		Redact:    func(s string) string { return s },
		Publish:   func(kind, id, agent, summary string) { published = append(published, kind+" "+summary) },
		Interrupt: func() config.InterruptControl { return ic },
	}
	if !in.FocusActive() || in.FocusOverride() != nil {
		t.Fatal("at 10:00 with focus hours 9–12 and no override, focus should be on")
	}
	if err := in.SetFocus(ctx, false); err != nil {
		t.Fatal(err)
	}
	if in.FocusActive() {
		t.Fatal("focus still on after the owner turned it off")
	}
	if o := in.FocusOverride(); o == nil || *o {
		t.Fatalf("override = %v, want off", o)
	}
	got, _, _ := db.Query(ctx, "q-1")
	if got.State != Escalated || len(queued) != 0 {
		t.Fatalf("buffered query %s, queued %v; want it escalated to the owner and nothing sent to pm", got.State, queued)
	}
	if want := []string{events.FocusChanged + " focus off", events.QueryUpdated + " " + Escalated,
		events.Attention + " a question from pm waited during focus"}; !slices.Equal(published, want) {
		t.Fatalf("published %v, want %v", published, want)
	}
	rows, err := db.AuditList(ctx, store.AuditQuery{Method: "ctl.focus", Limit: 5})
	if err != nil || len(rows) != 1 {
		t.Fatalf("ctl.focus audit rows = %d, %v; want 1", len(rows), err)
	}

	ic.Enabled = false
	if err := in.SetFocus(ctx, true); err != nil {
		t.Fatal(err)
	}
	if !in.FocusActive() {
		t.Fatal("focus off after the owner turned it on, with interrupt control disabled")
	}
}

// TestFocusHoursEndingSurfacesBuffered: when focus hours end on their own,
// the next check hands the buffered queries to the owner; while focus
// lasts it leaves them.
func TestFocusHoursEndingSurfacesBuffered(t *testing.T) {
	now := time.Date(2026, 5, 1, 11, 59, 0, 0, time.Local) // inside 9–12
	db := openWithQueries(t, func() time.Time { return now },
		store.QueryRecord{ID: "q-1", From: "pm", Text: "lunch?", State: Buffered, ReceivedAt: now},
		store.QueryRecord{ID: "q-2", From: "pm", Text: "lunch?", State: Buffered, ReceivedAt: now},
		store.QueryRecord{ID: "q-3", From: "qa", Text: "done?", State: Answered, ReceivedAt: now})
	ctx := context.Background()
	var rang []string
	in := &Inbox{DB: db, Now: func() time.Time { return now },
		Publish: func(kind, id, agent, summary string) {
			if kind == events.Attention {
				rang = append(rang, summary)
			}
		},
		Interrupt: func() config.InterruptControl {
			return config.InterruptControl{Enabled: true, FocusModeHours: [2]int{9, 12}}
		},
	}
	if n, err := in.SurfaceBuffered(ctx); n != 0 || err != nil {
		t.Fatalf("in focus: surfaced %d (%v); want none", n, err)
	}
	now = now.Add(2 * time.Minute) // 12:01, focus hours over
	if n, err := in.SurfaceBuffered(ctx); n != 2 || err != nil {
		t.Fatalf("after focus: surfaced %d (%v); want 2", n, err)
	}
	for id, want := range map[string]string{"q-1": Escalated, "q-2": Escalated, "q-3": Answered} {
		if q, _, _ := db.Query(ctx, id); q.State != want {
			t.Errorf("%s is %s; want %s", id, q.State, want)
		}
	}
	if !slices.Equal(rang, []string{"2 questions waited during focus"}) {
		t.Errorf("rang %v; want once, with the count", rang)
	}
	if n, _ := in.SurfaceBuffered(ctx); n != 0 {
		t.Errorf("a second check surfaced %d again", n)
	}
	rows, err := db.AuditList(ctx, store.AuditQuery{Method: "focus.ended", Limit: 5})
	if err != nil || len(rows) != 1 {
		t.Fatalf("focus.ended audit rows = %d, %v; want 1", len(rows), err)
	}
}

// TestAnnounceQuotesTheQuestion: the ring for an escalated question says
// how it begins, on one line and shortened, so the owner can tell two
// apart; a buffered one does not ring.
func TestAnnounceQuotesTheQuestion(t *testing.T) {
	var rang []string
	in := &Inbox{Publish: func(kind, id, agent, summary string) {
		if kind == events.Attention {
			rang = append(rang, summary)
		}
	}}
	in.Announce(store.QueryRecord{ID: "q-1", From: "pm", State: Escalated, Text: "How is auth going?\nAnd the refresh tokens?"})
	in.Announce(store.QueryRecord{ID: "q-2", From: "pm", State: Escalated, Text: strings.Repeat("very long question ", 10)})
	in.Announce(store.QueryRecord{ID: "q-3", From: "qa", State: Buffered, Text: "lunch?"})
	want := []string{"question from pm: “How is auth going? And the refresh tokens?”",
		"question from pm: “" + strings.TrimSpace(strings.Repeat("very long question ", 10)[:47]) + "…”"}
	if !slices.Equal(rang, want) {
		t.Errorf("rang %q; want %q", rang, want)
	}
}

// TestWatchFocusEndRunsAfterTheHours: the watch the core runs hands a
// buffered query to the owner at its first check after the focus hours
// end (it checks every 30 s), not before.
func TestWatchFocusEndRunsAfterTheHours(t *testing.T) {
	clk := backoff.NewFake(time.Date(2026, 5, 1, 11, 59, 50, 0, time.Local)) // 10 s of focus left
	db := openWithQueries(t, clk.Now, store.QueryRecord{ID: "q-1", From: "pm", Text: "lunch?", State: Buffered, ReceivedAt: clk.Now()})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	in := &Inbox{DB: db, Now: clk.Now, Publish: func(kind, id, agent, summary string) {},
		Interrupt: func() config.InterruptControl {
			return config.InterruptControl{Enabled: true, FocusModeHours: [2]int{9, 12}}
		},
	}
	watchCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { in.WatchFocusEnd(watchCtx, clk); close(done) }()
	defer func() { stop(); <-done }()
	state := func() string {
		q, _, err := db.Query(ctx, "q-1")
		if err != nil {
			t.Fatal(err)
		}
		return q.State
	}
	clk.Waiting(ctx) // the first check, in focus, is done
	if s := state(); s != Buffered {
		t.Fatalf("in focus the watch made it %s", s)
	}
	clk.Advance(30 * time.Second) // 12:00:20: the hours are over
	for state() != Escalated {
		if ctx.Err() != nil {
			t.Fatalf("30 s after the hours ended the query is still %s", state())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
