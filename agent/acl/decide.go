package acl

// decide applies design §5 steps 2–4 to a resolved resource, then audit mode.
func (p *Policy) decide(s Subject, a Action, res *resource) Decision {
	now := p.now()
	var best *rule
	for i := range p.rules {
		r := &p.rules[i]
		if r.expires != nil && !now.Before(*r.expires) {
			continue
		}
		if !r.matchesSubject(&s) || !r.matchesResource(res) {
			continue
		}
		if best == nil || r.beats(best) {
			best = r
		}
	}
	perm := p.deflt
	if best != nil {
		perm = best.perm
	}
	d := Decision{Allowed: perm >= needs(a), Permission: perm.String()}
	if best != nil {
		d.RuleID = best.id
	}
	switch {
	case d.Allowed && best != nil:
		d.Reason = best.allows
	case d.Allowed:
		d.Reason = p.deflAllows
	default:
		d.Reason, d.Told = denyReason(&s, a, res, best, perm)
	}
	if !d.Allowed && p.audit {
		d.Allowed, d.AuditOnly = true, true
		d.Reason = "audit_mode allowed this, but the rules deny it: " + d.Reason
	}
	return d
}

// denyReason says who may not do what, why, and whom to ask: told is the
// same without the deciding rule, for the caller.
func denyReason(s *Subject, a Action, res *resource, best *rule, perm level) (reason, told string) {
	what := res.name
	switch {
	case res.all:
		what = "this agent's contexts"
	case res.msgs:
		what = "the assistant's message inbox (a rule with scope_type messages and permission write grants it)"
	}
	who := who(s)
	denied := who + " has no " + string(a) + " access to " + what
	if best == nil {
		reason = denied + ": no ACL rule matches and default_permission is " + perm.String() + "; ask the owner to add a rule for " + who
		return reason, reason
	}
	reason = denied + ": rule " + best.id + " grants " + perm.String() + " (" + string(a) + " needs " + needs(a).String() + "); ask the owner to change the ACL"
	return reason, denied + "; ask the owner to change the ACL"
}

func who(s *Subject) string {
	switch {
	case s.AgentID != "":
		return "agent " + s.AgentID
	case s.TailnetUser != "":
		return "tailnet user " + s.TailnetUser
	}
	return "an unidentified caller"
}
