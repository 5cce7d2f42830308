package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/agent/events"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// configPeersKey is the setting that remembers the peers the config
// pinned last time, so a peer taken out of peers[] is unpinned, whether
// the file changed while aoi ran (reload) or while it was stopped.
const configPeersKey = "config_peers"

// Seed makes the registry follow the config's peers[]: it pins every peer
// named there (the config's fingerprint and role are the owner's word) and
// unpins the ones a previous config pinned that it no longer names. Cached
// callers are dropped, so a changed fingerprint or role, or a removed pin,
// applies to the very next call.
func (r *Registry) Seed(ctx context.Context, cfg *config.Config) (replaced []string, err error) {
	prev, err := r.configPinned(ctx)
	if err != nil {
		return nil, err
	}
	var unpinned []string
	err = r.DB.Write(ctx, func(tx *store.Tx) error {
		unpinned, replaced = nil, nil // the function may run again
		for _, p := range cfg.Peers {
			changed, err := r.seedPeer(tx, p, prev[p.AgentID])
			if err != nil {
				return err
			}
			if changed {
				replaced = append(replaced, p.AgentID)
			}
			delete(prev, p.AgentID)
		}
		for _, old := range prev {
			done, err := r.unpinRemoved(tx, old)
			if err != nil {
				return err
			}
			if done {
				unpinned = append(unpinned, old.AgentID)
			}
		}
		return tx.SetSetting(configPeersKey, string(wire.MustJSON(cfg.Peers)))
	})
	if err != nil {
		return nil, err
	}
	r.forgetCallers()
	for _, id := range unpinned {
		r.Forget(id)
		r.Publish(events.PeerChanged, id, id, "removed from the config: no longer trusted")
	}
	return replaced, nil
}

// configPinned reads the peers the config pinned when last seeded.
func (r *Registry) configPinned(ctx context.Context) (map[string]config.Peer, error) {
	raw, found, err := r.DB.Setting(ctx, configPeersKey)
	if err != nil || !found {
		return map[string]config.Peer{}, err
	}
	var list []config.Peer
	if err := json.Unmarshal([]byte(raw), &list); err != nil {
		r.Log.Warn("the remembered config peers are unreadable; none will be unpinned this time", "component", "registry", "err", err)
		return map[string]config.Peer{}, nil
	}
	out := make(map[string]config.Peer, len(list))
	for _, p := range list {
		out[p.AgentID] = p
	}
	return out, nil
}

// seedPeer pins one config peer. A role the previous config gave and this
// one no longer does goes too: the config's role is the owner's word.
func (r *Registry) seedPeer(tx *store.Tx, p, prev config.Peer) (replaced bool, err error) {
	rec, found, err := tx.Peer(p.AgentID)
	if err != nil {
		return false, err
	}
	if !found {
		rec = store.PeerRecord{AgentID: p.AgentID, Status: Offline, FirstSeen: r.Now()}
	}
	rec.Trust = Pinned
	if p.Endpoint != "" {
		rec.Endpoint = p.Endpoint
	}
	if p.Fingerprint != "" {
		// Another certificate than the registry knew (the config was
		// edited, while aoi ran or not): the caller ends what the old
		// one asked.
		replaced = rec.Fingerprint != "" && !sameFingerprint(rec.Fingerprint, p.Fingerprint)
		// Stored as callers are looked up: the schema takes capitals.
		rec.Fingerprint = p.Fingerprint
		if fp, err := rpc.NormalizeFingerprint(p.Fingerprint); err == nil {
			rec.Fingerprint = fp
		}
	}
	if p.TailnetNode != "" {
		rec.NodeName = p.TailnetNode
	}
	switch {
	case p.Role != "":
		rec.Role = p.Role // the owner's word, not the peer's
	case prev.Role != "" && rec.Role == prev.Role:
		rec.Role = ""
	}
	if err := tx.UpsertPeer(rec); err != nil {
		return false, fmt.Errorf("config peers: %s: %w", p.AgentID, err)
	}
	return replaced, nil
}

// sameFingerprint compares two fingerprints as written (case, colons and
// groups aside).
func sameFingerprint(a, b string) bool {
	na, errA := rpc.NormalizeFingerprint(a)
	nb, errB := rpc.NormalizeFingerprint(b)
	if errA != nil || errB != nil {
		return a == b
	}
	return na == nb
}

