package peers

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// TestTaskRequestProblem: a request the peer would refuse by what it said
// of the task type's parameters is named with what is wrong and the
// values it takes; one it allows, and one for a task type it said nothing
// about, is not judged.
func TestTaskRequestProblem(t *testing.T) {
	p := Peer{AgentID: "eng-suzuki", TaskTypes: []string{"lint", "run_tests"}, TaskParams: map[string][]wire.TaskParam{"run_tests": {
		{Name: "suite", Required: true, Enum: []string{"auth", "billing"}},
		{Name: "mode", Enum: []string{"fast", "full"}},
		{Name: "pkg", Type: "path"},
		{Name: "tags", Required: true, Default: "unit"},
	}}}
	for _, c := range []struct {
		taskType string
		params   map[string]string
		want     string
	}{
		{"run_tests", map[string]string{"suite": "auth"}, ""},
		{"run_tests", map[string]string{"suite": "billing", "mode": "full", "pkg": "internal/x", "tags": "e2e"}, ""},
		{"run_tests", map[string]string{"suite": "auth", "mode": ""}, ""}, // empty: left out
		{"run_tests", nil, "eng-suzuki's run_tests needs suite=…, one of auth, billing"},
		{"run_tests", map[string]string{"suite": ""}, "eng-suzuki's run_tests needs suite=…, one of auth, billing"},
		{"run_tests", map[string]string{"suite": "Auth"}, "eng-suzuki's run_tests refuses suite=Auth: suite is one of auth, billing"},
		{"run_tests", map[string]string{"suite": "auth", "mod": "fast"}, "eng-suzuki's run_tests has no parameter mod (did you mean mode?); it takes suite (auth|billing), mode (fast|full), pkg, tags"},
		{"run_tests", map[string]string{"suite": "auth", "zzzzzz": "1"}, "eng-suzuki's run_tests has no parameter zzzzzz; it takes"},
		{"run_tests", map[string]string{"suite": "auth", "pkg": "/etc"}, "refuses pkg=/etc: an absolute path"},
		{"lint", map[string]string{"anything": "x"}, ""}, // nothing said of lint's parameters
		{"run_test", map[string]string{"suite": "auth"}, "eng-suzuki offers you no task type run_test (did you mean run_tests?); it offers lint, run_tests"},
	} {
		got := p.TaskRequestProblem(c.taskType, c.params)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s %v: %q; want %q", c.taskType, c.params, got, c.want)
		}
	}
	// A task type told nothing of, or told in part, is not judged.
	if got := (Peer{AgentID: "old"}).TaskRequestProblem("run_tests", map[string]string{"x": "y"}); got != "" {
		t.Errorf("a peer that never described itself: %q", got)
	}
	// One that described itself and listed none offers none.
	for _, described := range []Peer{{AgentID: "qa", AnnouncedRole: "qa"}, {AgentID: "qa", Contexts: []string{"acme/webapp"}}} {
		if got := described.TaskRequestProblem("run_tests", nil); got != "qa offers you no task types" {
			t.Errorf("%+v: %q; want it said to offer none", described, got)
		}
	}
	p.TaskParamsCut = []string{"run_tests"}
	for _, tt := range []string{"run_tests", "deploy"} {
		if got := p.TaskRequestProblem(tt, map[string]string{"suite": "payments"}); got != "" {
			t.Errorf("%s judged by what was kept only in part: %q", tt, got)
		}
	}
}

// TestDescribeSaysWhichTaskParametersWereCut: a task type whose
// parameters or values were left out or changed to bound them is named,
// so no request is judged by the part kept (a 17th value may be the one
// asked for); one told whole is not, and the mark survives the registry.
func TestDescribeSaysWhichTaskParametersWereCut(t *testing.T) {
	var values, params []string
	for i := range maxTaskParams + 1 {
		values = append(values, fmt.Sprint("v", i))
		params = append(params, fmt.Sprint("p", i))
	}
	caps := wire.Capabilities{TaskTypes: []string{"whole", "values", "params", "named", "text"}, TaskParams: map[string][]wire.TaskParam{
		"whole":  {{Name: "suite", Enum: []string{"auth", "billing"}}},
		"values": {{Name: "suite", Enum: values}},
		"named":  {{Name: "suite"}, {Name: "not a name"}},
		"text":   {{Name: "suite", Enum: []string{"a\x1b[2J"}}},
	}}
	for _, n := range params {
		caps.TaskParams["params"] = append(caps.TaskParams["params"], wire.TaskParam{Name: n})
	}
	d := Describe("", "", "online", caps)
	if want := []string{"values", "params", "named", "text"}; !slices.Equal(d.TaskParamsCut, want) {
		t.Errorf("cut: %q; want %q", d.TaskParamsCut, want)
	}
	var rec store.PeerRecord
	d.Apply(&rec)
	if got := storedTaskParams(rec); !slices.Equal(got.TaskParamsCut, d.TaskParamsCut) || len(got.TaskParams["whole"]) != 1 {
		t.Errorf("stored: %+v", got)
	}
}
