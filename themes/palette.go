// Package themes turns a palette of named colours into the lipgloss styles
// of the aoi terminal interface: built-in dark, light and high-contrast
// themes, user theme files, and NO_COLOR.
package themes

import (
	"fmt"
	"strings"
)

// Palette is a theme's named colours. Each is "#rgb", "#rrggbb" or an ANSI
// colour number "0"–"255". A palette whose colours are all empty renders
// without colour (see Plain).
type Palette struct {
	Name          string `json:"name,omitempty"`
	Primary       string `json:"primary"`
	Muted         string `json:"muted"`
	Border        string `json:"border"`
	BorderFocused string `json:"border_focused"`
	OK            string `json:"ok"`
	Warn          string `json:"warn"`
	Error         string `json:"error"`
	Selection     string `json:"selection"`
	Text          string `json:"text"`
}

// Built-in theme names accepted by Pick.
const (
	Auto         = "auto"
	Dark         = "dark"
	Light        = "light"
	HighContrast = "high-contrast"
)

// DarkPalette is the built-in theme for dark terminal backgrounds.
func DarkPalette() Palette {
	return Palette{
		Name: Dark, Primary: "#7aa2f7", Muted: "#737aa2", Border: "#3b4261",
		BorderFocused: "#7aa2f7", OK: "#9ece6a", Warn: "#e0af68", Error: "#f7768e",
		Selection: "#2e3c64", Text: "#c0caf5",
	}
}

// LightPalette is the built-in theme for light terminal backgrounds.
func LightPalette() Palette {
	return Palette{
		Name: Light, Primary: "#2e7de9", Muted: "#6172b0", Border: "#a8aecb",
		BorderFocused: "#2e7de9", OK: "#387068", Warn: "#8c6c3e", Error: "#c64343",
		Selection: "#b7c1e3", Text: "#3760bf",
	}
}

// HighContrastPalette is the built-in high-contrast theme, in a variant for
// dark or light backgrounds.
func HighContrastPalette(dark bool) Palette {
	if dark {
		return Palette{
			Name: HighContrast, Primary: "#ffff00", Muted: "#ffffff", Border: "#ffffff",
			BorderFocused: "#ffff00", OK: "#00ff00", Warn: "#ffff00", Error: "#ff5f5f",
			Selection: "#0000aa", Text: "#ffffff",
		}
	}
	return Palette{
		Name: HighContrast, Primary: "#0000aa", Muted: "#000000", Border: "#000000",
		BorderFocused: "#0000aa", OK: "#005f00", Warn: "#5f0000", Error: "#aa0000",
		Selection: "#ffff00", Text: "#000000",
	}
}

// Plain is the colourless palette used when NO_COLOR is set: styles then
// rely on bold and reverse video only.
func Plain() Palette { return Palette{Name: "plain"} }

// Names lists the theme names Pick accepts.
func Names() []string { return []string{Auto, Dark, Light, HighContrast} }

// Pick returns the built-in palette called name; "auto" (or "") chooses dark
// or light from the terminal background.
func Pick(name string, darkBackground bool) (Palette, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", Auto:
		if darkBackground {
			return DarkPalette(), nil
		}
		return LightPalette(), nil
	case Dark:
		return DarkPalette(), nil
	case Light:
		return LightPalette(), nil
	case HighContrast:
		return HighContrastPalette(darkBackground), nil
	}
	return Palette{}, fmt.Errorf("themes: unknown theme %q; use one of %s, or a theme file path ending in .json",
		name, strings.Join(Names(), ", "))
}

// NoColor reports whether the NO_COLOR convention asks for no colour: the
// variable is set to a non-empty value (https://no-color.org).
func NoColor(getenv func(string) string) bool {
	return getenv("NO_COLOR") != ""
}
