package task

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/config"
)

func approvalOf(t *testing.T, js string) config.TaskType {
	t.Helper()
	var tt config.TaskType
	if err := json.Unmarshal([]byte(`{"command":["x"],"approval":`+js+`}`), &tt); err != nil {
		t.Fatal(err)
	}
	return tt
}

func TestPolicy(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2025, 3, 3, h, 30, 0, 0, time.Local) }
	auto := `{"auto":[{"from_role":"pm","hours":[9,18]},{"from_agent":"qa-*"}]}`
	cases := []struct {
		approval, id, role string
		hour               int
		required           bool
		rule               string
	}{
		{`"required"`, "pm-tanaka", "pm", 10, true, ""},
		{`"none"`, "pm-tanaka", "pm", 10, false, RuleNoApproval},
		{auto, "pm-tanaka", "pm", 10, false, "approval.auto[0]"},
		{auto, "pm-tanaka", "pm", 8, true, ""},
		{auto, "pm-tanaka", "pm", 18, true, ""},
		{auto, "pm-tanaka", "pm", 17, false, "approval.auto[0]"},
		{auto, "eng-sato", "engineer", 10, true, ""},
		{auto, "qa-kimura", "qa", 23, false, "approval.auto[1]"},
		{auto, "qa", "qa", 23, true, ""},
		{`{"auto":[{"from_role":"pm"}],"required":false}`, "eng-sato", "engineer", 10, false, RuleNoApproval},
		{`{"auto":[{"from_agent":"pm-*","hours":[22,6]}]}`, "pm-a", "pm", 2, false, "approval.auto[0]"},
		{`{"auto":[{"from_agent":"pm-*","hours":[22,6]}]}`, "pm-a", "pm", 12, true, ""},
	}
	for _, c := range cases {
		required, rule := Policy(approvalOf(t, c.approval), c.id, c.role, at(c.hour))
		if required != c.required || rule != c.rule {
			t.Errorf("%s from %s/%s at %d:30 = (%v, %q), want (%v, %q)", c.approval, c.id, c.role, c.hour, required, rule, c.required, c.rule)
		}
	}
}
