package secretary

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent/secretary/source"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/store"
)

// resolveScope maps a question's context_scope to configured context ids.
// An empty scope (or "*") means every configured context.
func resolveScope(cfgCtx []config.Context, scope []string) ([]string, error) {
	var all []string
	for _, c := range cfgCtx {
		all = append(all, c.Identifier)
	}
	if len(scope) == 0 {
		return all, nil
	}
	seen := map[string]bool{}
	var out []string
	for _, s := range scope {
		s = strings.Trim(s, "/")
		if s == "*" || s == "" {
			return all, nil
		}
		found := false
		for _, id := range all {
			if s == id || strings.HasPrefix(s, id+"/") {
				found = true
				if !seen[id] {
					seen[id] = true
					out = append(out, id)
				}
			}
		}
		if !found {
			return nil, &UnknownContextError{Scope: s}
		}
	}
	return out, nil
}

// accessCheck decides, per event, whether the asker may see it: the event
// must fall inside the question's scope and every resource it names (its
// context, or each file it touches) must be readable under the ACL.
type accessCheck struct {
	scope    []string
	contexts []string
	allowed  func(string) bool
	cache    map[string]bool
}

func (a *accessCheck) may(resource string) bool {
	if a.allowed == nil {
		return true
	}
	if a.cache == nil {
		a.cache = map[string]bool{}
	}
	ok, hit := a.cache[resource]
	if !hit {
		ok = a.allowed(resource)
		a.cache[resource] = ok
	}
	return ok
}

// allow is the per-event check (store.ContextSearch.Allow).
func (a *accessCheck) allow(ev store.ContextEvent) bool {
	files := aclPaths(ev)
	if ev.Ctx == "" {
		if len(files) > 0 && a.allowed != nil {
			// A file no context could be found for may lie anywhere,
			// a folder kept from the asker included: only the owner
			// sees it.
			return false
		}
		// A note or report tied to no context belongs to the owner's work
		// in general: visible to whoever may read one of the asked contexts.
		for _, c := range a.contexts {
			if a.may(c) {
				return true
			}
		}
		return false
	}
	if !inContexts(a.contexts, ev.Ctx) {
		return false
	}
	if !a.inScope(ev.Ctx, files) {
		return false
	}
	// What a coding session said after its tools read a file may quote
	// it: the session's words need every file it touched readable.
	for _, r := range parseMeta(ev.Meta).Touched {
		if !a.mayTouched(r) {
			return false
		}
	}
	if m := parseMeta(ev.Meta); m.FilesMore > 0 || len(m.Files) >= source.MaxFilesListed {
		// Files were left out of the list (an event stored before
		// files_more kept exactly the limit): any of them may lie in a
		// folder kept from the asker, so it must may read everything.
		if !a.may(ev.Ctx + "/") {
			return false
		}
	}
	if len(files) == 0 {
		return a.may(ev.Ctx)
	}
	for _, f := range files {
		if !a.may(ev.Ctx + "/" + f) {
			return false
		}
	}
	return true
}

// mayTouched reports whether the asker may read a place a coding session
// touched: a file, a folder with everything under it ("…/", read whole by
// a search), or "*" (more places than are kept: the owner's alone).
func (a *accessCheck) mayTouched(r string) bool {
	if r == "*" {
		return a.allowed == nil
	}
	res := cleanRel(r)
	if strings.HasSuffix(r, "/") {
		res += "/"
	}
	return a.may(res)
}

// inScope reports whether an event of ctxID touching files lies inside one
// of the question's scope entries.
func (a *accessCheck) inScope(ctxID string, files []string) bool {
	if len(a.scope) == 0 {
		return true
	}
	for _, s := range a.scope {
		s = strings.Trim(s, "/")
		if s == "*" || s == "" || s == ctxID {
			return true
		}
		sub, ok := strings.CutPrefix(s, ctxID+"/")
		if !ok {
			continue
		}
		for _, f := range files {
			if f == sub || strings.HasPrefix(f, sub+"/") {
				return true
			}
		}
	}
	return false
}

// eventMeta is the part of an event's meta that names files.
type eventMeta struct {
	Files []struct {
		Path  string `json:"path"`
		From  string `json:"from"` // a renamed file's original path
		Lines string `json:"lines"`
	} `json:"files"`
	// FilesMore counts the files left out of Files (source.MaxFilesListed).
	FilesMore int          `json:"files_more"`
	File      string       `json:"file"`
	Progress  *int         `json:"progress"`
	Tests     *TestSummary `json:"tests"`
	Marker    string       `json:"marker"`
	Dir       string       `json:"dir"` // the folder a coding session worked in
	// Touched are the files ("context/path") a coding session's tools had
	// named by the time it said this (source.Touched).
	Touched []string `json:"touched"`
	Author  string   `json:"author"`
	// Uncommitted marks a marker the working tree's uncommitted diff adds.
	Uncommitted bool `json:"uncommitted"`
	// Added is when a committed marker's line was written (git blame).
	Added time.Time `json:"added"`
}

func jsonUnmarshal(raw string, v any) error { return json.Unmarshal([]byte(raw), v) }

func parseMeta(raw string) eventMeta {
	var m eventMeta
	if raw != "" {
		_ = json.Unmarshal([]byte(raw), &m)
	}
	return m
}

// aclPaths are the places an event is about, for the ACL and the scope:
// the files it touches, the path an assistant's report names (a folder,
// or a file without an extension, too: eventFiles lists only what looks
// like a file, for the answer's references) and the folder a coding
// session worked in.
func aclPaths(ev store.ContextEvent) []string {
	files := eventFiles(ev)
	for _, f := range parseMeta(ev.Meta).Files {
		if f.From != "" {
			files = append(files, cleanRel(f.From))
		}
	}
	if ev.Key != "" && (ev.Kind == KindReport || ev.Kind == KindError) && !slices.Contains(files, cleanRel(ev.Key)) {
		files = append(files, cleanRel(ev.Key))
	}
	if d := parseMeta(ev.Meta).Dir; d != "" {
		files = append(files, cleanRel(d))
	}
	return files
}

// eventFiles lists the repository-relative files an event touches.
func eventFiles(ev store.ContextEvent) []string {
	m := parseMeta(ev.Meta)
	var out []string
	for _, f := range m.Files {
		out = append(out, cleanRel(f.Path))
	}
	if m.File != "" {
		out = append(out, cleanRel(m.File))
	}
	if len(out) == 0 && ev.Key != "" && (ev.Kind == KindReport || ev.Kind == KindError) && strings.Contains(ev.Key, ".") {
		out = append(out, cleanRel(ev.Key))
	}
	return out
}

// cleanRel normalises a repository-relative path; ".." cannot climb out of
// the repository, so the ACL always sees a path inside it.
func cleanRel(p string) string {
	c := path.Clean("/" + strings.TrimPrefix(p, "./"))
	return strings.TrimPrefix(c, "/")
}

func inContexts(set []string, v string) bool {
	if v == "" {
		return true
	}
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}
