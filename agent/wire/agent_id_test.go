package wire

import "testing"

// TestValidAgentID: the shape of an agent id, and the two names the audit
// log keeps for its own rows.
func TestValidAgentID(t *testing.T) {
	for id, want := range map[string]bool{
		"eng-suzuki": true, "pm.tanaka_2": true, "a": true,
		"": false, "Eng": false, "-eng": false, "..": false, "eng/x": false,
		"owner": false, "system": false, "system2": true,
	} {
		if got := ValidAgentID(id); got != want {
			t.Errorf("ValidAgentID(%q) = %v, want %v", id, got, want)
		}
	}
}
