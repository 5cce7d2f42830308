package peers

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/store"
)

// Discover announces this agent to every peer with a known endpoint and
// merges what they know. On a transport that finds peers by itself (the
// tailnet) it first announces to every found endpoint not yet registered.
func (r *Registry) Discover(ctx context.Context) ([]Peer, error) {
	return r.Round(ctx, 0)
}

// Round is Discover skipping the pinned peers this agent exchanged
// announces with less than skipFresh ago (0 skips none).
func (r *Registry) Round(ctx context.Context, skipFresh time.Duration) ([]Peer, error) {
	if pf, ok := r.Transport.(Finder); ok {
		r.discoverFound(ctx, pf)
	}
	recs, err := r.DB.Peers(ctx)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, maxAnnouncing)
	for _, rec := range recs {
		if rec.Endpoint == "" || rec.Trust != Pinned || r.exchangedWithin(rec.AgentID, skipFresh) {
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func(id string) {
			defer func() { <-slots; wg.Done() }()
			if err := r.AnnounceTo(ctx, id); err != nil {
				r.Log.Info("announce failed", "component", "registry", "agent_to", id, "err", err)
			}
		}(rec.AgentID)
	}
	wg.Wait()
	return r.List(ctx)
}

// Heartbeat announces to peers at start and then every discovery
// interval, until ctx ends; peers silent for offline_after_sec are shown
// offline.
//
// A pair of agents needs one exchange an interval, not one each way: a
// round skips the peers it exchanged announces with in the last half
// interval, which halves discovery's traffic and audit rows on a large
// tailnet (agent/bench/scale.go) while every pair still meets at least
// once an interval.
func (r *Registry) Heartbeat(ctx context.Context) {
	for {
		interval := r.Config().Network.DiscoveryInterval()
		if _, err := r.Round(ctx, interval/2); err != nil && ctx.Err() == nil {
			r.Log.Warn("discover", "component", "registry", "err", err)
		}
		r.heartbeats.Add(1)
		if backoff.Sleep(ctx, r.clock(), interval) != nil {
			return
		}
	}
}

// Exchanged records that this agent and a peer just told each other who
// they are: an announce either way carries both descriptions (the
// caller's in the params, the callee's first in the reply).
func (r *Registry) Exchanged(agentID string) { r.exchanged.Store(agentID, r.Now()) }

// exchangedWithin reports whether this agent exchanged announces with a
// peer less than d ago.
func (r *Registry) exchangedWithin(agentID string, d time.Duration) bool {
	v, ok := r.exchanged.Load(agentID)
	return ok && d > 0 && r.Now().Sub(v.(time.Time)) < d
}

// maxAnnouncing bounds the announces of one round in flight at once: with
// hundreds of peers an unbounded round opens hundreds of TLS connections
// in the same instant (agent/bench/scale.go measures a round).
const maxAnnouncing = 16

// discoverFound announces to the transport's candidate peers whose endpoint
// is not in the registry yet, and pins those that answer.
func (r *Registry) discoverFound(ctx context.Context, pf Finder) {
	endpoints, err := pf.FindPeers(ctx)
	if err != nil {
		r.Log.Warn("find tailnet peers", "component", "registry", "err", err)
		return
	}
	recs, err := r.DB.Peers(ctx)
	if err != nil {
		return
	}
	known := map[string]bool{}
	for _, rec := range recs {
		known[rec.Endpoint] = true
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
			if err := r.announceToEndpoint(ctx, ep); err != nil {
				r.Log.Info("announce failed", "component", "registry", "endpoint", ep, "err", err)
			}
		}(ep)
	}
	wg.Wait()
}

// announceToEndpoint announces to an agent known only by its endpoint and
// pins the agent that answers there (its self entry comes first).
func (r *Registry) announceToEndpoint(ctx context.Context, endpoint string) error {
	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var res wire.DiscoverResult
	if err := r.forEndpoint(endpoint, "").Call(callCtx, wire.MethodDiscover, r.Announcement(""), &res); err != nil {
		return fmt.Errorf("%s: %w", endpoint, err)
	}
	if err := CheckVersion(res.AOIVersion); err != nil {
		return fmt.Errorf("%s: %w", endpoint, err)
	}
	if len(res.Agents) == 0 || res.Agents[0].Identity.ID == "" || res.Agents[0].Identity.ID == r.selfID() {
		return fmt.Errorf("%s answered without describing itself", endpoint)
	}
	e := res.Agents[0]
	id := e.Identity.ID
	err := r.DB.Write(ctx, func(tx *store.Tx) error {
		rec, found, err := tx.Peer(id)
		if err != nil {
			return err
		}
		if !found {
			rec = store.PeerRecord{AgentID: id, FirstSeen: r.Now()}
		}
		if rec.NodeID != "" && rec.Endpoint != "" && rec.Endpoint != endpoint {
			// The id is bound to a node that announced itself from
			// another address: the answer here is an impersonation.
			return fmt.Errorf("%s claims to be %s, which is bound to the node at %s", endpoint, id, rec.Endpoint)
		}
		rec.Trust, rec.Endpoint, rec.LastSeen = Pinned, endpoint, r.Now() // it just answered
		return tx.UpsertPeer(rec)
	})
	if err != nil {
		return err
	}
	r.Exchanged(id)
	return r.recordSelfDescription(ctx, id, e)
}

// AnnounceTo sends aoi.discover(announce) to a peer and records what it
// says about itself.
func (r *Registry) AnnounceTo(ctx context.Context, agentID string) error {
	client, err := r.Client(ctx, agentID)
	if err != nil {
		return err
	}
	params := r.Announcement(agentID)
	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var res wire.DiscoverResult
	if err := client.Call(callCtx, wire.MethodDiscover, params, &res); err != nil {
		return r.Failed(ctx, agentID, err)
	}
	if err := CheckVersion(res.AOIVersion); err != nil {
		return fmt.Errorf("%s: %w", agentID, err)
	}
	r.Exchanged(agentID)
	for _, e := range res.Agents {
		if e.Identity.ID == agentID {
			return r.recordSelfDescription(ctx, agentID, e)
		}
	}
	return r.MarkSeen(ctx, agentID)
}

// recordSelfDescription stores what a peer said about itself. Its role
// is information only (AnnouncedRole): ACL rules match the role the owner
// gave it, which a peer's answer never changes.
func (r *Registry) recordSelfDescription(ctx context.Context, agentID string, e wire.RegistryEntry) error {
	err := r.DB.Write(ctx, func(tx *store.Tx) error {
		rec, found, err := tx.Peer(agentID)
		if err != nil || !found {
			return err
		}
		wasOffline := r.View(rec).Status == Offline
		d := Describe(e.Identity.Role, e.Identity.Owner, e.Status, e.Identity.Capabilities)
		d.Apply(&rec)
		rec.Status, rec.LastSeen = d.Status, r.Now()
		if wasOffline {
			defer r.Wake(agentID)
		}
		r.refusing.Delete(agentID) // it answered our announce: it pins us now
		return tx.UpsertPeer(rec)
	})
	if err == nil {
		r.Publish(events.PeerChanged, agentID, agentID, Describe("", "", e.Status, wire.Capabilities{}).Status)
	}
	return err
}

// CheckVersion refuses a peer whose protocol major version differs
// (errs.ErrInvalid); an empty version is taken as compatible.
func CheckVersion(v string) error {
	if v == "" || wire.MajorVersion(v) == wire.MajorVersion(wire.ProtocolVersion) {
		return nil
	}
	return errs.Invalid("aoi_version %s is not compatible with %s (major versions differ); upgrade the older aoi", v, wire.ProtocolVersion)
}
