package auditdetail

import (
	"encoding/json"
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