// unpinRemoved unpins a peer a previous config pinned and this one does
// not name, unless the owner has since pinned it by hand under another
// certificate. Its certificate is kept refused, as `aoi peers refuse`
// leaves it, so its next call rings nobody.
func (r *Registry) unpinRemoved(tx *store.Tx, old config.Peer) (bool, error) {
	rec, found, err := tx.Peer(old.AgentID)
	if err != nil || !found || (old.Fingerprint != "" && !sameFingerprint(rec.Fingerprint, old.Fingerprint)) {
		return false, err
	}
	return true, unpinTx(tx, rec, "removed from the config's peers")
}

// Authenticate maps the transport's caller to a registered agent. In
// direct mode an unpinned certificate is refused (errs.ErrDenied) and
// recorded as a trust request the owner can accept; in tailnet mode an
// unbound node may only announce itself.
func (r *Registry) Authenticate(ctx context.Context, caller rpc.Caller) (rpc.Caller, error) {
	if err := r.CheckCertExpiry(caller); err != nil {
		return caller, err
	}
	if agentID, _, ok := r.CachedCaller(caller.Key()); ok {
		caller.AgentID = agentID
		r.SeenCalling(ctx, agentID)
		return caller, nil
	}
	switch caller.Kind {
	case rpc.CallerTLS:
		return r.authenticateTLS(ctx, caller)
	case rpc.CallerTailnet:
		return r.authenticateNode(ctx, caller)
	}
	return caller, errs.Denied("unsupported caller kind "+caller.Kind, nil)
}

func (r *Registry) authenticateTLS(ctx context.Context, caller rpc.Caller) (rpc.Caller, error) {
	since := r.callerLookup()
	rec, found, err := r.DB.PeerByFingerprint(ctx, caller.Fingerprint)
	if err != nil {
		return caller, err
	}
	if found && rec.Trust == Pinned {
		if !caller.CertNotAfter.IsZero() && r.Now().After(caller.CertNotAfter) {
			r.expiredCerts.Store(rec.AgentID, caller.CertNotAfter)
		}
		r.rememberCaller(since, caller.Key(), rec.AgentID, rec.Role)
		caller.AgentID = rec.AgentID
		r.SeenCalling(ctx, rec.AgentID)
		return caller, nil
	}
	r.recordTrustRequest(ctx, caller)
	return caller, errs.Denied(
		fmt.Sprintf("certificate %s is not pinned by %s; ask its owner to run `%s`", caller.Fingerprint, r.selfID(), r.trustCommandFor(caller)),
		map[string]any{"fingerprint": caller.Fingerprint})
}

// trustCommandFor is the command that would pin this caller, with the id
// and endpoint it announced when they are valid (checked: they come from
// the caller), placeholders otherwise.
func (r *Registry) trustCommandFor(caller rpc.Caller) string {
	id := "<your-agent-id>"
	if r.claimable(caller.AnnouncedID) {
		id = caller.AnnouncedID
	}
	cmd := "aoi peers trust " + id + " " + caller.Fingerprint
	if ep := FollowEndpoint(caller.Addr, caller.AnnouncedEndpoint, ""); ep != "" {
		cmd += " --endpoint " + ep
	}
	return cmd
}

func (r *Registry) authenticateNode(ctx context.Context, caller rpc.Caller) (rpc.Caller, error) {
	since := r.callerLookup()
	rec, found, err := r.DB.PeerByNode(ctx, caller.NodeID)
	if err != nil {
		return caller, err
	}
	if found {
		r.rememberCaller(since, caller.Key(), rec.AgentID, rec.Role)
		caller.AgentID = rec.AgentID
	}
	return caller, nil
}

// CheckCertExpiry refuses a caller whose certificate has expired when the
// owner's config says so (network.refuse_expired_certs; errs.ErrDenied);
// otherwise expiry is only reported (Peers pane, aoi doctor).
func (r *Registry) CheckCertExpiry(caller rpc.Caller) error {
	if caller.CertNotAfter.IsZero() || !r.Now().After(caller.CertNotAfter) || !r.Config().Network.RefuseExpiredCerts {
		return nil
	}
	return errs.Denied("the certificate this peer presents expired on "+caller.CertNotAfter.UTC().Format(time.DateOnly)+
		"; ask its owner to make a new identity (aoi init) and pin the new fingerprint (aoi peers trust ID FINGERPRINT --replace), or unset network.refuse_expired_certs",
		map[string]any{"fingerprint": caller.Fingerprint})
}

