package agent

import (
	"maps"

	"github.com/aoi-protocol/aoi/agent/peerapi"
	"github.com/aoi-protocol/aoi/rpc"
)

// newPeerAPI wires the peer API (agent/peerapi) to this core's store,
// registry, inbox, task engine and secretary.
func (c *Core) newPeerAPI() *peerapi.API {
	return &peerapi.API{DB: c.db, Peers: c.peers, Inbox: c.inbox, Tasks: c.tasks,
		Config: c.config, Policy: c.policy.Load, Now: c.now, Log: c.log,
		Self: c.selfEntry, Decide: c.secretaryDecide, ResolveScope: resolveScope,
		Publish: func(kind, id, agent, summary string) { c.events.Publish(kind, id, agent, summary) },
		Wake:    func() { c.outbox.Wake() }}
}

// peerRoutes is the peer API's route table plus aoi.message
// (agent/messaging).
func (c *Core) peerRoutes() map[string]rpc.Handler {
	routes := c.peerAPI.Routes()
	maps.Copy(routes, c.msgs.Routes())
	return routes
}

// registerPeerHandlers installs the peer API on the peer server, each
// handler behind the edge that turns domain errors into JSON-RPC errors.
func (c *Core) registerPeerHandlers(s *rpc.Server) {
	for method, h := range c.peerRoutes() {
		s.Handle(method, peerEdge(h))
	}
}
