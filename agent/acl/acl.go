// Package acl decides whether a peer may read, write or run something in
// this agent's contexts (design §5). A Policy is built once from config and
// never changes; the core swaps in a new one when the config is reloaded.
package acl

import (
	"path"
	"slices"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/config"
)

// Subject is the authenticated caller a decision is about.
type Subject struct {
	AgentID     string
	Role        string
	TailnetUser string   // tailnet mode: the WhoIs user login
	TailnetTags []string // tailnet mode: the calling node's tags
}

// Action is what the caller wants to do.
type Action string

// Actions and the permission each needs: read → read, write → write,
// execute → write. admin covers all three.
const (
	Read    Action = "read"
	Write   Action = "write"
	Execute Action = "execute"
)

// Decision is the outcome of a check.
type Decision struct {
	Allowed    bool
	Permission string // the permission that applied: none, read, write or admin
	RuleID     string // the deciding rule; "" when default_permission decided
	Reason     string // a sentence a person can act on
	// Told is a denial's Reason as the caller may read it: without the
	// deciding rule's id, which can say more than the owner means to
	// tell (no-msgs-layoffs-team). The audit row keeps Reason.
	Told      string
	AuditOnly bool // audit_mode let through a request the rules deny
}

// Policy is an immutable, precompiled ACL.
type Policy struct {
	rules      []rule
	deflt      level
	deflAllows string // Reason when default_permission allows
	audit      bool
	contexts   []contextInfo // longest identifier first
	contextIDs []string      // in config order, for an empty scope
	now        func() time.Time
}

// New compiles acl against the configured contexts. now is the clock used
// for rule expiry (time.Now when nil).
func New(acl config.ACL, contexts []config.Context, now func() time.Time) *Policy {
	if now == nil {
		now = time.Now
	}
	p := &Policy{
		deflt: parseLevel(acl.DefaultPermission),
		audit: acl.AuditMode,
		now:   now,
	}
	for _, r := range acl.Rules {
		p.rules = append(p.rules, compileRule(r))
	}
	p.deflAllows = "no rule matches and default_permission " + p.deflt.String() + " allows it"
	p.contexts, p.contextIDs = compileContexts(contexts)
	return p
}

// AuditMode reports whether denials are only logged.
func (p *Policy) AuditMode() bool { return p.audit }

// ContextIDs lists the configured contexts' identifiers in config order.
func (p *Policy) ContextIDs() []string { return p.contextIDs }

// Known reports whether name is, or lies under, a configured context.
func (p *Policy) Known(name string) bool {
	var r resource
	return p.resolve(name, &r) == "" && r.ctx != nil
}

// Check decides whether s may perform a on name (a context identifier
// or a path under one, like "acme/webapp/src/auth.go").
func (p *Policy) Check(s Subject, a Action, name string) Decision {
	var r resource
	if bad := p.resolve(name, &r); bad != "" {
		// A malformed resource is refused even in audit mode: it is an
		// attack or a bug, not a policy question.
		return Decision{Permission: config.PermNone, Reason: bad}
	}
	return p.decide(s, a, &r)
}

// AllowsAny reports whether s may perform a on at least one configured
// context (or, with none configured, on everything): whether naming
// contexts could get a refused caller anywhere.
func (p *Policy) AllowsAny(s Subject, a Action) bool {
	if len(p.contextIDs) == 0 {
		d, _ := p.CheckScope(s, a, nil)
		return d.Allowed
	}
	for _, id := range p.contextIDs {
		if p.Check(s, a, id).Allowed {
			return true
		}
	}
	return false
}

// HasRoleRules reports whether a rule names a role (not "*"): a peer
// trusted without a role is outside all of them.
func (p *Policy) HasRoleRules() bool {
	for i := range p.rules {
		if r := p.rules[i].role; r != "" && r != "*" {
			return true
		}
	}
	return false
}

// GrantedBeneath lists the places below a context that a folder or file
// rule lets s perform a on ("acme/webapp/ui" for acme/webapp/ui/**), as
// the rules name them: what a caller that may use no whole context can
// still name in its context_scope.
func (p *Policy) GrantedBeneath(s Subject, a Action) []string {
	var out []string
	now := p.now()
	for i := range p.rules {
		r := &p.rules[i]
		if r.wildcard || (r.expires != nil && !now.Before(*r.expires)) || r.perm < needs(a) || !r.matchesSubject(&s) {
			continue
		}
		place := segmentsText(r.pattern)
		if place == "" || slices.Contains(p.contextIDs, place) || slices.Contains(out, place) {
			continue
		}
		if p.Check(s, a, place).Allowed {
			out = append(out, place)
		}
	}
	return out
}

