package secretary

import (
	"encoding/json"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
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
	cited    map[string]bool // resources of the events the answer draws on
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
	if !inContexts(a.contexts, ev.Ctx) || !a.inScope(ev.Ctx, files) {
		return false
	}
	if slices.Contains(parseMeta(ev.Meta).Touched, "*") && a.allowed != nil {
		// The session touched more places than are kept: the owner's
		// alone.
		return false
	}
	for _, r := range eventResources(ev) {
		if !a.may(r) {
			return false
		}
	}
	return true
}

// eventResources are the resources the ACL must let the asker read for it
// to see ev (allow), none for an event tied to no context. What a coding
// session said after its tools read a file may quote it, so every file
// it touched counts; a commit whose file list was cut may touch any file,
// so it needs the whole context ("ctx/", everything under it). A draft
// remembers them for the event it draws on (cite): its release checks
// them again under the ACL in force then.
func eventResources(ev store.ContextEvent) []string {
	if ev.Ctx == "" {
		return nil
	}
	m := parseMeta(ev.Meta)
	var out []string
	for _, r := range m.Touched {
		if r != "*" {
			out = append(out, touchedResource(r))
		}
	}
	if m.FilesMore > 0 || len(m.Files) >= source.MaxFilesListed {
		out = append(out, ev.Ctx+"/")
	}
	files := aclPaths(ev)
	if len(files) == 0 {
		return append(out, ev.Ctx)
	}
	for _, f := range files {
		out = append(out, ev.Ctx+"/"+f)
	}
	return out
}

// touchedResource is the resource of a place a coding session touched
// ("context/path"): a file, or a folder with everything under it ("…/",
// read whole by a search).
func touchedResource(r string) string {
	res := cleanRel(r)
	if strings.HasSuffix(r, "/") {
		res += "/"
	}
	return res
}

// cite remembers resources of an event the answer draws on
// (Answer.Sources): eventResources of it.
func (a *accessCheck) cite(resources ...string) {
	if a.cited == nil {
		a.cited = map[string]bool{}
	}
	for _, r := range resources {
		a.cited[r] = true
	}
}

// citeHits cites the events behind search hits.
func (a *accessCheck) citeHits(hits []store.ContextHit) {
	for _, h := range hits {
		a.cite(eventResources(store.ContextEvent{Kind: h.Kind, Ctx: h.Ctx, Key: h.Key, Meta: h.Meta})...)
	}
}

// sources lists what cite remembered, sorted.
func (a *accessCheck) sources() []string {
	return slices.Sorted(maps.Keys(a.cited))
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

// parseMeta decodes an event's meta. An answer reads the same events'
// meta many times over (the ACL, the scope, the blockers, the evidence:
// six to eight decodes of each of the hundreds of events it looks at,
// half its CPU on a large mirror), so decoded metas are kept, a bounded
// number, by their text. The value's slices and pointers are therefore
// shared: read them, never change them.
func parseMeta(raw string) eventMeta {
	if raw == "" {
		return eventMeta{}
	}
	metaCache.Lock()
	m, ok := metaCache.byText[raw]
	metaCache.Unlock()
	if ok {
		return m
	}
	_ = json.Unmarshal([]byte(raw), &m)
	metaCache.Lock()
	if len(metaCache.byText) >= maxCachedMetas {
		clear(metaCache.byText) // simpler than LRU; an answer refills what it reads
	}
	metaCache.byText[raw] = m
	metaCache.Unlock()
	return m
}

// maxCachedMetas bounds metaCache: more than the events one answer reads
// (a few hundred to a couple of thousand), a few MiB at most.
const maxCachedMetas = 8192

var metaCache = struct {
	sync.Mutex
	byText map[string]eventMeta
}{byText: make(map[string]eventMeta)}

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
