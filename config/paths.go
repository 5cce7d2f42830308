package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/aoi-protocol/aoi/internal/suggest"
)

// CheckLocalPaths looks at each context's local_path on this machine: one
// that does not exist (a typo, an unmounted disk) or is not a directory
// where one is needed. They are not load errors, since a path may appear
// later (the secretary reports a failing poll meanwhile), so `aoi config
// validate` and `aoi doctor` show them as warnings. A missing path names
// the closest directory beside it, when one is close.
func CheckLocalPaths(c *Config) Errors {
	var out Errors
	for i, ctx := range c.Contexts {
		if ctx.LocalPath == "" {
			continue
		}
		at := pointer("contexts", strconv.Itoa(i), "local_path")
		fi, err := os.Stat(ctx.LocalPath)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, &Error{Path: at, Problem: fmt.Sprintf("%s does not exist", ctx.LocalPath), Fix: missingPathFix(ctx.LocalPath)})
		case err != nil:
			out = append(out, &Error{Path: at, Problem: err.Error(), Fix: "make it readable by you"})
		case !fi.IsDir() && ctx.Type != "file":
			out = append(out, &Error{Path: at, Problem: fmt.Sprintf("%s is a file, not a directory", ctx.LocalPath), Fix: `give the directory, or set "type": "file"`})
		}
	}
	return out
}

// missingPathFix suggests the sibling directory whose name is closest to
// the missing one ("/src/rpeo" → "/src/repo").
func missingPathFix(path string) string {
	dir, name := filepath.Split(filepath.Clean(path))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "give the path of the checked-out repository or folder"
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if s := suggest.Typo(name, names); s != "" {
		return fmt.Sprintf("did you mean %s?", filepath.Join(dir, s))
	}
	return "give the path of the checked-out repository or folder"
}
