package acl

import (
	"path"
	"slices"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/config"
)

// level orders permissions: none < read < write < admin.
type level uint8

const (
	levelNone level = iota
	levelRead
	levelWrite
	levelAdmin
)

var levelNames = [...]string{config.PermNone, config.PermRead, config.PermWrite, config.PermAdmin}

func (l level) String() string { return levelNames[l] }

// parseLevel maps a permission name to its level; anything unknown is none,
// so a typo can only ever take access away.
func parseLevel(s string) level {
	switch s {
	case config.PermRead:
		return levelRead
	case config.PermWrite:
		return levelWrite
	case config.PermAdmin:
		return levelAdmin
	}
	return levelNone
}

// needs is the permission an action requires.
func needs(a Action) level {
	if a == Read {
		return levelRead
	}
	// write and execute (and anything unknown) need write.
	return levelWrite
}

// Scope ranks: the more specific a rule's scope, the higher.
const (
	rankWildcard = iota + 1
	rankRepository
	rankFolder
	rankFile // files and issues: one single thing
)

// Subject ranks: agent id > tailnet user > tailnet tag > role > "*".
const (
	subjAny = iota + 1
	subjRole
	subjTag
	subjUser
	subjAgent
)

// rule is a config.Rule compiled for matching.
type rule struct {
	id        string
	agentID   string // "" or "*" = any
	role      string // "" or "*" = any
	user      string
	tag       string
	scopeType string
	pattern   []segment
	wildcard  bool // the pattern is only * and ** segments
	beneath   bool // also applies to everything under a match
	perm      level
	scopeRank int
	precision int // how exactly the pattern names things, within one scope rank
	subjRank  int
	expires   *time.Time
	allows    string // Reason when this rule allows: built once, not per check
}

func compileRule(r config.Rule) rule {
	c := rule{
		id:        r.ID,
		agentID:   r.AgentID,
		role:      r.AgentRole,
		user:      r.TailnetUser,
		tag:       r.TailnetTag,
		scopeType: r.ScopeType,
		perm:      parseLevel(r.Permission),
		expires:   r.ExpiresAt,
	}
	c.pattern, c.wildcard = compilePattern(r.ScopePattern)
	if c.perm == levelNone {
		// A rule that keeps a peer out ignores case: on a file system
		// that does (macOS, Windows), Secrets/plan.txt is secrets/plan.txt.
		for i := range c.pattern {
			c.pattern[i].fold = true
		}
	}
	c.precision = precision(c.pattern)
	switch {
	case c.wildcard:
		c.scopeRank = rankWildcard
	case r.ScopeType == config.ScopeFile || r.ScopeType == config.ScopeIssue:
		c.scopeRank = rankFile
	case r.ScopeType == config.ScopeFolder:
		c.scopeRank = rankFolder
	default:
		c.scopeRank = rankRepository
	}
	c.beneath = r.ScopeType != config.ScopeFile && r.ScopeType != config.ScopeIssue
	c.subjRank = subjectRank(r)
	c.allows = "rule " + r.ID + " grants " + c.perm.String() + " on " + r.ScopePattern
	return c
}

func subjectRank(r config.Rule) int {
	switch {
	case r.AgentID != "" && r.AgentID != "*":
		return subjAgent
	case r.TailnetUser != "":
		return subjUser
	case r.TailnetTag != "":
		return subjTag
	case r.AgentRole != "" && r.AgentRole != "*":
		return subjRole
	}
	return subjAny
}

// matchesSubject reports whether every subject field the rule sets matches.
func (r *rule) matchesSubject(s *Subject) bool {
	if r.agentID != "" && r.agentID != "*" && r.agentID != s.AgentID {
		return false
	}
	if r.role != "" && r.role != "*" && r.role != s.Role {
		return false
	}
	if r.user != "" && !strings.EqualFold(r.user, s.TailnetUser) {
		return false
	}
	if r.tag != "" && !slices.Contains(s.TailnetTags, r.tag) {
		return false
	}
	return true
}

