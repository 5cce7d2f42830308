package messaging

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestCheckEnvelope: each malformed field is refused as ErrInvalid with a
// sentence naming the field and never echoing the id; a well-formed
// envelope passes.
func TestCheckEnvelope(t *testing.T) {
	t.Parallel()
	bad := "id with spaces <script>"
	for _, tc := range []struct {
		name            string
		typ, task, prio string
		payload         json.RawMessage
		want            string
	}{
		{"type", "chat", "", "", nil, "type must be one of"},
		{"task id", wire.MsgProgress, bad, "", nil, "task_id must be at most 128 bytes of letters (any script)"},
		{"priority", wire.MsgProgress, "", "urgent", nil, "priority must be one of"},
		{"size", wire.MsgProgress, "", "", json.RawMessage(`"` + strings.Repeat("a", maxPayload) + `"`), "the limit is 16384"},
		{"json", wire.MsgProgress, "", "", json.RawMessage(`{"a":`), "payload is not valid JSON"},
	} {
		err := checkEnvelope("m-1", tc.typ, tc.task, "", "", tc.prio, tc.payload)
		if err == nil || !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), bad) {
			t.Errorf("%s: err = %v, want ErrInvalid saying %q without the id", tc.name, err, tc.want)
		}
	}
	if err := checkEnvelope("m-1", wire.MsgTaskAssign, "T-7", "m-1", "", wire.PriorityHigh, json.RawMessage(`{"description":"x"}`)); err != nil {
		t.Fatalf("well-formed envelope refused: %v", err)
	}
}