// CheckScope checks every entry of a request's context_scope and returns the
// first denial together with the entry it denied. An empty scope means all
// of this agent's contexts, so each configured context is checked (with no
// contexts configured, only wildcard rules and the default apply).
func (p *Policy) CheckScope(s Subject, a Action, scope []string) (Decision, string) {
	if len(scope) == 0 {
		if len(p.contextIDs) == 0 {
			r := resource{all: true}
			return p.decide(s, a, &r), ""
		}
		scope = p.contextIDs
	}
	var first Decision
	for i, entry := range scope {
		d := p.Check(s, a, entry)
		if !d.Allowed {
			return d, entry
		}
		if i == 0 || (d.AuditOnly && !first.AuditOnly) {
			first = d
		}
	}
	return first, ""
}

// CheckMessages decides whether s may send aoi.message to this agent's
// assistant inbox. Only rules with scope_type "messages" decide it (their
// scope_pattern is not consulted; write or admin grants); without one,
// default_permission does. Audit mode applies as for any resource.
func (p *Policy) CheckMessages(s Subject) Decision {
	r := resource{msgs: true, name: "messages"}
	return p.decide(s, Write, &r)
}

// Allowed returns a filter for search results: whether s may perform a on
// each resource; a resource ending in "/" is a folder with everything
// under it (CheckBeneath). Results from one search share a few contexts,
// so answers are remembered for the filter's lifetime.
func (p *Policy) Allowed(s Subject, a Action) func(resource string) bool {
	memo := map[string]bool{}
	return func(resource string) bool {
		ok, seen := memo[resource]
		if !seen {
			if folder, whole := strings.CutSuffix(resource, "/"); whole {
				// "acme/webapp/src/": the folder and everything under
				// it (what a recursive search read).
				d, _ := p.CheckBeneath(s, a, folder)
				ok = d.Allowed
			} else {
				ok = p.Check(s, a, resource).Allowed
			}
			memo[resource] = ok
		}
		return ok
	}
}

// MayRunIn reports whether s may ask for a task tied to ctxID, or, for
// one tied to no context (""), to each of all: a task with no context
// could touch any of them.
func (p *Policy) MayRunIn(s Subject, ctxID string, all []string) bool {
	if ctxID != "" {
		return p.Check(s, Execute, ctxID).Allowed
	}
	for _, c := range all {
		if !p.Check(s, Execute, c).Allowed {
			return false
		}
	}
	return true
}

// CheckBeneath is Check for something that reaches everything under name:
// a task's path parameter naming a folder, which a recursive command
// walks. After Check itself, every rule of the subject that names
// something under name is tried there, and the first denial is returned
// with the place it denies (e.g. "acme/webapp/secrets" for a rule on
// acme/webapp/secrets/** when name is acme/webapp).
func (p *Policy) CheckBeneath(s Subject, a Action, name string) (Decision, string) {
	d := p.Check(s, a, name)
	if !d.Allowed {
		return d, name
	}
	name = path.Clean(name) // Check let it through: no ".." or escape
	now := p.now()
	for i := range p.rules {
		r := &p.rules[i]
		if r.wildcard || (r.expires != nil && !now.Before(*r.expires)) || r.perm >= needs(a) || !r.matchesSubject(&s) {
			continue
		}
		under, ok := placeBeneath(r.pattern, name)
		if !ok {
			continue
		}
		if dd := p.Check(s, a, under); !dd.Allowed {
			return dd, under
		}
	}
	return d, ""
}

// placeBeneath is a place under name that pattern names, when it names
// one: name followed by the pattern's segments past it (a ** stands for
// none, a glob for itself, which the pattern matches too).
func placeBeneath(pattern []segment, name string) (string, bool) {
	rest := name
	for i, seg := range pattern {
		if seg.doubleStar {
			tail := segmentsText(pattern[i+1:])
			if tail == "" {
				return "", false // covers name itself: Check saw it
			}
			return name + "/" + tail, true
		}
		if rest == "" {
			return name + "/" + segmentsText(pattern[i:]), true
		}
		head, tail, _ := strings.Cut(rest, "/")
		if !seg.matches(head) {
			return "", false
		}
		rest = tail
	}
	return "", false // the pattern ends at or above name: Check saw it
}

// segmentsText writes pattern segments back as a path, leaving out **.
func segmentsText(segs []segment) string {
	parts := make([]string, 0, len(segs))
	for _, s := range segs {
		if !s.doubleStar {
			parts = append(parts, s.text)
		}
	}
	return strings.Join(parts, "/")
}