// recordTrustRequest remembers an unpinned caller so the owner can accept it
// from the TUI or `aoi peers trust`. Failures are logged, never returned: the
// caller is refused either way.
func (r *Registry) recordTrustRequest(ctx context.Context, caller rpc.Caller) {
	if !r.newcomers.allow(caller.Source(), caller.Fingerprint, r.Now()) {
		return // a certificate mill: refused as always, but not listed
	}
	claimed := caller.AnnouncedID
	if !r.claimable(claimed) {
		claimed = "" // listed by its fingerprint: it may not be pinned under that id
	}
	var seen store.TrustRequestSeen
	err := r.DB.Write(ctx, func(tx *store.Tx) (err error) {
		// No audit row here: the peer server audits the refusal itself, as
		// a counted summary per source (rpc/refusals.go).
		// The caller's claimed id and listen endpoint (headers) make the
		// request trustable in one step. Its source address only says
		// where the call came from: an outgoing port cannot be called
		// back, so it is never taken for the endpoint.
		seen, err = tx.RecordTrustRequest(store.TrustCaller{Fingerprint: caller.Fingerprint,
			ClaimedAgentID: claimed, Endpoint: FollowEndpoint(caller.Addr, caller.AnnouncedEndpoint, ""), Source: caller.Addr})
		return err
	})
	if err != nil {
		r.Log.Warn("record trust request", "component", "registry", "err", err)
		return
	}
	// The owner hears of a caller once: not again at each of its calls
	// (discovery retries every minute), and never after refusing it.
	if seen.Refused || seen.Full {
		return
	}
	if !seen.New {
		r.strangerCalledAgain(caller.Fingerprint)
		return
	}
	r.strangers.due(caller.Fingerprint, r.Now()) // the ring below refreshes the list too
	who := caller.Addr
	if claimed != "" {
		who = claimed + " (" + caller.Addr + ")"
	}
	r.Publish(events.TrustRequested, caller.Fingerprint, "", "unpinned peer "+who+" wants to talk")
	// The id is checked: a caller's own words reach the owner's notice
	// line only in the shape of an agent id.
	asks := "a new peer asks to be trusted"
	if claimed != "" {
		asks = "a new peer, " + claimed + ", asks to be trusted"
	}
	r.Publish(events.Attention, caller.Fingerprint, "", asks)
}

// claimable reports whether a caller's claimed id could be its pin's: an
// agent id, and not this agent's own (which Trust refuses).
func (r *Registry) claimable(id string) bool {
	return wire.ValidAgentID(id) && id != r.selfID()
}

// maxNewcomersPerHost is how many callers (certificates) one source (an
// IPv4 address, an IPv6 /64) may have listed as trust requests per
// newcomerWindow; certificates cost nothing, so without it one machine
// could fill the list and bury the real requests.
const (
	maxNewcomersPerHost = 5
	newcomerWindow      = time.Hour
	maxNewcomerHosts    = 1024
)

// newcomerBudget remembers, per source (rpc.Caller.Source: an IPv4
// address, an IPv6 /64), the certificates listed
// in the current window.
type newcomerBudget struct {
	mu      sync.Mutex
	started time.Time
	hosts   map[string][]string // source host → fingerprints listed
}

// allow reports whether a caller from host with this fingerprint may be
// listed: one already listed in this window may (its calls update its
// row), a new one while the host has listed fewer than the bound.
func (b *newcomerBudget) allow(host, fingerprint string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hosts == nil || now.Sub(b.started) >= newcomerWindow {
		b.hosts, b.started = map[string][]string{}, now
	}
	listed, seen := b.hosts[host]
	if slices.Contains(listed, fingerprint) {
		return true
	}
	// Full of hosts, a new one waits for the next window: clearing the
	// map would hand every host a fresh budget.
	if len(listed) >= maxNewcomersPerHost || !seen && len(b.hosts) >= maxNewcomerHosts {
		return false
	}
	b.hosts[host] = append(listed, fingerprint)
	return true
}

// strangerRefresh is how often a pending caller's repeated calls refresh
// the front ends' Peers list (its "last seen"), without ringing anyone.
const strangerRefresh = time.Minute

// maxStrangerClocks bounds the callers strangerClocks remembers: certificates
// cost a stranger nothing, so it is forgotten whole when full (the worst
// that costs is one extra refresh per caller).
const maxStrangerClocks = 1024

// strangerClocks remembers when each pending caller last refreshed the
// front ends.
type strangerClocks struct {
	mu   sync.Mutex
	last map[string]time.Time
}

// due reports whether the caller's row may refresh now, and if so records it.
func (s *strangerClocks) due(fingerprint string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.last[fingerprint]; ok && now.Sub(t) < strangerRefresh {
		return false
	}
	if s.last == nil || len(s.last) >= maxStrangerClocks {
		s.last = make(map[string]time.Time)
	}
	s.last[fingerprint] = now
	return true
}

