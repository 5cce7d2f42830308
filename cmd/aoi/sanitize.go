package main

import "github.com/aoi-protocol/aoi/tui"

// sanitize makes peer-supplied text safe to print on a terminal, with the
// interface's sanitiser so every front end strips the same things (escape
// sequences including OSC 52, C1 controls, bidi overrides). keepNewlines
// keeps line breaks for multi-line text; otherwise the text stays on one
// table row.
func sanitize(s string, keepNewlines bool) string {
	if keepNewlines {
		return tui.SanitizeMultiline(s)
	}
	return tui.Sanitize(s)
}
