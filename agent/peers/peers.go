// Package peers is the registry of the agents this one knows: trust
// (pinning a certificate or a tailnet node, trust requests from unpinned
// callers), authentication of callers, discovery and the heartbeat that
// keeps peers' status fresh, and one RPC client per peer. It is shaped like
// agent/task's Engine: its dependencies are fields, set by the core, and it
// holds no pointer back to it.
package peers

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// Peer states and trust levels.
const (
	Online  = "online"
	Busy    = "busy"
	Offline = "offline"

	Pinned  = "pinned"
	Pending = "pending" // an unpinned caller asked; owner decides
)

// Peer is one entry of the registry as front ends see it.
type Peer struct {
	AgentID string `json:"agent_id"`
	// Role is the role the owner gave the peer, the one ACL rules match;
	// AnnouncedRole is what the peer says it is (shown, never trusted).
	Role          string `json:"role,omitempty"`
	AnnouncedRole string `json:"announced_role,omitempty"`
	// CertExpiredAt is set when the certificate the peer presents has
	// expired (it is still let in unless network.refuse_expired_certs).
	CertExpiredAt time.Time `json:"cert_expired_at,omitzero"`
	Owner         string    `json:"owner,omitempty"`
	Endpoint      string    `json:"endpoint,omitempty"`
	// Source is where a pending trust request's last call came from: an
	// outgoing address, shown to tell callers apart, never called back.
	Source      string   `json:"source,omitempty"`
	Fingerprint string   `json:"fingerprint,omitempty"`
	NodeName    string   `json:"node_name,omitempty"`
	Status      string   `json:"status"`
	Trust       string   `json:"trust"`
	Contexts    []string `json:"contexts,omitempty"`
	TaskTypes   []string `json:"task_types,omitempty"`
	// TaskParams are the parameters each task type takes, as the peer
	// told them (bounded, printable).
	TaskParams map[string][]wire.TaskParam `json:"task_params,omitempty"`
	// TaskParamsCut are the task types whose parameters TaskParams holds
	// only in part (bounded): a request for one is not judged here.
	TaskParamsCut []string  `json:"task_params_cut,omitempty"`
	LastSeen      time.Time `json:"last_seen,omitzero"` // zero: never reached
	// RefusesUs: the peer answered that it does not pin our certificate;
	// its owner has to trust us (`aoi peers trust` there) first.
	RefusesUs bool `json:"refuses_us,omitempty"`
}

// TrustRequest pins a peer. Fingerprint is required in direct mode.
type TrustRequest struct {
	AgentID     string `json:"agent_id"`
	Fingerprint string `json:"fingerprint"`
	Endpoint    string `json:"endpoint,omitempty"`
	// Role is the role ACL rules will match for this peer (optional).
	Role string `json:"role,omitempty"`
	// Announce says hello to the peer right after (in the background), so
	// it shows online at once if it trusts this agent too, and shows a
	// trust request on its side if it does not yet. Front ends set it.
	Announce bool `json:"announce,omitempty"`
	// Replace lets the pin replace another certificate pinned for this
	// agent id (its owner made a new identity). Without it that is
	// refused: a stranger may claim a pinned peer's id.
	Replace bool `json:"replace,omitempty"`
}

// URLMapper is implemented by transports whose peer URLs are not
// https://<endpoint>/aoi/v1/rpc (the tailnet speaks plain HTTP inside
// WireGuard).
type URLMapper interface {
	EndpointURL(endpoint string) string
}

// Finder is implemented by transports that can list candidate peers by
// themselves (the tailnet): endpoints "host:port" of online nodes that look
// like aoi agents or are named in the config.
type Finder interface {
	FindPeers(ctx context.Context) ([]string, error)
}

