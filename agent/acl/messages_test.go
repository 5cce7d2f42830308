package acl

import (
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/config"
)

// TestCheckMessages: messaging is granted only by scope_type "messages"
// rules (write or admin), most specific subject first; such rules grant
// nothing else, and a wildcard repository rule grants no messaging.
func TestCheckMessages(t *testing.T) {
	t.Parallel()
	rules := []config.Rule{
		{ID: "all-read", AgentID: "*", ScopeType: "repository", ScopePattern: "*", Permission: "admin"},
		{ID: "team-msg", AgentRole: "engineer", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "write"},
		{ID: "mute-bot", AgentID: "eng-bot", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "none"},
		{ID: "pm-read-msg", AgentID: "pm-ito", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "read"},
	}
	p := New(config.ACL{DefaultPermission: "none", Rules: rules}, contexts(workTree(t)), nil)
	cases := []struct {
		name    string
		s       Subject
		allowed bool
		rule    string
	}{
		{"role granted", Subject{AgentID: "eng-sato", Role: "engineer"}, true, "team-msg"},
		{"agent id none beats role", Subject{AgentID: "eng-bot", Role: "engineer"}, false, "mute-bot"},
		{"read is not enough", Subject{AgentID: "pm-ito", Role: "pm"}, false, "pm-read-msg"},
		{"repository admin grants no messaging", Subject{AgentID: "qa-1", Role: "qa"}, false, ""},
	}
	for _, c := range cases {
		d := p.CheckMessages(c.s)
		if d.Allowed != c.allowed || d.RuleID != c.rule {
			t.Errorf("%s: %+v, want allowed=%v by %q", c.name, d, c.allowed, c.rule)
		}
		if !d.Allowed && !strings.Contains(d.Reason, "scope_type messages") {
			t.Errorf("%s: reason %q does not say how to grant messaging", c.name, d.Reason)
		}
	}
	// A messages rule grants nothing on repositories.
	msgOnly := New(config.ACL{DefaultPermission: "none", Rules: rules[1:2]}, contexts(workTree(t)), nil)
	if d := msgOnly.Check(Subject{AgentID: "eng-sato", Role: "engineer"}, Read, "acme/webapp"); d.Allowed {
		t.Errorf("messages rule granted repository read: %+v", d)
	}
	// Without a messages rule, default_permission decides.
	open := New(config.ACL{DefaultPermission: "write"}, nil, nil)
	if d := open.CheckMessages(Subject{AgentID: "anyone"}); !d.Allowed {
		t.Errorf("default_permission write: %+v, want allowed", d)
	}
}
