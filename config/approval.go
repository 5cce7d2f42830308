package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"time"
)

// Approval says whether a task needs the owner's approval. In JSON it is
// either the string "required" or "none", or an object
// {"auto": [...], "required": bool}: requests matching an auto rule are
// approved without asking, the rest need approval unless required is false.
type Approval struct {
	Required bool       `json:"required"`
	Auto     []AutoRule `json:"auto,omitempty"`
}

// AutoRule approves a request automatically when every field that is set
// matches: FromRole / FromAgent (globs like "pm-*") and Hours [start, end)
// in local time (end may be 24; start > end wraps past midnight).
type AutoRule struct {
	FromRole  string `json:"from_role,omitempty"`
	FromAgent string `json:"from_agent,omitempty"`
	Hours     []int  `json:"hours,omitempty"`
}

// UnmarshalJSON accepts "required", "none" or the object form.
func (a *Approval) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		switch s {
		case "required":
			*a = Approval{Required: true}
		case "none":
			*a = Approval{}
		default:
			return fmt.Errorf("approval %q is not \"required\" or \"none\"", s)
		}
		return nil
	}
	var obj struct {
		Required *bool      `json:"required"`
		Auto     []AutoRule `json:"auto"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	// An object without "required" still asks the owner for whatever the
	// auto rules do not cover: silence must never mean "run anything".
	*a = Approval{Required: obj.Required == nil || *obj.Required, Auto: obj.Auto}
	return nil
}

// MarshalJSON writes the short string form when there are no auto rules.
func (a Approval) MarshalJSON() ([]byte, error) {
	if len(a.Auto) == 0 {
		if a.Required {
			return []byte(`"required"`), nil
		}
		return []byte(`"none"`), nil
	}
	type plain Approval
	return json.Marshal(plain(a))
}

// AutoApproves reports whether a request from the given agent and role at
// time t is approved by one of the auto rules.
func (a Approval) AutoApproves(agentID, role string, t time.Time) bool {
	for _, r := range a.Auto {
		if r.Matches(agentID, role, t) {
			return true
		}
	}
	return false
}

// Matches reports whether the rule covers a request from agentID/role at t.
func (r AutoRule) Matches(agentID, role string, t time.Time) bool {
	if r.FromRole != "" && !globMatch(r.FromRole, role) {
		return false
	}
	if r.FromAgent != "" && !globMatch(r.FromAgent, agentID) {
		return false
	}
	if len(r.Hours) == 2 && !InHours(r.Hours[0], r.Hours[1], t) {
		return false
	}
	return true
}

// InHours reports whether t's local hour lies in [start, end); a window with
// start > end wraps past midnight, and start == end is empty.
func InHours(start, end int, t time.Time) bool {
	h := t.Hour()
	if start <= end {
		return h >= start && h < end
	}
	return h >= start || h < end
}

func globMatch(pattern, s string) bool {
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}