// strangerCalledAgain lets the front ends refresh a pending caller's row
// when it calls again, at most once per strangerRefresh: a peer retrying
// every second must not flood the event stream.
func (r *Registry) strangerCalledAgain(fingerprint string) {
	if r.strangers.due(fingerprint, r.Now()) {
		r.Publish(events.PeerChanged, fingerprint, "", "pending caller called again")
	}
}

// Trust pins a peer's fingerprint (and endpoint) in the registry.
// Errors: errs.ErrInvalid (agent id, role or fingerprint malformed).
func (r *Registry) Trust(ctx context.Context, req TrustRequest) error {
	if req.AgentID == "" {
		return errs.Invalid("an agent id is required (aoi peers trust AGENT_ID FINGERPRINT)")
	}
	// Invalid ids are refused without being echoed: they could carry
	// control characters or look-alike letters into the registry and advice.
	if !wire.ValidAgentID(req.AgentID) {
		if lower := strings.ToLower(req.AgentID); wire.ValidAgentID(lower) {
			// Wrong only for its capitals: the lower-case id is safe to echo.
			return errs.Invalid("agent ids are lower-case: use %s", lower)
		}
		return errs.Invalid("that agent id is not valid: use 1–63 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit (as ^[a-z0-9][a-z0-9._-]{0,62}$)")
	}
	if req.Role != "" && !wire.ValidAgentID(req.Role) {
		return errs.Invalid("that role is not valid: use 1–63 lower-case letters, digits, '.', '_' or '-' (e.g. pm, engineer)")
	}
	if req.AgentID == r.selfID() {
		// A caller may claim any id, this agent's own too; pinned under
		// it, its calls would pass for this agent's own.
		return errs.Invalid("%s is this agent's own id; pin the peer under the peer's own id (ask its owner for `aoi id`)", req.AgentID)
	}
	fp, err := rpc.NormalizeFingerprint(req.Fingerprint)
	if err != nil {
		return errs.Invalid("%q is not a certificate fingerprint; copy the 64 hex characters `aoi id` prints on the peer (grouped as the Peers pane shows them is fine)", req.Fingerprint)
	}
	req.Fingerprint = fp
	if req.Endpoint != "" && !wire.ValidEndpoint(req.Endpoint) {
		return errs.Invalid("endpoint %q is not HOST:PORT; give where the peer listens, e.g. --endpoint 127.0.0.1:8443 (the address `aoi serve` prints on the peer)", req.Endpoint)
	}
	err = r.DB.Write(ctx, func(tx *store.Tx) error {
		rec, found, err := tx.Peer(req.AgentID)
		if err != nil {
			return err
		}
		if !found {
			rec = store.PeerRecord{AgentID: req.AgentID, Status: Offline, FirstSeen: r.Now()}
		}
		if replacing := found && rec.Trust == Pinned && rec.Fingerprint != "" && rec.Fingerprint != req.Fingerprint; replacing {
			if !req.Replace {
				return errs.Invalid("%s is already pinned to another certificate (fingerprint %s…); a caller may claim any id. "+
					"If %s's owner made a new identity, check the new fingerprint with them and run `aoi peers trust %s %s --replace`",
					req.AgentID, rec.Fingerprint[:min(16, len(rec.Fingerprint))], req.AgentID, req.AgentID, req.Fingerprint)
			}
			rec.Role = "" // the role was given to the old certificate; --role gives it again
		}
		rec.Fingerprint, rec.Trust = req.Fingerprint, Pinned
		if req.Role != "" {
			rec.Role = req.Role
		}
		if req.Endpoint != "" {
			rec.Endpoint = req.Endpoint
		}
		if err := tx.UpsertPeer(rec); err != nil {
			return err
		}
		if err := tx.DeleteTrustRequest(req.Fingerprint); err != nil {
			return err
		}
		_, err = tx.AppendAudit("owner", "ctl.trust", "ok", req)
		return err
	})
	if err != nil {
		return err
	}
	r.forgetCallers()
	r.Publish(events.PeerChanged, req.AgentID, req.AgentID, "trusted")
	if req.Announce {
		// Not bound to the caller's request: the CLI has exited by the
		// time a slow peer answers.
		go r.helloAfterTrust(context.WithoutCancel(ctx), req.AgentID)
	}
	return nil
}

// helloAfterTrust announces to a peer the owner has just trusted.
func (r *Registry) helloAfterTrust(ctx context.Context, agentID string) {
	if err := r.AnnounceTo(ctx, agentID); err != nil {
		r.Log.Info("announce to a newly trusted peer", "component", "registry", "agent_to", agentID, "err", err)
	}
}

