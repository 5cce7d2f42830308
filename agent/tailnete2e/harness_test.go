package tailnete2e

import (
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/agenttest"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc/tailnet"
	"github.com/aoi-protocol/aoi/rpc/tailnet/tailnettest"
)

// node is a real core (agent/agenttest) serving on its own tsnet node.
type node struct {
	*agenttest.Agent
	tr *tailnet.Transport
}

// newNode joins tn as tailnet.Hostname(id) and serves a real core for id
// on that node until the test ends.
func newNode(t *testing.T, tn *tailnettest.Tailnet, id, role string, edit func(*config.Config)) *node {
	t.Helper()
	tr := tn.NewNode(t, tailnet.Hostname(id))
	a := agenttest.Start(t, id, agenttest.Options{Role: role, Edit: edit, Transport: tr, StartTimeout: 30 * time.Second})
	return &node{Agent: a, tr: tr}
}

var eventually = agenttest.Eventually

// The tailnet transport provides every tailnet feature the core looks for.
var (
	_ agent.PeerFinder        = (*tailnet.Transport)(nil)
	_ agent.URLMapper         = (*tailnet.Transport)(nil)
	_ agent.TailnetSummarizer = (*tailnet.Transport)(nil)
)
