package themes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// maxThemeFile bounds how much of a theme file is read.
const maxThemeFile = 64 << 10

// LoadFile reads a user theme: a JSON object with every Palette colour.
// Errors name the file and the bad key or colour.
func LoadFile(path string) (Palette, error) {
	f, err := os.Open(path)
	if err != nil {
		return Palette{}, fmt.Errorf("themes: cannot open theme file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxThemeFile+1))
	if err != nil {
		return Palette{}, fmt.Errorf("themes: reading %s: %w", path, err)
	}
	if len(data) > maxThemeFile {
		return Palette{}, fmt.Errorf("themes: %s is larger than %d KiB; a theme is a small JSON object", path, maxThemeFile>>10)
	}
	p, err := Parse(data)
	if err != nil {
		return Palette{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Parse decodes and validates a JSON palette.
func Parse(data []byte) (Palette, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p Palette
	if err := dec.Decode(&p); err != nil {
		return Palette{}, fmt.Errorf("theme is not a valid palette (%v); expected keys %s",
			err, strings.Join(colourKeys(), ", "))
	}
	return p, p.Validate()
}

// Validate checks that every colour is present and well formed.
func (p Palette) Validate() error {
	for _, c := range p.colours() {
		if c.value == "" {
			return fmt.Errorf("theme key %q is missing; give a colour such as \"#7aa2f7\" or \"12\"", c.key)
		}
		if !validColour(c.value) {
			return fmt.Errorf("theme key %q has colour %q, which is neither #rgb, #rrggbb nor 0–255", c.key, c.value)
		}
	}
	return nil
}

type namedColour struct{ key, value string }

func (p Palette) colours() []namedColour {
	return []namedColour{
		{"primary", p.Primary}, {"muted", p.Muted}, {"border", p.Border},
		{"border_focused", p.BorderFocused}, {"ok", p.OK}, {"warn", p.Warn},
		{"error", p.Error}, {"selection", p.Selection}, {"text", p.Text},
	}
}

func colourKeys() []string {
	var keys []string
	for _, c := range (Palette{}).colours() {
		keys = append(keys, c.key)
	}
	return keys
}

func validColour(s string) bool {
	if strings.HasPrefix(s, "#") {
		h := s[1:]
		if len(h) != 3 && len(h) != 6 {
			return false
		}
		_, err := strconv.ParseUint(h, 16, 32)
		return err == nil
	}
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0 && n <= 255
}
