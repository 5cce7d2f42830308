package source

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
)

// maxTouched bounds the files remembered for one session: past it the
// oldest go (a session that has read hundreds of files is rare, and its
// words still carry the newest).
const maxTouched = 200

// Touched is what a coding session's tools have named: the files its
// Read, Edit and Write calls took, and the paths its shell commands
// named, each as "context/path". The zero value is ready; a nil *Touched
// tracks nothing.
type Touched struct {
	Files   []string
	changed bool
}

// addTool records what a tool use event touched: its file, or the paths a
// shell command names (relative ones from the session's folder).
func (t *Touched) addTool(ev Event, blk ccBlock, cwd string, repos []Repo) {
	if t == nil {
		return
	}
	if f, ok := ev.Meta["file"].(string); ok {
		t.add(ev.Ctx + "/" + f)
		return
	}
	cmd, _ := blk.Input["command"].(string)
	for _, p := range commandPaths(cmd) {
		if !filepath.IsAbs(p) {
			if cwd == "" {
				continue
			}
			p = filepath.Join(cwd, p)
		}
		if ctxID, rel := Locate(p, repos); ctxID != "" && rel != "" {
			t.add(ctxID + "/" + rel)
		}
	}
}

// commandPaths are the words of a shell command that look like paths:
// holding a "/" or a ".", not a flag. Quotes and redirections are taken
// off; nothing is run or expanded.
func commandPaths(cmd string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(" \t\n;|&()<>=", r) }) {
		w = strings.Trim(w, `"'`+"`")
		if w == "" || strings.HasPrefix(w, "-") || strings.Contains(w, "://") || !strings.ContainsAny(w, "/.") {
			continue
		}
		out = append(out, w)
		if len(out) == 50 {
			break
		}
	}
	return out
}

func (t *Touched) add(resource string) {
	if slices.Contains(t.Files, resource) {
		return
	}
	if len(t.Files) == maxTouched {
		t.Files = t.Files[1:]
	}
	t.Files = append(t.Files, resource)
	t.changed = true
}

// mark gives ev the files touched so far (meta "touched").
func (t *Touched) mark(ev Event) Event {
	if t == nil || len(t.Files) == 0 {
		return ev
	}
	meta := make(map[string]any, len(ev.Meta)+1)
	for k, v := range ev.Meta {
		meta[k] = v
	}
	meta["touched"] = slices.Clone(t.Files)
	ev.Meta = meta
	return ev
}

// encode and decodeTouched keep a session's files in its cursor, so they
// reach the lines read after a restart.
func (t *Touched) encode() string {
	b, _ := json.Marshal(t.Files)
	return string(b)
}

func decodeTouched(v string) *Touched {
	t := &Touched{}
	_ = json.Unmarshal([]byte(v), &t.Files)
	return t
}
