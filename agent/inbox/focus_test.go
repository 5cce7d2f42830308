package inbox

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// Focus follows the configured hours until the owner sets it by hand;
// turning it off by hand releases the buffered queries with their drafts,
// is audited as ctl.focus and announced.
func TestSetFocusOverridesHoursAndReleasesOnOff(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.Local) // inside 9–12
	db, err := store.Open(filepath.Join(t.TempDir(), "aoi.db"), store.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	q := store.QueryRecord{ID: "q-1", RequestID: "ask-1", From: "pm", Text: "progress?", Priority: "normal",
		State: Buffered, Draft: []byte(`{"summary":"75%"}`), ReceivedAt: now}
	if err := db.Write(ctx, func(tx *store.Tx) error { return tx.InsertQuery(q) }); err != nil {
		t.Fatal(err)
	}
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
	if got.State != Answered || len(queued) != 1 || queued[0] != "pm query.completed ask-1" {
		t.Fatalf("buffered query %s, queued %v; want it answered with its draft and queued for pm", got.State, queued)
	}
	if len(published) == 0 || published[0] != events.FocusChanged+" focus off" {
		t.Fatalf("published %v, want focus off first", published)
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
