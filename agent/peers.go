package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// URLMapper is implemented by transports whose peer URLs are not
// https://<endpoint>/aoi/v1/rpc (the tailnet speaks plain HTTP inside
// WireGuard).
type URLMapper interface {
	EndpointURL(endpoint string) string
}

// PeerFinder is implemented by transports that can list candidate peers by
// themselves (the tailnet): endpoints "host:port" of online nodes that look
// like aoi agents or are named in the config.
type PeerFinder interface {
	FindPeers(ctx context.Context) ([]string, error)
}

// peerClients keeps one RPC client per peer, rebuilt when the peer's
// endpoint or pinned fingerprint changes.
type peerClients struct {
	c  *Core
	mu sync.Mutex
	m  map[string]cachedClient
}

type cachedClient struct {
	endpoint, fingerprint string
	client                *rpc.Client
}

func newPeerClients(c *Core) *peerClients { return &peerClients{c: c, m: map[string]cachedClient{}} }

// client returns the client for a registered peer, or a clear error.
func (pc *peerClients) client(ctx context.Context, agentID string) (*rpc.Client, error) {
	if err := pc.c.checkPeerID(agentID); err != nil {
		return nil, err
	}
	rec, found, err := pc.c.db.Peer(ctx, agentID)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errs.UnknownPeer(agentID, fmt.Sprintf("%s is not a known peer; pin it with `aoi peers trust %s FINGERPRINT --endpoint HOST:PORT` or run `aoi discover`", agentID, agentID))
	}
	if rec.Endpoint == "" {
		return nil, fmt.Errorf("no address known for %s; add its endpoint with `aoi peers trust` or to peers[] in the config", agentID)
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if cc, ok := pc.m[agentID]; ok && cc.endpoint == rec.Endpoint && cc.fingerprint == rec.Fingerprint {
		return cc.client, nil
	}
	cl := pc.forEndpoint(rec.Endpoint, rec.Fingerprint)
	pc.m[agentID] = cachedClient{endpoint: rec.Endpoint, fingerprint: rec.Fingerprint, client: cl}
	return cl, nil
}

// forEndpoint builds a client for a peer at endpoint on this transport.
func (pc *peerClients) forEndpoint(endpoint, fingerprint string) *rpc.Client {
	url := "https://" + endpoint + rpc.Path
	if m, ok := pc.c.transport.(URLMapper); ok {
		url = m.EndpointURL(endpoint)
	}
	timeout := pc.c.config().Network.RequestTimeout()
	return rpc.NewClient(url, pc.c.transport.HTTPClient(fingerprint), rpc.ClientOptions{Timeout: timeout})
}

// peerError words a failed call to a peer for a person.
func peerError(agentID string, err error) error {
	var rpcErr *rpc.Error
	if errors.As(err, &rpcErr) {
		return fmt.Errorf("%s answered: %w", agentID, rpcErr)
	}
	return fmt.Errorf("%s is unreachable (%v); check that its aoi is running and the endpoint is right (`aoi peers`)", agentID, err)
}

// Discover announces this agent to every peer with a known endpoint and
// merges what they know. On a transport that finds peers by itself (the
// tailnet) it first announces to every found endpoint not yet registered.
func (c *Core) Discover(ctx context.Context) ([]Peer, error) {
	return c.discoverRound(ctx, 0)
}

// discoverRound is Discover skipping the pinned peers this agent exchanged
// announces with less than skipFresh ago (0 skips none).
func (c *Core) discoverRound(ctx context.Context, skipFresh time.Duration) ([]Peer, error) {
	if pf, ok := c.transport.(PeerFinder); ok {
		c.discoverFound(ctx, pf)
	}
	recs, err := c.db.Peers(ctx)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxAnnouncing)
	for _, r := range recs {
		if r.Endpoint == "" || r.Trust != TrustPinned || c.exchangedWithin(r.AgentID, skipFresh) {
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func(id string) {
			defer func() { <-slots; wg.Done() }()
			if err := c.announceTo(ctx, id); err != nil {
				c.log.Info("announce failed", "component", "registry", "agent_to", id, "err", err)
			}
		}(r.AgentID)
	}
	wg.Wait()
	return c.Peers(ctx)
}

// exchangedAnnounces records that this agent and a peer just told each
// other who they are: an announce either way carries both descriptions
// (the caller's in the params, the callee's first in the reply).
func (c *Core) exchangedAnnounces(agentID string) { c.exchanged.Store(agentID, c.now()) }

// exchangedWithin reports whether this agent exchanged announces with a
// peer less than d ago.
func (c *Core) exchangedWithin(agentID string, d time.Duration) bool {
	v, ok := c.exchanged.Load(agentID)
	return ok && d > 0 && c.now().Sub(v.(time.Time)) < d
}

// maxAnnouncing bounds the announces of one round in flight at once: with
// hundreds of peers an unbounded round opens hundreds of TLS connections
// in the same instant (agent/bench/scale.go measures a round).
const maxAnnouncing = 16

