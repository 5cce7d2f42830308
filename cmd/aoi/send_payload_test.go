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
	printInbox(&b, inboxOutput{Messages: []agent.Message{m}})
	if !strings.Contains(b.String(), "not before the release") {
		t.Errorf("inbox:\n%s", b.String())
	}
}
