package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestSendKeepsTextWithPayload: `aoi send AGENT question "text" --payload
// '{"k":1}'` sent {"k":1} and dropped the text without a word. The text
// now becomes the payload's message; a payload that has one already is a
// usage error, and a payload that is no object is refused.
func TestSendKeepsTextWithPayload(t *testing.T) {
	got, err := sendPayload("question", `{"k":1}`, "which branch has the fix?")
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := json.Unmarshal(got, &obj); err != nil || obj["message"] != "which branch has the fix?" || obj["k"] != float64(1) {
		t.Errorf("payload = %s (%v); want the text as message next to k", got, err)
	}
	got, _ = sendPayload("task_assign", `{"files":["a.go"]}`, "implement refresh")
	if !strings.Contains(string(got), `"description":"implement refresh"`) {
		t.Errorf("task_assign payload = %s; want the text as description", got)
	}
	if _, err := sendPayload("note", `{"message":"a"}`, "b"); err == nil || !strings.Contains(err.Error(), "give one of them") {
		t.Errorf("text and a payload message both given: err = %v", err)
	}
	for _, bad := range []string{`null`, `[1]`, `"x"`} {
		if _, err := sendPayload("note", bad, ""); err == nil {
			t.Errorf("--payload %s accepted", bad)
		}
	}
	if got, _ := sendPayload("note", `{"k":1}`, ""); string(got) != `{"k":1}` {
		t.Errorf("payload alone = %s", got)
	}
}

// TestInboxSaysWhyATaskWasRejected: the requester's `aoi inbox` showed
// "t-1 · rejected" and left the owner's reason in the JSON only.
func TestInboxSaysWhyATaskWasRejected(t *testing.T) {
	m := agent.Message{Seq: 7, From: "eng-suzuki", Event: "task.failed",
		Data: json.RawMessage(`{"task_id":"t-1","status":"rejected","error":"the owner rejected the request: not before the release","code":-32007}`)}
	if got := messageSummary(m, 0); !strings.Contains(got, "not before the release") {
		t.Errorf("summary = %q; want the reason", got)
	}
	var b strings.Builder
	printInbox(&b, inboxOutput{Messages: []agent.Message{m}}, 0)
	if !strings.Contains(b.String(), "not before the release") {
		t.Errorf("inbox:\n%s", b.String())
	}
}

// TestTaskStatusPrintsOutputAsLines: `aoi task status` printed a finished
// task's outcome as one JSON line, its output's lines joined by \n.
func TestTaskStatusPrintsOutputAsLines(t *testing.T) {
	exit := 1
	out := json.RawMessage(`{"task_id":"t-1","status":"failed","exit_code":1,"duration_ms":1500,` +
		`"output":{"tests_run":3,"tests_passed":2,"tests_failed":1,"failures":[{"test":"TestRefresh","package":"auth"}]},` +
		`"output_tail":"ok  api\nFAIL auth \u001b[31mTestRefresh\n","output_truncated":true}`)
	var b strings.Builder
	printTask(&b, agent.Task{ID: "t-1", Type: "run_tests", Requester: "pm", State: "failed", ExitCode: &exit, Output: out})
	got := b.String()
	for _, want := range []string{"took: 1.5s", "tests: 3 run, 2 passed, 1 failed, 0 skipped", "  FAIL auth TestRefresh",
		"output (its last lines):\nok  api\nFAIL auth TestRefresh\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("task status lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, `\n`) || strings.Contains(got, "\x1b") || strings.Contains(got, `"output_tail"`) {
		t.Errorf("task status shows the JSON or a control character:\n%s", got)
	}
	if strings.Count(got, "exit code: 1") != 1 {
		t.Errorf("the exit code is printed %d times:\n%s", strings.Count(got, "exit code: 1"), got)
	}
	b.Reset()
	printTask(&b, agent.Task{ID: "t-1", State: "failed", Output: out}) // a peer's status: the code only in the outcome
	if !strings.Contains(b.String(), "exit code: 1") {
		t.Errorf("the outcome's exit code is not printed:\n%s", b.String())
	}
	b.Reset()
	printTask(&b, agent.Task{ID: "t-2", State: "completed", Output: json.RawMessage(`"plain text"`)})
	if !strings.Contains(b.String(), "output:\n\"plain text\"") {
		t.Errorf("an output that is no outcome is printed as it is:\n%s", b.String())
	}
}

// TestInboxShowsLongReasonsWholeAndTheQuestion: a reason longer than the
// old 60-rune cell arrives whole, and an answer names the question it
// answers instead of its request id.
func TestInboxShowsLongReasonsWholeAndTheQuestion(t *testing.T) {
	reason := "not today, CI is already running the full suite for the release branch and will finish in an hour"
	rejected := agent.Message{Seq: 7, From: "eng-suzuki", Event: "task.failed",
		Data: json.RawMessage(`{"task_id":"t-1","summary":"run_tests rejected: ` + reason + `"}`)}
	answer := agent.Message{Seq: 8, From: "eng-suzuki", Event: "query.completed", RelatedID: "ask-01a2b3",
		Question: "how is auth going?", Data: json.RawMessage(`{"summary":"70% done"}`)}
	var b strings.Builder
	printInbox(&b, inboxOutput{Messages: []agent.Message{rejected, answer}}, 0)
	out := b.String()
	if !strings.Contains(out, reason) {
		t.Errorf("the reason is cut:\n%s", out)
	}
	if !strings.Contains(out, "“how is auth going?”") || strings.Contains(out, "ask-01a2b3") {
		t.Errorf("the answer does not name its question:\n%s", out)
	}
}
