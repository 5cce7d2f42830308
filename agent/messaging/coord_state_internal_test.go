package messaging

import (
	"encoding/json"
	"testing"

	"github.com/aoi-protocol/aoi/agent/wire"
)

// TestCoordStateMachine walks seed 004's task states through every message
// type: assigned → in_progress → review → done | failed, review →
// in_progress when changes are requested, and a finished task staying
// finished until it is assigned again.
func TestCoordStateMachine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cur, typ, payload, want string
	}{
		{CoordAssigned, wire.MsgProgress, `{"percent":10}`, CoordInProgress},
		{CoordInProgress, wire.MsgProgress, `{}`, CoordInProgress},
		{CoordAssigned, wire.MsgQuestion, `{"text":"which branch?"}`, CoordAssigned},
		{CoordInProgress, wire.MsgReviewRequest, `{}`, CoordReview},
		{CoordAssigned, wire.MsgReviewRequest, `{}`, CoordReview},
		{CoordReview, wire.MsgProgress, `{}`, CoordReview},
		{CoordReview, wire.MsgReviewResult, `{"approved":false,"feedback":"cover expiry"}`, CoordInProgress},
		{CoordReview, wire.MsgReviewResult, `{"status":"changes_requested"}`, CoordInProgress},
		{CoordReview, wire.MsgReviewResult, `{"status":"REJECTED"}`, CoordInProgress},
		{CoordReview, wire.MsgReviewResult, `{"approved":true}`, CoordReview},
		{CoordReview, wire.MsgReviewResult, `{}`, CoordReview}, // no verdict: approved
		{CoordReview, wire.MsgTaskComplete, `{}`, CoordDone},
		{CoordInProgress, wire.MsgTaskComplete, `{"status":"failed","error":"tests never pass"}`, CoordFailed},
		{CoordReview, wire.MsgTaskComplete, `{"failed":true}`, CoordFailed},
		{CoordDone, wire.MsgReviewRequest, `{}`, CoordDone},
		{CoordDone, wire.MsgReviewResult, `{"approved":false}`, CoordDone},
		{CoordFailed, wire.MsgProgress, `{}`, CoordFailed},
		{CoordDone, wire.MsgNote, `{}`, CoordDone},
		{CoordDone, wire.MsgTaskAssign, `{"description":"again"}`, CoordAssigned},
		{CoordInProgress, wire.MsgReviewResult, `"not an object"`, CoordInProgress},
	} {
		if got := nextState(tc.cur, tc.typ, json.RawMessage(tc.payload)); got != tc.want {
			t.Errorf("%s + %s %s = %s, want %s", tc.cur, tc.typ, tc.payload, got, tc.want)
		}
	}
}

// TestCoordSide: whoever assigns, reviews or completes a task asked for it.
func TestCoordSide(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ  string
		sent bool
		want string
	}{
		{wire.MsgTaskAssign, true, SideRequester},
		{wire.MsgTaskAssign, false, SideAssignee},
		{wire.MsgProgress, true, SideAssignee},
		{wire.MsgProgress, false, SideRequester},
		{wire.MsgReviewRequest, false, SideRequester},
		{wire.MsgReviewResult, false, SideAssignee},
		{wire.MsgTaskComplete, true, SideRequester},
	} {
		if got := sideFor(tc.typ, tc.sent); got != tc.want {
			t.Errorf("first message %s (sent %v): side %s, want %s", tc.typ, tc.sent, got, tc.want)
		}
	}
}
