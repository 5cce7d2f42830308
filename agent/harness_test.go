package agent_test

import (
	"github.com/aoi-protocol/aoi/agent/agenttest"
)

// The package's tests run real cores from agent/agenttest.
type testAgent = agenttest.Agent

var (
	newTestAgent = agenttest.New
	pair         = agenttest.Pair
	eventually   = agenttest.Eventually
	freeAddr     = agenttest.FreeAddr
)
