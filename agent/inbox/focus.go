package inbox

import (
	"context"
	"fmt"
	"time"

	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/secretary/interrupt"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/store"
)

// settingFocus stores the owner's manual focus override ("on"/"off").
const settingFocus = "focus_override"

// FocusActive reports whether the owner is in focus time: the manual
// override when set, else the configured focus hours (when interrupt
// control is on).
func (in *Inbox) FocusActive() bool {
	ic := in.Interrupt()
	if override := in.FocusOverride(); override != nil || ic.Enabled {
		return interrupt.InFocus(in.Now(), ic.FocusModeHours, override)
	}
	return false
}

// FocusOverride returns the manual focus setting, if any.
func (in *Inbox) FocusOverride() *bool {
	v, ok, err := in.DB.Setting(context.Background(), settingFocus)
	if err != nil || !ok || v == "" {
		return nil
	}
	on := v == "on"
	return &on
}

// SetFocus turns focus mode on or off by hand (audited as ctl.focus).
// Turning it off hands the buffered queries to the owner, as focus time
// ending does (SurfaceBuffered).
func (in *Inbox) SetFocus(ctx context.Context, on bool) error {
	v := map[bool]string{true: "on", false: "off"}[on]
	err := in.DB.Write(ctx, func(tx *store.Tx) error {
		if err := tx.SetSetting(settingFocus, v); err != nil {
			return err
		}
		_, err := tx.AppendAudit("owner", "ctl.focus", "ok", map[string]any{"focus": v})
		return err
	})
	if err != nil {
		return err
	}
	in.Publish(events.FocusChanged, "", "", "focus "+v)
	if !on {
		_, err := in.SurfaceBuffered(ctx)
		return err
	}
	return nil
}

// SurfaceBuffered hands the queries buffered during focus time to the
// owner once it is over: they become escalated (the Queries pane) and ring
// once. Their drafts are not sent: a query is buffered because the mirror
// was not sure of its answer, so the owner reads it first (`aoi release`,
// r in the interface, sends a draft the owner agrees with). While focus
// lasts it does nothing. It reports how many queries it surfaced.
func (in *Inbox) SurfaceBuffered(ctx context.Context) (int, error) {
	if in.FocusActive() {
		return 0, nil
	}
	// Read first: the watch runs every 30 s, and mostly nothing waits.
	if n, err := in.DB.CountQueries(ctx, Buffered); err != nil || n == 0 {
		return 0, err
	}
	var qs []store.QueryRecord
	err := in.DB.Write(ctx, func(tx *store.Tx) (err error) {
		if qs, err = tx.EscalateBuffered(); err != nil || len(qs) == 0 {
			return err
		}
		ids := make([]string, 0, min(len(qs), maxSurfacedIDs))
		for _, q := range qs[:min(len(qs), maxSurfacedIDs)] {
			ids = append(ids, q.ID)
		}
		_, err = tx.AppendAudit("owner", "focus.ended", "ok", map[string]any{"escalated": len(qs), "query_ids": ids})
		return err
	})
	if err != nil || len(qs) == 0 {
		return 0, err
	}
	for _, q := range qs {
		in.Publish(events.QueryUpdated, q.ID, q.From, Escalated)
	}
	what := fmt.Sprintf("%d questions waited during focus", len(qs))
	if len(qs) == 1 {
		what = "a question from " + qs[0].From + " waited during focus"
	}
	in.Publish(events.Attention, qs[0].ID, qs[0].From, what)
	return len(qs), nil
}

// maxSurfacedIDs bounds the query ids one focus.ended audit row lists
// (its method name fits the Audit pane's METHOD column whole).
const maxSurfacedIDs = 20

// WatchFocusEnd surfaces buffered queries when focus hours end on their
// own, checking every surfaceEvery until ctx ends.
func (in *Inbox) WatchFocusEnd(ctx context.Context, clock backoff.Clock) {
	for {
		if _, err := in.SurfaceBuffered(ctx); err != nil && ctx.Err() == nil && in.Log != nil {
			in.Log.Warn("surface buffered queries", "component", "inbox", "err", err)
		}
		if backoff.Sleep(ctx, clock, surfaceEvery) != nil {
			return
		}
	}
}

// surfaceEvery is how soon after focus hours end the buffered queries
// reach the owner.
const surfaceEvery = 30 * time.Second