// Registry is the peer registry and everything that keeps it. Set the
// exported fields before use; the zero value of the rest is ready.
type Registry struct {
	DB        *store.DB
	Transport rpc.Transport
	// Config is the current config (reloads apply to the next call).
	Config func() *config.Config
	Now    func() time.Time
	Log    *slog.Logger
	// Announcement is this agent's aoi.discover announce params for the
	// peer agentID ("": one known only by its endpoint).
	Announcement func(agentID string) wire.DiscoverParams
	// Publish emits a front-end event (agent/events kinds).
	Publish func(kind, id, agent, summary string)
	// Wake tells the outbox the peer agentID came back online (or
	// stopped refusing us), so what waits for it goes now.
	Wake func(agentID string)
	// Clock is what Heartbeat waits on between rounds (nil: the wall
	// clock; tests pass a backoff.Fake and advance it).
	Clock backoff.Clock

	mu      sync.Mutex
	clients map[string]cachedClient
	callers sync.Map // caller key → callerInfo
	// callersCleared counts the times callers was emptied (a trust
	// changed): a lookup that began before the last emptying is not
	// cached, since what it read may be the pin just removed.
	callersCleared atomic.Uint64
	// expiredCerts maps a pinned peer's agent id to when the certificate
	// it last presented expired (shown in Peers and doctor).
	expiredCerts sync.Map
	// seenCalls maps a peer id to when a call from it last marked it
	// online (SeenCalling throttles the registry writes).
	seenCalls sync.Map
	// exchanged maps a peer id to when this agent and it last exchanged
	// announces, either way (heartbeat rounds skip fresh ones).
	exchanged sync.Map
	// refusing holds the ids of peers whose last answer was that they do
	// not pin this agent's certificate (Failed): reachable, but no use
	// until their owner trusts us. Contact that succeeds clears it.
	refusing sync.Map
	// strangers is when each pending caller's calls last refreshed the
	// front ends (strangerCalledAgain).
	strangers strangerClocks
	// newcomers bounds the trust requests one source address may file.
	newcomers newcomerBudget
	// heartbeats counts the rounds Heartbeat has finished.
	heartbeats atomic.Int64
}

// HeartbeatRounds reports how many rounds Heartbeat has finished: a
// harness that counts announces waits for the first, which runs as the
// core starts, before it pins peers.
func (r *Registry) HeartbeatRounds() int64 { return r.heartbeats.Load() }

func (r *Registry) selfID() string { return r.Config().Agent.ID }

func (r *Registry) clock() backoff.Clock {
	if r.Clock == nil {
		return backoff.Real
	}
	return r.Clock
}

// callerInfo is what the caller cache holds for an authenticated transport
// identity (fingerprint or tailnet node), so the hot path does not read the
// registry on every request. Trust changes and announcements update it.
type callerInfo struct{ agentID, role string }

// callerLookup starts a registry lookup whose answer rememberCaller may
// cache.
func (r *Registry) callerLookup() uint64 { return r.callersCleared.Load() }

// rememberCaller caches the agent id and role of a transport identity, as
// a lookup started at since (callerLookup) read them, unless the cache was
// emptied meanwhile: a trust change (a refusal, a role taken away) that
// landed while the lookup ran must not be undone by caching what it read
// before.
func (r *Registry) rememberCaller(since uint64, key, agentID, role string) {
	r.callers.Store(key, callerInfo{agentID, role})
	if r.callersCleared.Load() != since {
		r.callers.Delete(key)
	}
}

// forgetCallers empties the caller cache: every caller's next call reads
// the registry again.
func (r *Registry) forgetCallers() {
	r.callersCleared.Add(1)
	r.callers.Clear()
}

// CachedCaller returns the cached agent id and role of a transport
// identity.
func (r *Registry) CachedCaller(key string) (agentID, role string, ok bool) {
	v, ok := r.callers.Load(key)
	if !ok {
		return "", "", false
	}
	info := v.(callerInfo)
	return info.agentID, info.role, true
}

// Forget drops what the registry caches about an agent whose records were
// deleted (aoi forget): every cached caller and its client.
func (r *Registry) Forget(agentID string) {
	r.forgetCallers()
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.clients, agentID)
}
