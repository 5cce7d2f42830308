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
