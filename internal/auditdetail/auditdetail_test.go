package auditdetail

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestSummaryLeadsWithWhatTheRowIsAbout: the decision and the question
// come first, then the rest by name, strings without their quotes; a
// detail that is no object stays compact JSON.
func TestSummaryLeadsWithWhatTheRowIsAbout(t *testing.T) {
	for raw, want := range map[string]string{
		`{"confidence":0.2,"decision":"ESCALATE","priority":"low","query_id":"q-1","question":"is the Friday release on?"}`: `decision=ESCALATE question=“is the Friday release on?” confidence=0.2 priority=low query_id=q-1`,
		`{"scope":["acme/webapp","acme/api"],"zeta":{"a": 1}}`:                                                              `scope=acme/webapp,acme/api zeta={"a":1}`,
		`[1, 2]`: `[1,2]`,
		``:       ``,
	} {
		if got := Summary(json.RawMessage(raw)); got != want {
			t.Errorf("Summary(%s) = %q, want %q", raw, got, want)
		}
	}
}

// TestSummaryLeavesOutBlankValues: an empty string or null says nothing
// in a list; the walk's task.finish rows began "error= duration_ms=…" and
// its approvals "reason= approval_id=…". Zero and false still show.
func TestSummaryLeavesOutBlankValues(t *testing.T) {
	for raw, want := range map[string]string{
		`{"task_type":"list_files","error":"","exit_code":0,"duration_ms":1}`: `task_type=list_files duration_ms=1 exit_code=0`,
		`{"state":"approved","reason":"","approval_id":"a-1","restart":null}`: `state=approved approval_id=a-1`,
		`{"announce":false,"error":"refused"}`:                                `error=refused announce=false`,
	} {
		if got := Summary(json.RawMessage(raw)); got != want {
			t.Errorf("Summary(%s) = %q, want %q", raw, got, want)
		}
	}
}

// TestJSONPutsWhatTheRowIsAboutFirst: JSON keeps every member (blank ones
// too) and reads back as the same object, with the keys in Summary's
// order: an escalated row's question before its confidence and id.
func TestJSONPutsWhatTheRowIsAboutFirst(t *testing.T) {
	raw := json.RawMessage(`{"confidence":0.2,"decision":"ESCALATE","error":"","priority":"normal","query_id":"q-01a2","question":"when does billing ship?","scope":[]}`)
	got := JSON(raw)
	want := `{"decision":"ESCALATE", "question":"when does billing ship?", "confidence":0.2, "priority":"normal", "error":"", "scope":[], "query_id":"q-01a2"}`
	if got != want {
		t.Errorf("JSON = %s\nwant   %s", got, want)
	}
	var a, b map[string]any
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got), &b); err != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("JSON does not read back as the detail (%v): %v", err, b)
	}
	if got := JSON(json.RawMessage(`"plain"`)); got != `"plain"` {
		t.Errorf("a detail that is no object = %s", got)
	}
}