// matchesResource reports whether the rule's scope covers res.
func (r *rule) matchesResource(res *resource) bool {
	if res.msgs || r.scopeType == config.ScopeMessages {
		// Messaging is granted only by messages rules, which grant
		// nothing else; their pattern is not consulted.
		return res.msgs && r.scopeType == config.ScopeMessages
	}
	if res.all {
		return r.wildcard
	}
	if res.ctx == nil && !r.wildcard {
		return false // unknown resources are only covered by wildcard rules
	}
	if !r.beneath {
		// File and issue rules name single things of their own type. The
		// type is asked for last: it may need a stat of the working tree.
		return matchPath(r.pattern, res.name) && (res.ctx == nil || res.mayBe(r.scopeType))
	}
	// A folder or repository rule covers its match and everything under it,
	// so try every ancestor of the resource, then the resource itself.
	for i := 0; i < len(res.name); i++ {
		if res.name[i] == '/' && matchPath(r.pattern, res.name[:i]) {
			return true
		}
	}
	return matchPath(r.pattern, res.name)
}

// beats reports whether r decides over the current best rule b: more
// specific scope (type, then how exactly the pattern names it), then more
// specific subject, then more restrictive.
func (r *rule) beats(b *rule) bool {
	if r.scopeRank != b.scopeRank {
		return r.scopeRank > b.scopeRank
	}
	if r.precision != b.precision {
		return r.precision > b.precision
	}
	if r.subjRank != b.subjRank {
		return r.subjRank > b.subjRank
	}
	return r.perm < b.perm
}

// segment is one compiled path segment of a scope pattern.
type segment struct {
	text       string
	doubleStar bool // "**": any number of segments, including none
	literal    bool // no glob metacharacters: compare as a string
	fold       bool // compare ignoring case
}

func compilePattern(p string) ([]segment, bool) {
	parts := strings.Split(p, "/")
	segs := make([]segment, 0, len(parts))
	wildcard := true
	for _, part := range parts {
		s := segment{text: part}
		switch {
		case part == "**":
			s.doubleStar = true
		case !strings.ContainsAny(part, `*?[\`):
			s.literal = true
		default:
			if _, err := path.Match(part, ""); err != nil {
				s.literal = true // a malformed glob only matches itself
			}
		}
		if part != "*" && part != "**" {
			wildcard = false
		}
		// Consecutive ** segments mean the same as one.
		if s.doubleStar && len(segs) > 0 && segs[len(segs)-1].doubleStar {
			continue
		}
		segs = append(segs, s)
	}
	return segs, wildcard
}

// precision scores a pattern: a literal segment names one thing, a glob
// segment several, ** any number. So "acme/webapp" is more specific than
// "acme/*", which is more specific than "acme/**".
func precision(p []segment) int {
	n := 0
	for _, s := range p {
		switch {
		case s.literal:
			n += 2
		case !s.doubleStar:
			n++
		}
	}
	return n
}

// matchPath matches a compiled pattern against a cleaned path, segment by
// segment, without splitting it (this runs for every rule on every check).
// "" means no segments left.
func matchPath(p []segment, name string) bool {
	for len(p) > 0 {
		if p[0].doubleStar {
			if len(p) == 1 {
				return true
			}
			// p[1] is not ** (runs are collapsed), so it needs a segment:
			// try the rest of the pattern at each remaining segment.
			for rest := name; rest != ""; {
				if matchPath(p[1:], rest) {
					return true
				}
				_, rest, _ = strings.Cut(rest, "/")
			}
			return false
		}
		if name == "" {
			return false
		}
		head, tail, _ := strings.Cut(name, "/")
		if !p[0].matches(head) {
			return false
		}
		p, name = p[1:], tail
	}
	return name == ""
}

func (s *segment) matches(name string) bool {
	switch {
	case s.literal && s.fold:
		return strings.EqualFold(s.text, name)
	case s.literal:
		return s.text == name
	case s.fold:
		ok, _ := path.Match(strings.ToLower(s.text), strings.ToLower(name))
		return ok
	}
	ok, _ := path.Match(s.text, name)
	return ok
}
