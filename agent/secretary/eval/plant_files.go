package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// staleFixmeTexts are the kind of FIXMEs every old codebase carries.
var staleFixmeTexts = []string{
	"handle the error properly",
	"this is slow for large inputs",
	"magic number",
	"remove this workaround once the old format is gone",
	"not thread safe",
	"暫定対応",
	"ここは後でリファクタリングする",
	"エラー処理が雑",
	"duplicated logic, see above",
	"naming",
	"check bounds",
	"テストがない",
}

// plant makes the planted commits (oldest first), then leaves the
// uncommitted edits and the test output files in the work tree.
func plant(ctx context.Context, dir string, p Plant, now time.Time, sec Secrets) error {
	commits := append([]PlantCommit(nil), p.Commits...)
	if sf := p.StaleFixmes; sf.Count > 0 && len(sf.Files) > 0 {
		commits = append(commits, staleFixmeCommit(sf))
	}
	sort.SliceStable(commits, func(i, j int) bool { return commits[i].AgeHours > commits[j].AgeHours })
	for _, c := range commits {
		for _, e := range c.Edits {
			if err := applyEdit(dir, e, sec); err != nil {
				return err
			}
		}
		when := now.Add(-time.Duration(c.AgeHours * float64(time.Hour))).Format(time.RFC3339)
		env := []string{"GIT_AUTHOR_DATE=" + when, "GIT_COMMITTER_DATE=" + when}
		if _, err := git(ctx, dir, "add", "-A"); err != nil {
			return err
		}
		if _, err := gitEnv(ctx, dir, env, "commit", "--quiet", "--no-verify", "-m", sec.fill(c.Message)); err != nil {
			return err
		}
	}
	for _, e := range append(append([]FileEdit(nil), p.Uncommitted...), p.TestOutputs...) {
		if err := applyEdit(dir, e, sec); err != nil {
			return err
		}
	}
	return nil
}

// staleFixmeCommit spreads sf.Count FIXME comments over sf.Files.
func staleFixmeCommit(sf StaleFixmes) PlantCommit {
	per := map[string]*strings.Builder{}
	for i := 0; i < sf.Count; i++ {
		f := sf.Files[i%len(sf.Files)]
		if per[f] == nil {
			per[f] = &strings.Builder{}
		}
		fmt.Fprintf(per[f], "%sFIXME: %s\n", commentPrefix(f), staleFixmeTexts[i%len(staleFixmeTexts)])
	}
	c := PlantCommit{Message: "Add notes for later cleanup", AgeHours: sf.AgeHours}
	for _, f := range sf.Files {
		if per[f] != nil {
			c.Edits = append(c.Edits, FileEdit{Path: f, Append: per[f].String()})
		}
	}
	return c
}

func commentPrefix(path string) string {
	switch filepath.Ext(path) {
	case ".py", ".sh", ".rb", ".yml", ".yaml", ".toml", ".mk", "":
		return "# "
	default:
		return "// "
	}
}

// applyEdit appends e.Append (secrets filled in) to e.Path, creating it and
// its folders when missing; a file that does not end in a newline gets one
// first.
func applyEdit(dir string, e FileEdit, sec Secrets) error {
	if e.Path == "" || filepath.IsAbs(e.Path) || strings.Contains(e.Path, "..") {
		return fmt.Errorf("planted path %q must be relative to the repository", e.Path)
	}
	p := filepath.Join(dir, filepath.FromSlash(e.Path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	old, err := os.ReadFile(p)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	text := sec.fill(e.Append)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		text = "\n" + text
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
