package task

import (
	"fmt"
	"time"

	"github.com/aoi-protocol/aoi/config"
)

// Rule ids Policy returns for requests that skip the owner.
const (
	RuleNoApproval = "approval:none" // the task type's approval is "none"
)

// Policy decides whether a request needs the owner's approval. When it does
// not, ruleID names why: RuleNoApproval, or "approval.auto[i]" for the auto
// rule (from_role / from_agent glob / hours [start,end) in now's location)
// that matched. The first matching auto rule wins.
func Policy(tt config.TaskType, requesterID, requesterRole string, now time.Time) (required bool, ruleID string) {
	for i, r := range tt.Approval.Auto {
		if r.Matches(requesterID, requesterRole, now) {
			return false, fmt.Sprintf("approval.auto[%d]", i)
		}
	}
	if !tt.Approval.Required {
		return false, RuleNoApproval
	}
	return true, ""
}
