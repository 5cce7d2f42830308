package service

import "testing"

// TestReachOf: who can use an endpoint as written, for the notes aoi serve
// and the first-run dialog print beside it.
func TestReachOf(t *testing.T) {
	for endpoint, want := range map[string]Reach{
		"127.0.0.1:7700":    ReachThisMachine,
		"[::1]:7700":        ReachThisMachine,
		"localhost:7700":    ReachThisMachine,
		"0.0.0.0:7700":      ReachEveryInterface,
		"[::]:7700":         ReachEveryInterface,
		":7700":             ReachEveryInterface,
		"100.64.0.7:7700":   ReachAsWritten,
		"aoi.example:7700":  ReachAsWritten,
		"no port":           ReachAsWritten,
		"192.168.1.20:7700": ReachAsWritten,
	} {
		if got := ReachOf(endpoint); got != want {
			t.Errorf("ReachOf(%q) = %d, want %d", endpoint, got, want)
		}
	}
}

// TestTaskRequestLabel: a task request reads back with its params, sorted,
// so results of one task type can be told apart (the walk had three
// "your request: task run_tests").
func TestTaskRequestLabel(t *testing.T) {
	r := TaskRequest{TaskType: "run_tests", Params: map[string]string{"suite": "./auth/...", "race": "true"}}
	if got, want := r.Label(), "task run_tests race=true suite=./auth/..."; got != want {
		t.Errorf("Label() = %q, want %q", got, want)
	}
	if got := (TaskRequest{TaskType: "lint"}).Label(); got != "task lint" {
		t.Errorf("Label() with no params = %q", got)
	}
}
