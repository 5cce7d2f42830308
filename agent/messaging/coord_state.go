package messaging

import (
	"encoding/json"
	"strings"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// moveTask applies a typed message to its coordination task with peer
// (sent: this agent sent it) and returns the task's new state ("" when
// the message names no task).
func (m *Messenger) moveTask(tx *store.Tx, taskID, peer, typ string, payload json.RawMessage, sent bool) (string, error) {
	if taskID == "" {
		return "", nil
	}
	t, found, err := tx.CoordTask(taskID, peer)
	if err != nil {
		return "", err
	}
	if !found {
		t = store.CoordTaskRecord{TaskID: taskID, Peer: peer, Side: sideFor(typ, sent), State: CoordAssigned}
	}
	t.State = nextState(t.State, typ, payload)
	t.LastType, t.UpdatedAt = typ, m.Now()
	if typ == wire.MsgTaskAssign || t.Summary == "" {
		t.Summary = payloadSummary(payload)
	}
	return t.State, tx.UpsertCoordTask(t)
}

// sideFor guesses this agent's side of a task first seen in a message of
// typ: whoever assigns, reviews or completes a task asked for it.
func sideFor(typ string, sent bool) string {
	requesterSends := typ == wire.MsgTaskAssign || typ == wire.MsgReviewResult || typ == wire.MsgTaskComplete || typ == wire.MsgAnswer
	if requesterSends == sent {
		return SideRequester
	}
	return SideAssignee
}

// nextState is seed 004's state machine: assigned → in_progress → review
// → done | failed; review → in_progress when changes are requested. A
// finished task stays finished except for a new assignment.
func nextState(cur, typ string, payload json.RawMessage) string {
	finished := cur == CoordDone || cur == CoordFailed
	switch typ {
	case wire.MsgTaskAssign:
		return CoordAssigned
	case wire.MsgProgress:
		if cur == CoordAssigned {
			return CoordInProgress
		}
	case wire.MsgReviewRequest:
		if !finished {
			return CoordReview
		}
	case wire.MsgReviewResult:
		if !finished && !approved(payload) {
			return CoordInProgress
		}
	case wire.MsgTaskComplete:
		if failedOutcome(payload) {
			return CoordFailed
		}
		return CoordDone
	}
	return cur
}

// payloadFields are the payload keys the state machine reads.
type payloadFields struct {
	Approved    *bool  `json:"approved"`
	Status      string `json:"status"`
	Failed      bool   `json:"failed"`
	Description string `json:"description"`
	Summary     string `json:"summary"`
	Message     string `json:"message"`
	Text        string `json:"text"`
}

func readPayload(raw json.RawMessage) payloadFields {
	var p payloadFields
	_ = json.Unmarshal(raw, &p) // a non-object payload has none of them
	return p
}

// approved: a review result approves unless it says approved: false or
// status changes_requested / rejected.
func approved(raw json.RawMessage) bool {
	p := readPayload(raw)
	if p.Approved != nil {
		return *p.Approved
	}
	st := strings.ToLower(p.Status)
	return st != "changes_requested" && st != "rejected"
}

func failedOutcome(raw json.RawMessage) bool {
	p := readPayload(raw)
	return p.Failed || strings.EqualFold(p.Status, "failed")
}

// payloadSummary is a one-line description for task lists.
func payloadSummary(raw json.RawMessage) string {
	p := readPayload(raw)
	for _, s := range []string{p.Description, p.Summary, p.Message, p.Text} {
		if s = strings.TrimSpace(s); s != "" {
			if line, _, _ := strings.Cut(s, "\n"); len([]rune(line)) > 120 {
				return string([]rune(line)[:120]) + "…"
			} else {
				return line
			}
		}
	}
	return ""
}
