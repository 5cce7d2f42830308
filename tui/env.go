package tui

import (
	"time"

	"github.com/aoi-protocol/aoi/keymap"
	"github.com/aoi-protocol/aoi/themes"
)

// env is the read-only context panes and dialogs render with. Only the root
// model replaces it (on a theme change or a clock tick); panes only read it.
type env struct {
	keys   keymap.KeyMap
	styles themes.Styles
	now    time.Time
	loc    *time.Location
}

// palette returns the palette for the options and background.
func palette(o Options, dark bool) themes.Palette {
	if o.NoColor {
		return themes.Plain()
	}
	if o.Palette != nil {
		return *o.Palette
	}
	p, err := themes.Pick(o.Theme, dark)
	if err != nil {
		p, _ = themes.Pick(themes.Auto, dark)
	}
	return p
}
