package tailnet

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// HostnamePrefix starts the node name of every aoi agent on a tailnet;
// discovery probes peers whose host name has it.
const HostnamePrefix = "aoi-"

// Hostname is the node name for an agent: aoi-<agent-id> made a valid DNS
// label (lower case, letters, digits and '-', at most 63 bytes), so the
// MagicDNS name matches what was asked for. An id with no such characters
// at all (e.g. only Japanese) gets a short hash instead.
func Hostname(agentID string) string {
	var b strings.Builder
	b.WriteString(HostnamePrefix)
	dash := true // no leading or repeated '-'
	for _, r := range strings.ToLower(agentID) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	name := b.String()
	if name == HostnamePrefix {
		sum := sha256.Sum256([]byte(agentID))
		return HostnamePrefix + hex.EncodeToString(sum[:4])
	}
	if len(name) > 63 {
		name = name[:63]
	}
	return strings.TrimRight(name, "-")
}

// LooksLikeAOI reports whether p is named like an aoi agent's node.
func (p Peer) LooksLikeAOI() bool {
	return strings.HasPrefix(strings.ToLower(p.HostName), HostnamePrefix)
}
