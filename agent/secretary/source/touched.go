package source

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxTouched bounds the places remembered for one session. Past it the
// session is taken to have read its whole context (recorded as the
// context's root folder), so no place it read is forgotten: its words
// then need the whole repository readable.
const maxTouched = 200

// maxGlobMatches bounds what one glob in a shell command expands to.
const maxGlobMatches = 200

// Touched is what a coding session's tools have named: the files its
// Read, Edit and Write calls took, the folders its searches (Grep, Glob,
// LS) went through, and the paths its shell commands named, each as
// "context/path", a folder read whole as "context/path/" (with a slash:
// everything under it counts). The zero value is ready; a nil *Touched
// tracks nothing.
type Touched struct {
	Files []string `json:"files"`
	// Contexts are those the session's places lie in, for when Files
	// overflows.
	Contexts []string `json:"contexts"`
	changed  bool
}

// searchTools are the tools that read a folder and everything under it,
// with the input that names it ("" or missing: the session's folder).
var searchTools = map[string]string{"Grep": "path", "Glob": "path", "LS": "path"}

// addTool records what a tool use touched: its file, the folder a search
// went through, or the paths a shell command names (relative ones from the
// session's folder).
func (t *Touched) addTool(ev Event, blk ccBlock, cwd string, repos []Repo) {
	if t == nil {
		return
	}
	if f, ok := ev.Meta["file"].(string); ok {
		t.addIn(ev.Ctx, f, false)
		return
	}
	if field, ok := searchTools[blk.Name]; ok {
		p, _ := blk.Input[field].(string)
		t.addPath(p, cwd, repos, true)
		return
	}
	cmd, _ := blk.Input["command"].(string)
	for _, p := range commandPaths(cmd, cwd) {
		t.addPath(p, cwd, repos, false)
	}
}

// addPath records p (relative to cwd when not absolute). A folder, or any
// path when whole is set, counts with everything under it.
func (t *Touched) addPath(p, cwd string, repos []Repo, whole bool) {
	if !filepath.IsAbs(p) {
		if cwd == "" {
			return
		}
		p = filepath.Join(cwd, p)
	}
	ctxID, rel := Locate(p, repos)
	if ctxID == "" {
		return
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		whole = true
	}
	t.addIn(ctxID, rel, whole)
}

// commandPaths are the words of a shell command that name places: one
// holding a "/" or a ".", one that names something existing in the
// session's folder ("secrets" in `cd secrets`), "." itself, and what a
// glob matches there. Quotes are taken off as the shell would
// (sec""rets is secrets); nothing is run or expanded otherwise.
func commandPaths(cmd, cwd string) []string {
	var out []string
	unquote := strings.NewReplacer(`"`, "", `'`, "", "`", "", `\`, "")
	for _, w := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(" \t\n;|&()<>=", r) }) {
		w = unquote.Replace(w)
		if w == "" || strings.HasPrefix(w, "-") || strings.Contains(w, "://") || len(out) >= 50 {
			continue
		}
		if strings.ContainsAny(w, "*?[") && cwd != "" {
			matches, _ := filepath.Glob(filepath.Join(cwd, w))
			out = append(out, matches[:min(len(matches), maxGlobMatches)]...)
			continue
		}
		if strings.ContainsAny(w, "/.") || cwd != "" && exists(filepath.Join(cwd, w)) {
			out = append(out, w)
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// add records a file by its "context/path" resource.
func (t *Touched) add(resource string) { t.addIn("", resource, false) }

// addIn records rel inside ctxID ("" when rel is already "context/path"),
// with everything under it when whole is set.
func (t *Touched) addIn(ctxID, rel string, whole bool) {
	res := strings.TrimSuffix(rel, "/")
	if ctxID != "" {
		res = strings.TrimSuffix(ctxID+"/"+res, "/")
		if !slices.Contains(t.Contexts, ctxID) {
			t.Contexts = append(t.Contexts, ctxID)
			t.changed = true
		}
	}
	if whole {
		res += "/"
	}
	covered := func(f string) bool {
		return f == res || f == "*" || strings.HasSuffix(f, "/") && strings.HasPrefix(res, f)
	}
	if slices.ContainsFunc(t.Files, covered) {
		return // already there, or inside a folder read whole
	}
	t.changed = true
	if len(t.Files) < maxTouched {
		t.Files = append(t.Files, res)
		return
	}
	// Full: every context the session worked in counts whole from now on
	// (and, should none be known, everything: "*").
	t.Files = t.Files[:0]
	for _, c := range t.Contexts {
		t.Files = append(t.Files, c+"/")
	}
	if len(t.Files) == 0 {
		t.Files = append(t.Files, "*")
	}
}

// mark gives ev the places touched so far (meta "touched").
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

// encode and decodeTouched keep a session's places in its cursor, so they
// reach the lines read after a restart.
func (t *Touched) encode() string {
	b, _ := json.Marshal(t)
	return string(b)
}

func decodeTouched(v string) *Touched {
	t := &Touched{}
	if json.Unmarshal([]byte(v), t) != nil {
		_ = json.Unmarshal([]byte(v), &t.Files) // the first form: a list
	}
	return t
}