// discoverFound announces to the transport's candidate peers whose endpoint
// is not in the registry yet, and pins those that answer.
func (c *Core) discoverFound(ctx context.Context, pf PeerFinder) {
	endpoints, err := pf.FindPeers(ctx)
	if err != nil {
		c.log.Warn("find tailnet peers", "component", "registry", "err", err)
		return
	}
	recs, err := c.db.Peers(ctx)
	if err != nil {
		return
	}
	known := map[string]bool{}
	for _, r := range recs {
		known[r.Endpoint] = true
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxAnnouncing)
	for _, ep := range endpoints {
		if known[ep] {
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func(ep string) {
			defer func() { <-slots; wg.Done() }()
			if err := c.announceToEndpoint(ctx, ep); err != nil {
				c.log.Info("announce failed", "component", "registry", "endpoint", ep, "err", err)
			}
		}(ep)
	}
	wg.Wait()
}

// announceParams is this agent's announcement.
func (c *Core) announceParams() wire.DiscoverParams {
	cfg := c.config()
	return wire.DiscoverParams{AgentID: cfg.Agent.ID, Capabilities: c.capabilities(), Announce: true, SelfOnly: true,
		Role: cfg.Agent.Role, Owner: cfg.Agent.Owner, Endpoint: c.advertisedEndpoint(), AOIVersion: wire.ProtocolVersion}
}

// announceToEndpoint announces to an agent known only by its endpoint and
// pins the agent that answers there (its self entry comes first).
func (c *Core) announceToEndpoint(ctx context.Context, endpoint string) error {
	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var res wire.DiscoverResult
	if err := c.peers.forEndpoint(endpoint, "").Call(callCtx, wire.MethodDiscover, c.announceParams(), &res); err != nil {
		return fmt.Errorf("%s: %w", endpoint, err)
	}
	if err := checkVersion(res.AOIVersion); err != nil {
		return fmt.Errorf("%s: %w", endpoint, err)
	}
	if len(res.Agents) == 0 || res.Agents[0].Identity.ID == "" || res.Agents[0].Identity.ID == c.selfID() {
		return fmt.Errorf("%s answered without describing itself", endpoint)
	}
	e := res.Agents[0]
	id := e.Identity.ID
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		rec, found, err := c.db.Peer(ctx, id)
		if err != nil {
			return err
		}
		if !found {
			rec = store.PeerRecord{AgentID: id, FirstSeen: c.now()}
		}
		if rec.NodeID != "" && rec.Endpoint != "" && rec.Endpoint != endpoint {
			// The id is bound to a node that announced itself from
			// another address: the answer here is an impersonation.
			return fmt.Errorf("%s claims to be %s, which is bound to the node at %s", endpoint, id, rec.Endpoint)
		}
		rec.Trust, rec.Endpoint = TrustPinned, endpoint
		return tx.UpsertPeer(rec)
	})
	if err != nil {
		return err
	}
	c.exchangedAnnounces(id)
	return c.recordSelfDescription(ctx, id, e)
}

// announceTo sends aoi.discover(announce) to a peer and records what it says
// about itself.
func (c *Core) announceTo(ctx context.Context, agentID string) error {
	client, err := c.peers.client(ctx, agentID)
	if err != nil {
		return err
	}
	params := c.announceParams()
	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var res wire.DiscoverResult
	if err := client.Call(callCtx, wire.MethodDiscover, params, &res); err != nil {
		return c.peerFailed(ctx, agentID, err)
	}
	if err := checkVersion(res.AOIVersion); err != nil {
		return fmt.Errorf("%s: %w", agentID, err)
	}
	c.exchangedAnnounces(agentID)
	for _, e := range res.Agents {
		if e.Identity.ID == agentID {
			return c.recordSelfDescription(ctx, agentID, e)
		}
	}
	return c.markSeen(ctx, agentID)
}

// recordSelfDescription stores what a peer said about itself.
func (c *Core) recordSelfDescription(ctx context.Context, agentID string, e wire.RegistryEntry) error {
	err := c.db.Write(ctx, func(tx *store.Tx) error {
		rec, found, err := c.db.Peer(ctx, agentID)
		if err != nil || !found {
			return err
		}
		wasOffline := c.peerView(rec).Status == PeerOffline
		rec.Role, rec.Owner = e.Identity.Role, e.Identity.Owner
		rec.Contexts, rec.TaskTypes = contextIDs(e.Identity.Capabilities.Contexts), e.Identity.Capabilities.TaskTypes
		rec.Status, rec.LastSeen = e.Status, c.now()
		if wasOffline {
			defer c.outbox.Wake()
		}
		return tx.UpsertPeer(rec)
	})
	if err == nil {
		c.events.Publish(EventPeerChanged, agentID, agentID, e.Status)
	}
	return err
}

// advertisedEndpoint is the address peers should call us back on.
func (c *Core) advertisedEndpoint() string { return c.Addr() }

// heartbeatLoop announces to peers at start and then every discovery
// interval; peers silent for offline_after_sec are shown offline.
//
// A pair of agents needs one exchange an interval, not one each way: a
// round skips the peers it exchanged announces with in the last half
// interval, which halves discovery's traffic and audit rows on a large
// tailnet (agent/bench/scale.go) while every pair still meets at least
// once an interval.
func (c *Core) heartbeatLoop(ctx context.Context) {
	for {
		interval := c.config().Network.DiscoveryInterval()
		if _, err := c.discoverRound(ctx, interval/2); err != nil && ctx.Err() == nil {
			c.log.Warn("discover", "component", "registry", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

// checkPeerID refuses an id no peer can have without repeating it (it may
// hold control characters or a path), and a call to this agent itself.
func (c *Core) checkPeerID(agentID string) error {
	if !wire.ValidAgentID(agentID) {
		return errs.Invalid("that is not a valid agent id (lower-case letters, digits, '.', '_' or '-', at most 63 characters); list the agents you can reach with `aoi discover`")
	}
	if agentID == c.selfID() {
		return errs.Invalid("%s is this agent itself; send it to a colleague's agent instead (list them with `aoi discover`)", agentID)
	}
	return nil
}
