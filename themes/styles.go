package themes

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles are the lipgloss styles the interface renders with. They are values:
// build a new set with NewStyles instead of changing one in place.
type Styles struct {
	Dark    bool
	Colored bool

	Text     lipgloss.Style
	Muted    lipgloss.Style
	Title    lipgloss.Style // pane title, unfocused
	TitleOn  lipgloss.Style // pane title, focused
	Border   lipgloss.Style // box-drawing characters, unfocused
	BorderOn lipgloss.Style // box-drawing characters, focused
	Selected lipgloss.Style // the selected row
	OK       lipgloss.Style
	Warn     lipgloss.Style
	Error    lipgloss.Style
	Header   lipgloss.Style // column headers and section labels

	StatusBar lipgloss.Style
	StatusKey lipgloss.Style // the agent id in the status bar
	Notice    lipgloss.Style // a notification line
	Prompt    lipgloss.Style // the prompt bar's ":" or "@"

	HelpKey  lipgloss.Style
	HelpDesc lipgloss.Style
	HelpSep  lipgloss.Style
}

// NewStyles builds the styles for a palette. dark says whether the terminal
// background is dark; it picks contrasting text for filled areas. An empty
// colour in p means "no colour": such styles use bold and reverse instead.
func NewStyles(p Palette, dark bool) Styles {
	c := func(s string) color.Color {
		if s == "" {
			return nil
		}
		return lipgloss.Color(s)
	}
	fg := func(s string) lipgloss.Style {
		st := lipgloss.NewStyle()
		if col := c(s); col != nil {
			st = st.Foreground(col)
		}
		return st
	}
	colored := p.Primary != ""
	s := Styles{
		Dark:     dark,
		Colored:  colored,
		Text:     fg(p.Text),
		Muted:    fg(p.Muted),
		Title:    fg(p.Muted).Bold(true),
		TitleOn:  fg(p.Primary).Bold(true),
		Border:   fg(p.Border),
		BorderOn: fg(p.BorderFocused).Bold(!colored),
		OK:       fg(p.OK),
		Warn:     fg(p.Warn).Bold(!colored),
		Error:    fg(p.Error).Bold(true),
		Header:   fg(p.Muted).Underline(!colored),
		Notice:   fg(p.Primary),
		Prompt:   fg(p.Primary).Bold(true),
		HelpKey:  fg(p.Primary).Bold(!colored),
		HelpDesc: fg(p.Muted),
		HelpSep:  fg(p.Border),
	}
	if colored {
		s.Selected = lipgloss.NewStyle().Background(c(p.Selection)).Foreground(c(p.Text)).Bold(true)
		s.StatusBar = lipgloss.NewStyle().Background(c(p.Border)).Foreground(c(p.Text))
		s.StatusKey = s.StatusBar.Foreground(c(p.Primary)).Bold(true)
		if dark != isLight(c(p.Text)) {
			// Text colour chosen for the other background: keep it legible.
			s.StatusBar = s.StatusBar.Foreground(c(p.Primary))
		}
	} else {
		s.Selected = lipgloss.NewStyle().Reverse(true).Bold(true)
		s.StatusBar = lipgloss.NewStyle().Reverse(true)
		s.StatusKey = s.StatusBar.Bold(true)
	}
	return s
}

// isLight reports whether a colour is closer to white than to black.
func isLight(c color.Color) bool {
	if c == nil {
		return false
	}
	r, g, b, _ := c.RGBA()
	y := (299*r + 587*g + 114*b) / 1000
	return y > 0x7fff
}
