package peers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/internal/suggest"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

type cachedClient struct {
	endpoint, fingerprint string
	client                *rpc.Client
}

// Client returns the RPC client for a registered peer, rebuilt when the
// peer's endpoint or pinned fingerprint changes. Errors: errs.ErrInvalid
// (malformed id, this agent itself), errs.ErrUnknownPeer, and an error
// saying so when no endpoint is known.
func (r *Registry) Client(ctx context.Context, agentID string) (*rpc.Client, error) {
	if err := r.CheckPeerID(agentID); err != nil {
		return nil, err
	}
	rec, found, err := r.DB.Peer(ctx, agentID)
	if err != nil {
		return nil, err
	}
	if !found {
		if near := r.nearestPeer(ctx, agentID); near != "" {
			return nil, errs.UnknownPeer(agentID, fmt.Sprintf("%s is not a known peer; did you mean %s? (`aoi peers` lists them)", agentID, near))
		}
		return nil, errs.UnknownPeer(agentID, fmt.Sprintf("%s is not a known peer; pin it with `aoi peers trust %s FINGERPRINT --endpoint HOST:PORT` or run `aoi discover`", agentID, agentID))
	}
	if rec.Endpoint == "" {
		return nil, fmt.Errorf("no address known for %s; add its endpoint with `aoi peers trust` or to peers[] in the config", agentID)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if cc, ok := r.clients[agentID]; ok && cc.endpoint == rec.Endpoint && cc.fingerprint == rec.Fingerprint {
		return cc.client, nil
	}
	cl := r.forEndpoint(rec.Endpoint, rec.Fingerprint)
	if r.clients == nil {
		r.clients = map[string]cachedClient{}
	}
	r.clients[agentID] = cachedClient{endpoint: rec.Endpoint, fingerprint: rec.Fingerprint, client: cl}
	return cl, nil
}

// forEndpoint builds a client for a peer at endpoint on this transport.
func (r *Registry) forEndpoint(endpoint, fingerprint string) *rpc.Client {
	url := "https://" + endpoint + rpc.Path
	if m, ok := r.Transport.(URLMapper); ok {
		url = m.EndpointURL(endpoint)
	}
	timeout := r.Config().Network.RequestTimeout()
	return rpc.NewClient(url, r.Transport.HTTPClient(fingerprint), rpc.ClientOptions{Timeout: timeout})
}

// CallError words a failed call to a peer for a person: a peer that
// answered with an error wraps its *rpc.Error.
func CallError(agentID string, err error) error {
	var rpcErr *rpc.Error
	if errors.As(err, &rpcErr) {
		return &PeerError{Agent: agentID, Err: rpcErr}
	}
	if errors.Is(err, context.Canceled) {
		return fmt.Errorf("the call to %s was cancelled before it answered (this aoi is stopping, or the request was abandoned); nothing is known about %s, ask again once aoi runs", agentID, agentID)
	}
	// A transport error has its own advice ("nothing is listening there:
	// check that `aoi serve` is running…"): said once, after where the
	// call went, without the Go call chain in front ("calling
	// aoi.task.execute on https://…: Post …: dial tcp …"), which the CLI
	// printed whole.
	var te *rpc.TransportError
	if errors.As(err, &te) {
		tries := ""
		if te.Attempts > 1 {
			tries = fmt.Sprintf(" (%d tries)", te.Attempts)
		}
		return fmt.Errorf("%s is unreachable at %s%s: %s", agentID, te.Host(), tries, te.Advice())
	}
	return fmt.Errorf("%s is unreachable (%v); check that its aoi is running and the endpoint is right (`aoi peers`)", agentID, err)
}

// nearestPeer is the known peer id a mistyped one was likely meant to be
// ("eng-suzki" → "eng-suzuki"), or "".
func (r *Registry) nearestPeer(ctx context.Context, agentID string) string {
	recs, err := r.DB.Peers(ctx)
	if err != nil {
		return ""
	}
	ids := make([]string, len(recs))
	for i, rec := range recs {
		ids[i] = rec.AgentID
	}
	return suggest.Closest(agentID, ids, 2)
}

// PeerError is a peer's error answer to a call: what it said, in words
// ("pm-a answered: task_type \"deploy\" is not configured here"), the
// JSON-RPC error (its code) underneath for errors.As.
type PeerError struct {
	Agent string
	Err   *rpc.Error
}

func (e *PeerError) Error() string {
	what := e.Err.Reason()
	if what == "" {
		what = e.Err.Message
	}
	return e.Agent + " answered: " + what
}

func (e *PeerError) Unwrap() error { return e.Err }

// CheckPeerID refuses an id no peer can have without repeating it (it may
// hold control characters or a path), and a call to this agent itself.
func (r *Registry) CheckPeerID(agentID string) error {
	if !wire.ValidAgentID(agentID) {
		return errs.Invalid("that is not a valid agent id (lower-case letters, digits, '.', '_' or '-', at most 63 characters); list the agents you can reach with `aoi discover`")
	}
	if agentID == r.selfID() {
		return errs.Invalid("%s is this agent itself; send it to a colleague's agent instead (list them with `aoi discover`)", agentID)
	}
	return nil
}

// Failed words a failed call to a peer for a person (CallError) and, when
// the peer could not be reached at all, shows it offline at once rather
// than after offline_after_sec of silence. The next successful contact
// (heartbeat, announce, or a call from the peer) shows it online again.
func (r *Registry) Failed(ctx context.Context, agentID string, err error) error {
	switch {
	case Unreachable(err):
		r.MarkOffline(context.WithoutCancel(ctx), agentID)
	case refusesOurCertificate(err):
		if _, known := r.refusing.Swap(agentID, true); !known {
			r.Publish(events.PeerChanged, agentID, agentID, "refuses us")
		}
	}
	return CallError(agentID, err)
}

// refusesOurCertificate reports whether a peer answered that it does not
// pin the certificate we called with: its refusal names our fingerprint
// (an ACL refusal names a permission instead).
func refusesOurCertificate(err error) bool {
	var re *rpc.Error
	if !errors.As(err, &re) || re.Code != rpc.CodePermissionDenied {
		return false
	}
	d, _ := re.Data.(map[string]any)
	_, ok := d["fingerprint"]
	return ok
}

// Unreachable reports whether a call failed because nothing answered: no
// connection, or the connection dropped before any answer. A peer that
// answered (an error, an HTTP status, a TLS refusal) is reachable; a call
// we cancelled says nothing about the peer.
func Unreachable(err error) bool {
	var te *rpc.TransportError
	if !errors.As(err, &te) || te.Status != 0 || errors.Is(err, context.Canceled) {
		return false
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	for _, target := range []error{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EHOSTUNREACH,
		syscall.ENETUNREACH, io.EOF, io.ErrUnexpectedEOF} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}

// NotDialed reports whether a call failed before its connection was made
// (refused, no route, a dial timeout): nothing of it reached the peer.
func NotDialed(err error) bool {
	var te *rpc.TransportError
	var op *net.OpError
	return errors.As(err, &te) && te.Status == 0 && errors.As(err, &op) && op.Op == "dial"
}

// MarkOffline records a peer as offline and tells the front ends.
func (r *Registry) MarkOffline(ctx context.Context, agentID string) {
	rec, found, err := r.DB.Peer(ctx, agentID)
	r.seenCalls.Delete(agentID) // the next call from it marks it online again at once
	if err != nil || !found || rec.Status == Offline {
		return
	}
	if err := r.DB.Write(ctx, func(tx *store.Tx) error { return tx.SetPeerStatus(agentID, Offline, time.Time{}) }); err != nil {
		r.Log.Warn("mark peer offline", "component", "registry", "agent_to", agentID, "err", err)
		return
	}
	r.Publish(events.PeerChanged, agentID, agentID, Offline)
}

// seenCallingEvery throttles marking a calling peer online: a call proves
// it is up, but one registry write per peer per interval is enough.
const seenCallingEvery = 30 * time.Second

// SeenCalling marks a pinned peer that just called us online (it may have
// been offline since a failed call or a missed heartbeat), at most once per
// seenCallingEvery. Failures only cost freshness, so they are logged.
func (r *Registry) SeenCalling(ctx context.Context, agentID string) {
	now := r.Now()
	if v, ok := r.seenCalls.Load(agentID); ok && now.Sub(v.(time.Time)) < seenCallingEvery {
		return
	}
	r.seenCalls.Store(agentID, now)
	if err := r.MarkSeen(ctx, agentID); err != nil {
		r.Log.Warn("mark calling peer online", "component", "registry", "agent_from", agentID, "err", err)
	}
}

// MarkSeen records that a peer is alive; a peer coming back online gets
// its queued outbox messages at once.
func (r *Registry) MarkSeen(ctx context.Context, agentID string) error {
	rec, found, err := r.DB.Peer(ctx, agentID)
	if err != nil || !found {
		return err
	}
	was := r.View(rec).Status
	wasOffline := was == Offline
	// A call says the peer is there, not that its focus ended: busy and
	// away stay until it announces otherwise (the walk saw a peer in
	// focus shown online after it called).
	status := Online
	if was == Busy || was == "away" {
		status = was
	}
	if err := r.DB.Write(ctx, func(tx *store.Tx) error { return tx.SetPeerStatus(agentID, status, r.Now()) }); err != nil {
		return err
	}
	if _, refused := r.refusing.LoadAndDelete(agentID); wasOffline || refused {
		r.Publish(events.PeerChanged, agentID, agentID, "online")
		r.Wake(agentID)
	}
	return nil
}
