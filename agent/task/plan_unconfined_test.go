package task

import (
	"testing"

	"github.com/aoi-protocol/aoi/config"
)

// TestPlanSaysWhenATypeIsUnconfined: the plan an approval shows says
// when its type opts out of Landlock (tasks.NAME.unconfined), so the
// approval screens can warn the owner; a confined type's plan does not.
func TestPlanSaysWhenATypeIsUnconfined(t *testing.T) {
	cfg := &config.Config{Tasks: map[string]config.TaskType{
		"gen_docs":  {Command: []string{"make", "docs"}, Unconfined: true},
		"run_tests": {Command: []string{"go", "test", "./..."}},
	}}
	e := &Engine{Config: func() *config.Config { return cfg }}
	if p := e.Plan("t-1", "gen_docs", nil); !p.Unconfined || p.Problem != "" {
		t.Errorf("plan of the unconfined gen_docs = %+v, want Unconfined", p)
	}
	if p := e.Plan("t-2", "run_tests", nil); p.Unconfined {
		t.Errorf("plan of the confined run_tests = %+v, want it confined", p)
	}
}
