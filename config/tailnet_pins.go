package config

import (
	"fmt"
	"strconv"
)

// CheckTailnetPins warns, in tailnet mode, of a peers[] entry that gives an
// agent id a role without pinning the id to a node. The registry binds an
// id to the first node that announces it (design §4); the role the owner
// wrote goes with that binding, so whichever node on the tailnet says it
// is that agent first gets the role's rights.
func CheckTailnetPins(c *Config) Errors {
	if !c.TailnetMode() {
		return nil
	}
	var out Errors
	for i, p := range c.Peers {
		if p.Role == "" || p.TailnetNode != "" {
			continue
		}
		out = append(out, &Error{Path: pointer("peers", strconv.Itoa(i), "tailnet_node"),
			Problem: fmt.Sprintf("%s gets role %q but is pinned to no tailnet node: the first node to announce itself as %s would get that role", p.AgentID, p.Role, p.AgentID),
			Fix:     fmt.Sprintf("set tailnet_node to %s's node name (the short name or the full MagicDNS name)", p.AgentID)})
	}
	return out
}
