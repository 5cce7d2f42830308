package acl

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aoi-protocol/aoi/config"
)

// contextInfo is a configured context, for classifying resources.
type contextInfo struct {
	id        string
	typ       string
	localPath string
}

func compileContexts(ctxs []config.Context) ([]contextInfo, []string) {
	infos := make([]contextInfo, 0, len(ctxs))
	ids := make([]string, 0, len(ctxs))
	for _, c := range ctxs {
		id := strings.Trim(c.Identifier, "/")
		typ := c.Type
		if typ == "" {
			typ = config.ScopeRepository
		}
		infos = append(infos, contextInfo{id: id, typ: typ, localPath: c.LocalPath})
		ids = append(ids, c.Identifier)
	}
	// Longest first, so acme/webapp-docs is not mistaken for acme/webapp
	// and nested contexts resolve to the innermost one.
	sort.SliceStable(infos, func(i, j int) bool { return len(infos[i].id) > len(infos[j].id) })
	return infos, ids
}

// resource is a normalised resource ready for matching.
type resource struct {
	name string       // cleaned: no empty, "." or ".." segments
	ctx  *contextInfo // nil when unknown
	typ  string       // repository | folder | file | issue; see kind
	// guessed: typ was read from the name, nothing being there to stat
	// (a file deleted since, a path in history only).
	guessed bool
	all     bool // "every context", for an empty scope with none configured
	msgs    bool // the assistant's message inbox (scope_type "messages")
}

// kind is the resource's type, classified on first use (it may stat).
func (r *resource) kind() string {
	if r.typ == "" && r.ctx != nil {
		r.typ, r.guessed = classify(r.ctx, r.name)
	}
	return r.typ
}

// mayBe reports whether the resource is, or may be, of type typ: one
// whose type was guessed from its name may be a file whatever the guess (a
// deleted deploy/id_rsa has no dot; the re-check read its commit past a
// file rule).
func (r *resource) mayBe(typ string) bool {
	return r.kind() == typ || (r.guessed && typ == config.ScopeFile)
}

// resolve normalises name and classifies it into r. It returns a reason to
// refuse the resource outright (it is malformed or escapes its context), or
// "".
func (p *Policy) resolve(name string, r *resource) string {
	switch {
	case name == "":
		return "the resource is empty; name a context such as " + p.exampleContext()
	case strings.IndexByte(name, 0) >= 0:
		return "the resource contains a NUL byte; send a plain context path"
	case strings.IndexByte(name, '\\') >= 0:
		return "the resource " + quote(name) + " contains a backslash; use / between path elements"
	case name[0] == '/':
		return "the resource " + quote(name) + " is an absolute path; name it relative to a context, such as " + p.exampleContext() + "/…"
	}
	clean := path.Clean(name)
	if hasDotDot(name) {
		if why := p.checkEscape(name, clean); why != "" {
			return why
		}
	}
	if clean == "." {
		return "the resource " + quote(name) + " names nothing; name a context such as " + p.exampleContext()
	}
	r.name = clean
	r.ctx = p.contextOf(clean)
	return ""
}

// checkEscape refuses a path whose ".." elements leave the context the path
// starts in (or that uses ".." outside any known context).
func (p *Policy) checkEscape(name, clean string) string {
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "the resource " + quote(name) + " climbs out of every context with '..'; name a path inside a context"
	}
	ctx := p.contextOf(name)
	if ctx == nil {
		return "the resource " + quote(name) + " uses '..' outside a known context; name a path inside a context without '..'"
	}
	if clean != ctx.id && !strings.HasPrefix(clean, ctx.id+"/") {
		return "the resource " + quote(name) + " escapes context " + ctx.id + " with '..'; name a path inside it"
	}
	return ""
}

func hasDotDot(name string) bool {
	return name == ".." || strings.HasPrefix(name, "../") || strings.HasSuffix(name, "/..") || strings.Contains(name, "/../")
}

// contextOf is the innermost context that name equals or lies under.
func (p *Policy) contextOf(name string) *contextInfo {
	for i := range p.contexts {
		c := &p.contexts[i]
		if name == c.id || (len(name) > len(c.id) && name[len(c.id)] == '/' && strings.HasPrefix(name, c.id)) {
			return c
		}
	}
	return nil
}

// classify infers a known resource's type: the context's own type at its
// root; under it a file when the working tree has a regular file there, a
// folder when it has a directory, and otherwise a file when the last
// element has a '.' in it.
func classify(c *contextInfo, name string) (typ string, guessed bool) {
	if name == c.id {
		return c.typ, false
	}
	rel := name[len(c.id)+1:]
	if c.localPath != "" {
		if fi, err := os.Stat(filepath.Join(c.localPath, filepath.FromSlash(rel))); err == nil {
			if fi.Mode().IsRegular() {
				return config.ScopeFile, false
			}
			return config.ScopeFolder, false
		}
	}
	if strings.Contains(path.Base(rel), ".") {
		return config.ScopeFile, true
	}
	return config.ScopeFolder, true
}

func (p *Policy) exampleContext() string {
	if len(p.contextIDs) > 0 {
		return p.contextIDs[0]
	}
	return "owner/repo"
}

func quote(s string) string {
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return `"` + s + `"`
}
