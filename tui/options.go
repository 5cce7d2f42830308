package tui

import (
	"time"

	"github.com/aoi-protocol/aoi/keymap"
	"github.com/aoi-protocol/aoi/themes"
)

// Options configure the interface. The zero value is usable: default keys,
// the "auto" theme, no bell, the real clock.
type Options struct {
	// KeyMap is the key bindings; nil means keymap.Default().
	KeyMap *keymap.KeyMap
	// Theme is a built-in theme name (auto, dark, light, high-contrast).
	Theme string
	// Palette, when set, replaces the named theme (a user theme file).
	Palette *themes.Palette
	// NoColor renders without colour (NO_COLOR).
	NoColor bool
	// Bell rings the terminal bell and OSC9 sends a desktop notification
	// when something needs the owner.
	Bell bool
	OSC9 bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Location is the time zone for clock times; nil means time.Local.
	Location *time.Location
	// DarkBackground is assumed until the terminal reports its background.
	DarkBackground bool
	// CallTimeout bounds each call to the service; 0 means 15 seconds.
	CallTimeout time.Duration
	// Reload re-reads the settings above from the config after the core
	// reports a reload (config.reloaded); nil keeps them until restart.
	// Only KeyMap, Theme, Palette, NoColor, Bell and OSC9 are taken.
	Reload func() (Options, error)
	// FirstRun, when set, opens the interface on a dialog saying what the
	// first run created and how to add a peer.
	FirstRun *FirstRun
	// StopsAgent says quitting stops the agent too (its core runs in this
	// process, not in aoi serve): while questions or approvals wait for
	// the owner, quit then asks first.
	StopsAgent bool
}

// FirstRun is what `aoi` created on its first run.
type FirstRun struct {
	AgentID     string
	Role        string // the role colleagues' ACL rules may match ("" leaves --role out)
	Fingerprint string
	ConfigPath  string
	DataDir     string
	// MovedFrom is the listen address the first run wanted and found taken
	// (another agent on this machine): it took the next free port ("" when
	// it had the one it wanted).
	MovedFrom string
}

func (o Options) withDefaults() Options {
	if o.KeyMap == nil {
		k := keymap.Default()
		o.KeyMap = &k
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 15 * time.Second
	}
	return o
}
