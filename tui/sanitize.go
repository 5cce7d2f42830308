package tui

import "github.com/aoi-protocol/aoi/internal/termtext"

// Sanitize makes peer-supplied text safe to print on one line
// (termtext.Sanitize).
func Sanitize(s string) string { return termtext.Sanitize(s) }

// SanitizeMultiline is Sanitize for views that show several lines.
func SanitizeMultiline(s string) string { return termtext.SanitizeMultiline(s) }

// QuoteHidden shows a value that must be read exactly, quoted with its
// hidden characters as escapes when it has any (termtext.QuoteHidden).
func QuoteHidden(s string) string { return termtext.QuoteHidden(s) }

func isPlain(s string) bool { return termtext.IsPlain(s) }
