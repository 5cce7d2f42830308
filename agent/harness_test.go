package agent_test

import (
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/config"
)

// The package's tests run real cores from agent/agenttest.
type testAgent = agenttest.Agent

var (
	newTestAgent = agenttest.New
	pair         = agenttest.Pair
	eventually   = agenttest.Eventually
	freeAddr     = agenttest.FreeAddr
)

// grantMessages lets every peer send this agent typed messages.
func grantMessages(c *config.Config) {
	c.ACL.Rules = append(c.ACL.Rules, config.Rule{ID: "team-msg", AgentID: "*", ScopeType: config.ScopeMessages, ScopePattern: "*", Permission: "write"})
}
