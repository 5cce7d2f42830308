package agent

import (
	"fmt"
	"strings"
)

// RetrustSummary says what trusting an already pinned peer again changed:
// its role and endpoint, from what to what, or nothing. The CLI and the
// interface say it instead of a first trust's greeting. Peer text in it
// is the front end's to sanitise.
func RetrustSummary(before Peer, req TrustRequest) string {
	var changes []string
	if req.Role != "" && req.Role != before.Role {
		changes = append(changes, fmt.Sprintf("its role changed from %s to %s", orNone(before.Role), req.Role))
	}
	if req.Endpoint != "" && req.Endpoint != before.Endpoint {
		changes = append(changes, fmt.Sprintf("its endpoint changed from %s to %s", orNone(before.Endpoint), req.Endpoint))
	}
	head := fmt.Sprintf("%s was already trusted (fingerprint %s)", req.AgentID, GroupFingerprint(before.Fingerprint))
	if len(changes) == 0 {
		return head + "; nothing changed (role " + orNone(before.Role) + ")"
	}
	return head + "; " + strings.Join(changes, ", ")
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
