package secretary

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

func TestReadSwap(t *testing.T) {
	for title, want := range map[string]swap{
		"Replace deprecated `ansi_term` with `anstyle`": {"ansi_term", "anstyle", true},
		"Replace `anstyle` with `owo-colors`":           {"anstyle", "owo-colors", true},
		"Switch from logrus to slog":                    {"logrus", "slog", false},
		"deps: migrate from yaml.v2 to yaml.v3":         {"yaml.v2", "yaml.v3", true},
		"Use 'pflag' instead of 'flag'":                 {"flag", "pflag", true},
		"replaced the clap crate by lexopt":             {"clap", "lexopt", false},
		"Replace colors with ANSI styles":               {"colors", "ansi", false},
		"docs: migrate from MkDocs to Sphinx (#1957)":   {"mkdocs", "sphinx", true}, // a product's inner capital
	} {
		if got, ok := readSwap(title); !ok || got != want {
			t.Errorf("%q: %+v %v, want %+v", title, got, ok, want)
		}
	}
	for _, title := range []string{"Remove calls to `ansi_term`", "Fix the color of paths", "Change --hyperlink to be an option instead of a flag", "Merge pull request #183 from sharifhsn/owo\n\nUse `owo-colors` instead of `anstyle`"} {
		if got, ok := readSwap(title); ok {
			t.Errorf("%q read as a swap %+v", title, got)
		}
	}
}

// TestAnswerFollowsReplacements: hexyl swapped ansi_term for anstyle, then
// anstyle for owo-colors. Asked what it uses now, having moved off
// ansi_term, the answer leads with the newest swap, which never names
// ansi_term, then the one that does; unrelated colour work comes after.
func TestAnswerFollowsReplacements(t *testing.T) {
	dir := t.TempDir()
	_, sha, step := historyRepo(t, dir)
	step("Replace colors with ANSI styles", "src/colors.rs") // a plain word: no swap of a crate
	step("Replace deprecated `ansi_term` with `anstyle`", "Cargo.toml")
	step("Enable custom colors with environment variables", "src/colors.rs")
	step("Replace `anstyle` with `owo-colors`", "Cargo.toml")
	step("Fix terminal colors on Windows", "src/colors.rs")
	step("docs: terminal colors in the README", "README.md")

	s, _ := newTestSecretary(t, filepath.Join(t.TempDir(), "aoi.db"), testConfig(dir, filepath.Join(t.TempDir(), "none")))
	ctx := context.Background()
	if err := s.PollNow(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := s.Answer(ctx, Question{Text: "Which crate do we use for terminal colors now? We moved off ansi_term at some point, right?"})
	if err != nil {
		t.Fatal(err)
	}
	got := refsOf(a, "commit")
	want := []string{sha["Replace `anstyle` with `owo-colors`"], sha["Replace deprecated `ansi_term` with `anstyle`"]}
	if len(got) < 2 || !slices.Equal(got[:2], want) {
		t.Fatalf("commits %q, want %q first (newest replacement first)", got, want)
	}
	// A question that names nothing replaced keeps the search's order:
	// the newest work on terminal colours first.
	a, err = s.Answer(ctx, Question{Text: "What changed in terminal colors lately?"})
	if err != nil {
		t.Fatal(err)
	}
	if got := refsOf(a, "commit"); len(got) == 0 || got[0] != sha["docs: terminal colors in the README"] {
		t.Errorf("commits %q: want the newest colour work first, no replacement chain", got)
	}
}
