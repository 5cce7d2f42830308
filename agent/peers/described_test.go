package peers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestDescribeBoundsWhatAPeerSaysOfItself: a peer's self-description is
// cut to 64 contexts and task types of at most 128 printable characters,
// and an unknown status reads as online (the attack run stored 60,000
// contexts, 4 MB, from one answer).
func TestDescribeBoundsWhatAPeerSaysOfItself(t *testing.T) {
	var ctxs []wire.ContextReference
	var types []string
	for range 60000 {
		ctxs = append(ctxs, wire.ContextReference{Type: "repository", Identifier: "acme/" + strings.Repeat("x", 300)})
		types = append(types, "run\u202etests\x1b[31m")
	}
	d := Describe("pm\u200b"+strings.Repeat("r", 500), "own\u2028er\u2029\x07", "pwned", wire.Capabilities{Contexts: ctxs, TaskTypes: types})
	if len(d.Contexts) != maxDescribedItems || len(d.TaskTypes) != maxDescribedItems {
		t.Fatalf("%d contexts, %d task types kept; want %d each", len(d.Contexts), len(d.TaskTypes), maxDescribedItems)
	}
	if n := len([]rune(d.Contexts[0])); n != maxDescribedRunes {
		t.Errorf("a context kept %d characters, want %d", n, maxDescribedRunes)
	}
	if d.TaskTypes[0] != "runtests[31m" || d.Owner != "owner" || !strings.HasPrefix(d.AnnouncedRole, "pmrrr") || len([]rune(d.AnnouncedRole)) != maxDescribedRunes {
		t.Errorf("printable only: task type %q, owner %q, role %q", d.TaskTypes[0], d.Owner, d.AnnouncedRole)
	}
	if d.Status != Online {
		t.Errorf("status %q, want an unknown status read as online", d.Status)
	}
	if got := Describe("", "", "busy", wire.Capabilities{}).Status; got != Busy {
		t.Errorf("busy read as %q", got)
	}
}

// TestDescribeBoundsTaskParameters: a task type's parameters as a peer
// tells them keep names a prompt line can carry, at most maxTaskParams of
// them and of each one's values, printable text only, and only for task
// types the description keeps.
func TestDescribeBoundsTaskParameters(t *testing.T) {
	var many []wire.TaskParam
	for i := range 100 {
		many = append(many, wire.TaskParam{Name: "p" + strings.Repeat("x", i%3), Enum: []string{"a\x1b[2J", "b"}})
	}
	caps := wire.Capabilities{TaskTypes: []string{"run_tests", "lint"}, TaskParams: map[string][]wire.TaskParam{
		"run_tests": append([]wire.TaskParam{{Name: "suite; rm -rf", Required: true}, {Name: "suite", Description: "which\u202e one", Enum: make([]string, 40)}}, many...),
		"ghost":     {{Name: "x"}},
	}}
	for i := range caps.TaskParams["run_tests"][1].Enum {
		caps.TaskParams["run_tests"][1].Enum[i] = "v"
	}
	d := Describe("", "", "online", caps)
	ps := d.TaskParams["run_tests"]
	if len(ps) != maxTaskParams || ps[0].Name != "suite" || ps[0].Description != "which one" || len(ps[0].Enum) != maxTaskParams {
		t.Errorf("run_tests kept %d parameters, the first %+v; want %d, starting with suite (its bad-named neighbour dropped, %d values)", len(ps), ps[0], maxTaskParams, maxTaskParams)
	}
	if ps[1].Enum[0] != "a[2J" {
		t.Errorf("a value kept %q, want it printable", ps[1].Enum[0])
	}
	if _, ok := d.TaskParams["ghost"]; ok {
		t.Error("parameters of a task type the peer did not list were kept")
	}
}

// TestDescribeBoundsTaskParametersInAll: the re-check's peer announced 64
// task types of 16 parameters of 16 values of 128 characters, 9 MB stored
// and printed; all of a peer's parameters now hold at most maxParamBytes.
func TestDescribeBoundsTaskParametersInAll(t *testing.T) {
	caps := wire.Capabilities{TaskParams: map[string][]wire.TaskParam{}}
	long := strings.Repeat("語", 128)
	for i := range 64 {
		name := fmt.Sprintf("type%02d", i)
		caps.TaskTypes = append(caps.TaskTypes, name)
		for j := range 16 {
			p := wire.TaskParam{Name: fmt.Sprintf("p%02d", j), Description: long}
			for range 16 {
				p.Enum = append(p.Enum, long)
			}
			caps.TaskParams[name] = append(caps.TaskParams[name], p)
		}
	}
	d := Describe("", "", "online", caps)
	total := 0
	for _, ps := range d.TaskParams {
		for _, p := range ps {
			total += paramBytes(p)
		}
	}
	if total > maxParamBytes || total == 0 {
		t.Errorf("task parameters kept %d bytes; want some, at most %d", total, maxParamBytes)
	}
}
