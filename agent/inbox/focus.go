package inbox

import (
	"context"

	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/secretary/interrupt"
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
// Turning it off releases the buffered queries, as focus time ending
// would. Errors: those of Release (errs.ErrConflict for a buffered query
// without a draft).
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
		return in.Release(ctx, "")
	}
	return nil
}
