package agent_test

import (
	"context"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
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

// mustSend sends r from from and fails the test unless the peer took it.
func mustSend(t *testing.T, from *testAgent, r agent.SendMessageRequest) agent.SentMessage {
	t.Helper()
	sent, err := from.SendMessage(context.Background(), r)
	if err != nil || sent.Queued {
		t.Fatalf("%s sends %s = %+v (%v), want it delivered", from.ID, r.Type, sent, err)
	}
	return sent
}
