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
// with the input that names it ("" or missing: the session's folder). A
// subagent (Task) may read anything under it too.
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
	if blk.Name == "Task" {
		// A subagent may read anything from the session's folder down.
		t.addPath(".", cwd, repos, true)
		return
	}
	cmd, _ := blk.Input["command"].(string)
	if readsTree(cmd) {
		// rg, grep -r, git log -p, find … with no path read the folder
		// they run in, and git any file of any commit: the whole of it.
		t.addPath(".", cwd, repos, true)
	}
	for _, p := range commandPaths(cmd, cwd) {
		t.addPath(p, cwd, repos, false)
	}
}

// treeReaders are commands that, given no path, read everything under the
// folder they run in (or, for git, anything the repository ever held:
// git show HEAD:secrets/key.pem).
var treeReaders = map[string]bool{"rg": true, "ag": true, "ack": true, "grep": true, "egrep": true, "fgrep": true,
	"find": true, "fd": true, "tree": true, "git": true, "ls": true}

// readsTree reports whether a shell command runs one of treeReaders (as
// any command of a pipeline or list, after env assignments and sudo).
func readsTree(cmd string) bool {
	for _, part := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(";|&()\n`", r) }) {
		for _, w := range strings.Fields(part) {
			if strings.Contains(w, "=") || w == "sudo" || w == "env" || w == "command" || w == "xargs" || w == "time" {
				continue // VAR=x cmd, sudo cmd: the command comes next
			}
			if treeReaders[filepath.Base(w)] {
				return true
			}
			break
		}
	}
	return false
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
	unquote := strings.NewReplacer(`$'`, "", `"`, "", `'`, "", "`", "", `\`, "")
	var words []string
	for _, w := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(" \t\n;|&()<>=", r) }) {
		words = append(words, braces(unquote.Replace(w))...)
	}
	for _, w := range words {
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

// braces expands one {a,b} in w as the shell would ({secrets,x}/key.pem
// is secrets/key.pem and x/key.pem); other words stay as they are.
func braces(w string) []string {
	open := strings.IndexByte(w, '{')
	end := strings.IndexByte(w, '}')
	if open < 0 || end < open || !strings.Contains(w[open:end], ",") {
		return []string{w}
	}
	var out []string
	for _, alt := range strings.Split(w[open+1:end], ",") {
		out = append(out, w[:open]+alt+w[end+1:])
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