// Refuse turns a pending trust request down: it is listed no more, and
// the caller's further calls (still refused, as any stranger's) ring
// nobody. Given a pinned peer's fingerprint it undoes the trust the same
// way: the pin goes, and the peer's calls are refused from then on. A peer
// the config's peers[] pins is refused with advice instead (a reload would
// pin it again). `aoi peers trust` can pin either later.
func (r *Registry) Refuse(ctx context.Context, fingerprint string) error {
	pinned, found, err := r.DB.PeerByFingerprint(ctx, fingerprint)
	if err != nil {
		return err
	}
	if found && pinned.Trust == Pinned {
		return r.untrust(ctx, pinned)
	}
	err = r.DB.Write(ctx, func(tx *store.Tx) error {
		if _, err := tx.RefuseTrustRequest(fingerprint); err != nil {
			return err
		}
		_, err := tx.AppendAudit("owner", "ctl.refuse", "ok", map[string]any{"fingerprint": fingerprint})
		return err
	})
	if err == nil {
		// An open interface drops the request's row and its notice, here
		// or when refused from the CLI.
		r.Publish(events.PeerChanged, fingerprint, "", "trust request refused")
	}
	return err
}

// unpinTx deletes a peer's pin and keeps its certificate as a refused
// trust request, auditing why (empty: the owner asked).
func unpinTx(tx *store.Tx, p store.PeerRecord, why string) error {
	if err := tx.DeletePeer(p.AgentID); err != nil {
		return err
	}
	if p.Fingerprint != "" {
		if _, err := tx.RecordTrustRequest(store.TrustCaller{Fingerprint: p.Fingerprint, ClaimedAgentID: p.AgentID, Endpoint: p.Endpoint}); err != nil {
			return err
		}
		if _, err := tx.RefuseTrustRequest(p.Fingerprint); err != nil {
			return err
		}
	}
	detail := map[string]any{"agent_id": p.AgentID, "fingerprint": p.Fingerprint}
	if why != "" {
		detail["why"] = why
	}
	_, err := tx.AppendAudit("owner", "ctl.untrust", "ok", detail)
	return err
}

// untrust removes a pinned peer's pin and keeps its certificate refused
// (a refused trust request), so its next call rings nobody.
func (r *Registry) untrust(ctx context.Context, p store.PeerRecord) error {
	for _, cp := range r.Config().Peers {
		if cp.AgentID == p.AgentID {
			return errs.Invalid("%s is pinned by the config's peers[]; remove it there and run `aoi reload` to stop trusting it", p.AgentID)
		}
	}
	err := r.DB.Write(ctx, func(tx *store.Tx) error { return unpinTx(tx, p, "") })
	if err != nil {
		return err
	}
	r.Forget(p.AgentID) // cached callers and client
	r.Publish(events.PeerChanged, p.AgentID, p.AgentID, "no longer trusted")
	return nil
}

// List is the registry plus pending trust requests.
func (r *Registry) List(ctx context.Context) ([]Peer, error) {
	recs, err := r.DB.Peers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Peer, 0, len(recs))
	for _, rec := range recs {
		out = append(out, r.View(rec))
	}
	reqs, err := r.DB.TrustRequests(ctx)
	if err != nil {
		return nil, err
	}
	for _, q := range reqs {
		out = append(out, Peer{AgentID: q.ClaimedAgentID, Endpoint: q.Addr, Source: q.Source, Fingerprint: q.Fingerprint,
			Status: Offline, Trust: Pending, LastSeen: q.LastSeen})
	}
	return out, nil
}

// View turns a registry record into what front ends see, deriving
// offline from the last heartbeat.
func (r *Registry) View(rec store.PeerRecord) Peer {
	status := rec.Status
	if r.Now().Sub(rec.LastSeen) > r.Config().Network.OfflineAfter() {
		status = Offline
	}
	var expired time.Time
	if v, ok := r.expiredCerts.Load(rec.AgentID); ok {
		expired = v.(time.Time)
	}
	_, refusesUs := r.refusing.Load(rec.AgentID)
	caps := storedTaskParams(rec)
	return Peer{CertExpiredAt: expired, RefusesUs: refusesUs, AgentID: rec.AgentID, Role: rec.Role, AnnouncedRole: rec.AnnouncedRole, Owner: rec.Owner,
		Endpoint: rec.Endpoint, Fingerprint: rec.Fingerprint, NodeName: rec.NodeName, Status: status, Trust: rec.Trust,
		Contexts: rec.Contexts, TaskTypes: rec.TaskTypes, TaskParams: caps.TaskParams,
		TaskParamsCut: caps.TaskParamsCut, LastSeen: rec.LastSeen}
}
