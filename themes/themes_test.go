package themes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestBuiltinsValidate(t *testing.T) {
	for _, p := range []Palette{DarkPalette(), LightPalette(), HighContrastPalette(true), HighContrastPalette(false)} {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
}

func TestPick(t *testing.T) {
	cases := []struct {
		name string
		dark bool
		want Palette
	}{
		{"auto", true, DarkPalette()},
		{"auto", false, LightPalette()},
		{"", false, LightPalette()},
		{"Dark", false, DarkPalette()},
		{"light", true, LightPalette()},
		{"high-contrast", true, HighContrastPalette(true)},
		{"high-contrast", false, HighContrastPalette(false)},
	}
	for _, c := range cases {
		got, err := Pick(c.name, c.dark)
		if err != nil || got != c.want {
			t.Errorf("Pick(%q, %v) = %v, %v; want %v", c.name, c.dark, got.Name, err, c.want.Name)
		}
	}
	if _, err := Pick("solarized", true); err == nil || !strings.Contains(err.Error(), `"solarized"`) {
		t.Errorf("unknown theme error = %v", err)
	}
}

func writeTheme(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "theme.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

const goodTheme = `{"name":"mine","primary":"#ff8800","muted":"244","border":"#333","border_focused":"#ff8800",
"ok":"2","warn":"3","error":"1","selection":"#303030","text":"#eeeeee"}`

func TestLoadFile(t *testing.T) {
	p, err := LoadFile(writeTheme(t, goodTheme))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "mine" || p.Muted != "244" || p.Border != "#333" {
		t.Errorf("loaded %+v", p)
	}
}

func TestLoadFileErrors(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"bad colour", strings.Replace(goodTheme, `"#ff8800","muted"`, `"orange","muted"`, 1), `"primary" has colour "orange"`},
		{"out of range", strings.Replace(goodTheme, `"244"`, `"256"`, 1), `"muted"`},
		{"bad hex", strings.Replace(goodTheme, `"#333"`, `"#33g"`, 1), `"border"`},
		{"missing", strings.Replace(goodTheme, `"ok":"2",`, ``, 1), `"ok" is missing`},
		{"unknown key", strings.Replace(goodTheme, `"ok":`, `"okay":"1","ok":`, 1), `okay`},
		{"not json", `{`, "not a valid palette"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadFile(writeTheme(t, c.body))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v; want it to mention %s", err, c.want)
			}
		})
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestNewStylesColourAndPlain(t *testing.T) {
	colored := NewStyles(DarkPalette(), true)
	if !colored.Colored {
		t.Error("dark palette is not coloured")
	}
	out := colored.Selected.Render("row")
	if !strings.Contains(out, "48;2;") { // truecolour background for the selection
		t.Errorf("selection has no background colour: %q", out)
	}
	plain := NewStyles(Plain(), true)
	if plain.Colored {
		t.Error("plain palette is coloured")
	}
	for _, s := range []string{plain.Selected.Render("row"), plain.Error.Render("x"), plain.StatusBar.Render("s")} {
		if strings.Contains(s, "38;") || strings.Contains(s, "48;") {
			t.Errorf("plain style emits colour: %q", s)
		}
	}
	if sel := plain.Selected.Render("row"); !strings.Contains(sel, "\x1b[") || ansi.Strip(sel) != "row" {
		t.Errorf("plain selection must still be visible (reverse/bold): %q", sel)
	}
}

func TestNoColor(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if NoColor(get) {
		t.Error("NO_COLOR unset but reported")
	}
	env["NO_COLOR"] = "1"
	if !NoColor(get) {
		t.Error("NO_COLOR=1 ignored")
	}
}
