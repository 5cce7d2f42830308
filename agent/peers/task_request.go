package peers

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/internal/suggest"
)

// TaskRequestProblem says why the peer would refuse a request to run its
// task type taskType with params, judged by the task types it last said
// it offers and the parameters each takes, so that a front end can say so
// before the round trip: a task type it did not list, a parameter it does
// not take, a required one missing (an empty value counts as none, as the
// peer counts it), a value not in its list, an absolute path for a path.
// A peer that described itself (its role, its contexts) and listed no
// task types offers none: the request would only come back refused (the
// fourteenth walk's did).
// It is "" when nothing is wrong, and when the peer's word cannot tell: it
// never described itself, said nothing of the task type's parameters (a
// peer older than task_params, or a task that takes none), or what it said
// was cut to bound it.
func (p Peer) TaskRequestProblem(taskType string, params map[string]string) string {
	if len(p.TaskTypes) == 0 && (p.AnnouncedRole != "" || len(p.Contexts) > 0) {
		return fmt.Sprintf("%s offers you no task types", p.AgentID)
	}
	// A task type it did not list, when the list is whole (no name of it
	// cut, nothing left out) and lists any.
	if len(p.TaskTypes) > 0 && len(p.TaskTypes) < maxDescribedItems && len(p.TaskParamsCut) == 0 &&
		!slices.Contains(p.TaskTypes, taskType) {
		mean := ""
		if near := suggest.Typo(taskType, p.TaskTypes); near != "" {
			mean = " (did you mean " + near + "?)"
		}
		return fmt.Sprintf("%s offers you no task type %s%s; it offers %s", p.AgentID, taskType, mean, strings.Join(p.TaskTypes, ", "))
	}
	decl := p.TaskParams[taskType]
	if len(decl) == 0 || slices.Contains(p.TaskParamsCut, taskType) {
		return ""
	}
	what := p.AgentID + "'s " + taskType
	names := make([]string, len(decl))
	for i, d := range decl {
		names[i] = d.Name
	}
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if slices.Contains(names, k) {
			continue
		}
		mean := ""
		if near := suggest.Typo(k, names); near != "" {
			mean = " (did you mean " + near + "?)"
		}
		return fmt.Sprintf("%s has no parameter %s%s; it takes %s", what, k, mean, paramsText(decl))
	}
	for _, d := range decl {
		v := params[d.Name]
		if v == "" {
			if d.Required && d.Default == "" {
				return fmt.Sprintf("%s needs %s=…%s", what, d.Name, oneOf(d, ", "))
			}
			continue
		}
		if reason := valueProblem(v, d); reason != "" {
			return fmt.Sprintf("%s refuses %s=%s: %s", what, d.Name, v, reason)
		}
	}
	return ""
}

// valueProblem is why the peer refuses v for d, as its own check words it
// (agent/task: checkValue), or "". The rest of that check (the pattern a
// value must match, which stays with the peer; a ".." segment, which its
// folder rules judge first) is the peer's, which says what it wants.
func valueProblem(v string, d wire.TaskParam) string {
	switch {
	case len(d.Enum) > 0:
		if !slices.Contains(d.Enum, v) {
			return d.Name + " is" + oneOf(d, " ")
		}
	case d.Type == "path" && strings.HasPrefix(v, "/"):
		return "an absolute path; give a path relative to the task's directory"
	}
	return ""
}

// oneOf lists the values d allows after sep ("" when it lists none).
func oneOf(d wire.TaskParam, sep string) string {
	if len(d.Enum) == 0 {
		return ""
	}
	return sep + "one of " + strings.Join(d.Enum, ", ")
}

// paramsText lists parameters with the values each allows: "suite
// (auth|billing), verbose".
func paramsText(decl []wire.TaskParam) string {
	out := make([]string, len(decl))
	for i, d := range decl {
		out[i] = d.Name
		if len(d.Enum) > 0 {
			out[i] += " (" + strings.Join(d.Enum, "|") + ")"
		}
	}
	return strings.Join(out, ", ")
}
